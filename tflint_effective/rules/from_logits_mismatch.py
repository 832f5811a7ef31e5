"""A Keras loss whose `from_logits` contradicts the model's last activation.

Why: Keras' cross-entropy losses (``"categorical_crossentropy"``,
``"sparse_categorical_crossentropy"``, ``"binary_crossentropy"``, their classes
and functions) take probabilities unless ``from_logits=True``.  A model whose
last layer has no activation (``Dense(n)``, ``Conv2D(n, k)``, ``activation=None``
or ``"linear"``) outputs logits; a probability loss clips them into
``[1e-7, 1 - 1e-7]`` (the categorical one first divides them by their sum), so
every logit outside that range gets no gradient (measured on TF 2.21 / Keras 3:
the fixture's 4-class problem, trained 10 epochs, stays at loss ln 4 = 1.386
and 33% accuracy, against 0.06 and 98% with ``from_logits=True``).  The reverse, a last
``softmax`` / ``sigmoid`` (``activation=``, an ``Activation`` or ``Softmax``
layer) with ``from_logits=True``, applies the activation twice: Keras 3 warns
at run time (``received `from_logits=True`, but the `output` argument was
produced by a Softmax activation``) and falls back to the layer's input only
when it recognises the op that matches the loss; say it before the run.
Either correction works: ``from_logits=True`` with a linear last layer (the
stabler one), or a softmax / sigmoid last layer with the default loss.

Severity: warning in every mode (``tf.keras`` is the same in TF1 and TF2
code).  Not an error: a binary cross-entropy on a linear output still trains
on the outputs that land inside ``(0, 1)`` (measured: 99% accuracy on a simple
problem), and Keras repairs the reverse case when it recognises the op.

Fix safety: none offered; which correction is meant (and that training
changes) is the user's decision.

Known problems: only models built in the module itself are seen: a name bound
once to ``Sequential([...])`` (then ``.add(layer)`` statements in the same
block), or to a functional ``Model(inputs, outputs)`` whose outputs are layer
calls (``Dense(n)(x)``) followed through names bound once; subclassed models,
models built by helpers, dict outputs, an output name bound more than once
(``x = Dense(n)(x)``), layers after the last activation (``Dropout``), other
layers than ``Dense`` / ``ConvND`` / ``Activation`` / ``Softmax`` and losses
wrapped in functions are not.
A model used otherwise than through ``add``/``compile``/``fit``-like methods
before it is compiled (passed to a function, its ``layers`` read) is skipped.
A file that imports only standalone ``keras`` (no ``tensorflow``) is not linted.
"""
from typing import Optional

import libcst as cst

from ..analysis.syntax import call_arg, has_star_args, is_none
from ..rule import WARNING, Rule

LINEAR, SOFTMAX, SIGMOID = "linear", "softmax", "sigmoid"
ACTIVATIONS = {"linear": LINEAR, "softmax": SOFTMAX, "sigmoid": SIGMOID}  # strings and keras.activations
TF_ACTIVATIONS = {"nn.softmax": SOFTMAX, "sigmoid": SIGMOID, "nn.sigmoid": SIGMOID}  # canonical TF names
# The position of ``activation`` in a layer's constructor (the same in Keras 3 and tf_keras).
ACTIVATION_PARAMETER = {"layers.Dense": 1, "layers.Conv1D": 7, "layers.Conv2D": 7, "layers.Conv3D": 7}
LOSSES = ("categorical_crossentropy", "sparse_categorical_crossentropy", "binary_crossentropy")
LOSS_CLASSES = ("CategoricalCrossentropy", "SparseCategoricalCrossentropy", "BinaryCrossentropy")
# Uses of a model that leave its layers as they are (``add`` and ``compile`` calls are followed).
SAFE_METHODS = {"fit", "evaluate", "predict", "summary", "save", "save_weights", "load_weights", "train_on_batch",
                "test_on_batch", "predict_on_batch", "count_params", "build", "input", "inputs", "output", "outputs",
                "name", "metrics_names", "to_json", "get_config", "fit_generator"}
LOGITS = ("the model's last layer has no activation (it outputs logits) but `{loss}` expects probabilities: "
          "the loss clips the logits, their gradient vanishes and training stalls; pass `from_logits=True` to the "
          "loss, or end the model with a softmax/sigmoid activation")
PROBABILITIES = ("the model's last layer applies {act} (it outputs probabilities) but `{loss}` has "
                 "`from_logits=True`: the loss takes them for logits (Keras repairs it, with a warning, only when it "
                 "recognises the op); use `from_logits=False`, or drop the activation from the last layer")


class _Model:
    __slots__ = ("block", "outputs", "compiled", "poisoned", "sequential")

    def __init__(self, block, outputs, sequential):
        self.block, self.outputs, self.sequential = block, outputs, sequential
        self.compiled = self.poisoned = False


class FromLogitsMismatch(Rule):
    """Keras loss `from_logits` contradicts the activation of the model's last layer."""

    CODE = "TFE407"
    MESSAGE = "the loss's `from_logits` contradicts the model's last activation"
    SEVERITY = WARNING
    BAD = """
        model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(4)])
        model.compile("adam", loss="sparse_categorical_crossentropy")
    """
    GOOD = """
        model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(4)])
        model.compile("adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    """

    def setup(self) -> None:
        self.models = {}  # (id(scope), name) -> _Model
        self.names = set()  # a cheap filter for visit_Name and visit_Call
        self.candidates = []  # (model, node, message)

    def _keras(self, expr) -> Optional[str]:
        """The path below ``keras`` that ``expr`` names (``tf.keras``, ``keras``, ``tf_keras``)."""
        name = self.context.tf_name(expr)
        if name is not None:
            return name.path[6:] if name.path.startswith("keras.") else None
        root, _, path = (self.context.qualname(expr) or "").partition(".")
        return path if root in ("keras", "tf_keras") else None

    def _follow(self, expr, depth=3):
        while isinstance(expr, cst.Name) and depth:
            expr, depth = self.context.assigned_value(expr), depth - 1
        return expr

    def visit_Assign(self, node: cst.Assign) -> None:
        value, target = node.value, node.targets[0].target
        if len(node.targets) != 1 or not isinstance(target, cst.Name) or type(value) is not cst.Call:
            return
        path = self._keras(value.func)
        if path not in ("Sequential", "models.Sequential", "Model", "models.Model") or has_star_args(value):
            return
        if len(self.context.bindings(target.value) or ()) != 1:
            return
        if path.endswith("Sequential"):
            layers = call_arg(value, 0, "layers")
            layers = self._follow(layers.value, 1) if layers is not None else cst.List([])
            outputs = [(None, None)]
            if isinstance(layers, (cst.List, cst.Tuple)) and not layers.elements:
                outputs = []
            elif isinstance(layers, (cst.List, cst.Tuple)) and not isinstance(layers.elements[-1], cst.StarredElement):
                outputs = [(None, self._layer(layers.elements[-1].value))]
        else:
            found = call_arg(value, 1, "outputs")
            found = self._follow(found.value, 1) if found is not None else None
            if found is None:
                return
            elements = found.elements if isinstance(found, (cst.List, cst.Tuple)) else [cst.Element(found)]
            if any(isinstance(e, cst.StarredElement) for e in elements):
                return
            outputs = [self._output(e.value) for e in elements]
        block = self.context.ancestors[-3] if len(self.context.ancestors) > 2 else None
        key = (id(self.context.owner(target.value)), target.value)
        self.models[key] = _Model(block, outputs, path.endswith("Sequential"))
        self.names.add(target.value)

    def _activation(self, expr) -> Optional[str]:
        expr = expr if is_none(expr) else self._follow(expr, 1)
        if expr is None or is_none(expr):
            return LINEAR if expr is not None else None
        if isinstance(expr, cst.SimpleString):
            return ACTIVATIONS.get(expr.evaluated_value)
        path = self._keras(expr) or ""
        if path.startswith("activations."):
            return ACTIVATIONS.get(path[12:])
        name = self.context.tf_name(expr)
        return TF_ACTIVATIONS.get(name.canonical) if name is not None else None

    def _layer(self, expr) -> Optional[str]:
        """The activation a layer constructor call applies last (None: unknown)."""
        expr = self._follow(expr, 1)
        if type(expr) is not cst.Call or has_star_args(expr):
            return None
        path = self._keras(expr.func)
        if path in ACTIVATION_PARAMETER:
            arg = call_arg(expr, ACTIVATION_PARAMETER[path], "activation")
            return LINEAR if arg is None else self._activation(arg.value)
        if path == "layers.Activation":
            arg = call_arg(expr, 0, "activation")
            return arg and self._activation(arg.value)
        return SOFTMAX if path == "layers.Softmax" else None

    def _output(self, expr):
        """(layer name, activation) of a functional output ``Dense(n, name=...)(x)``."""
        expr = self._follow(expr)
        layer = self._follow(expr.func, 1) if type(expr) is cst.Call else None
        if type(layer) is not cst.Call:
            return None, None
        name = call_arg(layer, None, "name")
        name = name.value.evaluated_value if name is not None and isinstance(name.value, cst.SimpleString) else None
        return name, self._layer(layer)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value in self.names):
            return
        owner = self.context.owner(func.value.value)
        model = self.models.get((id(owner), func.value.value))
        if model is None or func.attr.value not in ("add", "compile"):
            return
        if owner is not self.context.scope:  # compiled or changed in another function
            model.poisoned = True
        elif func.attr.value == "add":  # an add statement in the block that binds the model
            ancestors = self.context.ancestors
            layer = call_arg(node, 0, "layer")
            if (model.compiled or not model.sequential or layer is None or has_star_args(node)
                    or type(ancestors[-2]) is not cst.Expr or ancestors[-4] is not model.block):
                model.poisoned = True
            else:
                model.outputs = [(None, self._layer(layer.value))]
        else:
            model.compiled = True
            loss = call_arg(node, 1, "loss")
            if loss is not None and not has_star_args(node) and not model.poisoned:
                self._compile(model, loss.value)

    def _compile(self, model: _Model, loss) -> None:
        value = self._follow(loss, 1)
        outputs = model.outputs
        if isinstance(value, (cst.List, cst.Tuple)):
            if len(value.elements) != len(outputs) or any(isinstance(e, cst.StarredElement) for e in value.elements):
                return
            pairs = [(e.value, [o]) for e, o in zip(value.elements, outputs)]
        elif isinstance(value, cst.Dict):
            named = {name: (name, act) for name, act in outputs if name is not None}
            pairs = [(e.value, [named[e.key.evaluated_value]]) for e in value.elements
                     if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                     and e.key.evaluated_value in named]
        else:
            pairs = [(loss, outputs)]
        for node, targets in pairs:
            report = node if value is loss else loss  # an element of a literal list or dict, or the argument
            from_logits = self._from_logits(node)
            wrong = [act for _, act in targets if act == LINEAR and from_logits is False
                     or act in (SOFTMAX, SIGMOID) and from_logits is True]
            if wrong:
                self.context.mode_thunk(report)  # remember the mode here; reported at the end
                code = " ".join(self.context.module.code_for_node(report).split())
                message = LOGITS if wrong[0] == LINEAR else PROBABILITIES
                self.candidates.append((model, report, message.format(loss=code, act=wrong[0])))

    def _from_logits(self, expr) -> Optional[bool]:
        """False for a probability loss, True for one that takes logits, None otherwise."""
        expr = self._follow(expr, 2)
        if expr is None:
            return None
        if isinstance(expr, cst.SimpleString):
            return False if expr.evaluated_value in LOSSES + LOSS_CLASSES else None
        if type(expr) is not cst.Call:
            path = self._keras(expr) or ""
            return False if path.startswith("losses.") and path[7:] in LOSSES else None
        if self._keras(expr.func) not in tuple("losses." + c for c in LOSS_CLASSES) or has_star_args(expr):
            return None
        arg = call_arg(expr, 0, "from_logits")
        value = arg.value if arg is not None else cst.Name("False")
        return {"True": True, "False": False}.get(value.value) if isinstance(value, cst.Name) else None

    def visit_Name(self, node: cst.Name) -> None:
        """Other uses of a model: a method that may change its layers, or any use before it is compiled."""
        if node.value not in self.names:
            return
        model = self.models.get((id(self.context.owner(node.value)), node.value))
        ancestors = self.context.ancestors
        parent = ancestors[-2]
        if model is None or (isinstance(parent, cst.AssignTarget) or isinstance(parent, cst.Arg)
                             and parent.keyword is node or isinstance(parent, cst.Attribute) and parent.attr is node):
            return
        if isinstance(parent, cst.Attribute):
            called = type(ancestors[-3]) is cst.Call and ancestors[-3].func is parent
            if not (parent.attr.value in SAFE_METHODS or called and parent.attr.value in ("add", "compile")):
                model.poisoned = True
        elif not model.compiled:
            model.poisoned = True

    def leave_Module(self, node: cst.Module) -> None:
        for model, report, message in self.candidates:
            if not model.poisoned:
                self.report(report, message)
