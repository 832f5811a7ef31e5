"""A Keras loss whose `from_logits` contradicts the model's last activation.

Why: Keras' cross-entropy losses (``"categorical_crossentropy"``,
``"sparse_categorical_crossentropy"``, ``"binary_crossentropy"``, their classes
and functions) take probabilities unless ``from_logits=True``.  A model whose
last layer has no activation (``Dense(n)``, ``Conv2D(n, k)``, ``activation=None``
or ``"linear"``) outputs logits; a probability loss clips them into
``[1e-7, 1 - 1e-7]`` (the categorical one first divides them by their sum), so
every logit outside that range gets no gradient (measured on TF 2.21 / Keras 3:
the fixture's 4-class problem, trained 10 epochs, stays at loss ln 4 = 1.386
and 33% accuracy, against 0.06 and 98% with ``from_logits=True``; the same
with a ``Dropout`` after the last ``Dense``).  The reverse, a last ``softmax``
/ ``sigmoid`` (``activation=``, an ``Activation`` or ``Softmax`` layer) with
``from_logits=True``, applies the activation twice: Keras 3 warns at run time
(``received `from_logits=True`, but the `output` argument was produced by a
Softmax activation``) and falls back to the layer's input only when it
recognises the op that matches the loss; say it before the run.  Either
correction works: ``from_logits=True`` with a linear last layer (the stabler
one), or a softmax / sigmoid last layer with the default loss.

Severity: warning in every mode (``tf.keras`` is the same in TF1 and TF2 code),
not an error: a binary cross-entropy on a linear output still trains on the
outputs inside ``(0, 1)`` (measured: 99% accuracy on a simple problem).  Info in
a test suite (``test_*.py`` / ``*_test.py`` / ``conftest.py`` or a ``tests``
folder, that imports ``pytest``, ``unittest`` or ``absl.testing``, derives from
``tf.test.TestCase`` or defines ``test_*`` functions): a model compiled there is
a fixture for what the test checks (saving, a pipeline, gradients), not one
trained for its predictions.

Fix safety: none offered; which correction is meant is the user's decision.

Known problems: only models built in the module are seen: a name bound to
``Sequential([...])`` (once, or only by assignments in straight-line code, each
rebinding a new model) (then ``.add(layer)`` statements in its block) or to a
functional ``Model(inputs, outputs)`` whose outputs come out of layer calls.  An
output name bound more than once (``x = Dense(n)(x)``) is followed only when
every binding is a plain assignment in that scope and the last one sits in the
block of the ``Model(...)`` statement (no branch or loop between).  Layers that
only reshape or perturb (``Dropout``, ``Flatten``, ``Reshape``,
``GaussianNoise``, ``ActivityRegularization``) are looked through; any other
than ``Dense`` / ``ConvND`` / ``Activation`` / ``Softmax`` ends the search.
The model must be used after its ``compile``: trained or evaluated (``fit``,
``train_on_batch``, ``evaluate``, ...) or handed on (passed to a function,
returned); one only summarised, saved or used to predict after it is compiled
trains on nothing here (a lesson's variants of ``compile``, a script that stops
before ``fit``), and is not reported.
A model a module function builds and returns (``model = build_model()``) is
followed when the function is defined once, before the call, and its only
``return`` hands back the model as the last statement of its body.
Subclassed models, other helpers, dict outputs, losses wrapped in
functions, and a model used otherwise than by ``add``/``compile``/``fit``-like
methods before it is compiled (passed to a function, its ``layers`` read otherwise than by a loop
that only calls each layer or reads its attributes, ``for layer in model.layers: X = layer(X)``) are
not followed.  Files that import only ``keras`` or ``tf_keras`` are read too.
"""
import libcst as cst

from ..analysis.keras_models import LINEAR, PASS, SIGMOID, SOFTMAX, Outputs, layer_activation, losses_per_output
from ..analysis.keras_models import model_use, takes_logits
from ..analysis.names import Assigned
from ..analysis.syntax import call_arg, has_star_args
from ..analysis.test_suites import is_test_module
from ..rule import INFO, WARNING, Rule

LOGITS = ("the model's last layer has no activation (it outputs logits) but `{loss}` expects probabilities: "
          "the loss clips the logits, their gradient vanishes and training stalls; pass `from_logits=True` to the "
          "loss, or end the model with a softmax/sigmoid activation")
PROBABILITIES = ("the model's last layer applies {act} (it outputs probabilities) but `{loss}` has "
                 "`from_logits=True`: the loss takes them for logits (Keras repairs it, with a warning, only when it "
                 "recognises the op); use `from_logits=False`, or drop the activation from the last layer")


# Methods of a compiled model that compute its loss (``summary``, ``predict``, ``save`` do not).
LOSS_READS = frozenset({"fit", "fit_generator", "train_on_batch", "evaluate", "evaluate_generator", "test_on_batch"})


class _Model:
    __slots__ = ("block", "outputs", "compiled", "poisoned", "sequential", "built_by", "used")

    def __init__(self, block, outputs, sequential, built_by=None):
        self.block, self.outputs, self.sequential = block, outputs, sequential
        self.compiled = self.poisoned = False
        self.built_by = built_by  # the model a helper function built and returned
        self.used = False  # after its compile: trained, evaluated or handed on

    @property
    def changed(self) -> bool:
        return self.poisoned or self.built_by is not None and self.built_by.changed


class FromLogitsMismatch(Rule):
    """Keras loss `from_logits` contradicts the activation of the model's last layer."""

    CODE = "TFE407"
    MESSAGE = "the loss's `from_logits` contradicts the model's last activation"
    SEVERITY = WARNING
    NEEDS = ("rossentropy",)  # in every loss name it knows (``keras_models.LOSSES``, ``LOSS_CLASSES``)
    BAD = """
        model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(4)])
        model.compile("adam", loss="sparse_categorical_crossentropy")
        model.fit(x, y)
    """
    GOOD = """
        model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(4)])
        model.compile("adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(x, y)
    """

    def setup(self) -> None:
        self.models = {}  # (id(scope), name) -> _Model
        self.helpers = {}  # (id(scope), function name) -> the _Model it returns
        self.returns = {}  # the function -> how many return statements it has
        self.names = set()  # a cheap filter for visit_Name and visit_Call
        self.candidates = []  # (model, node, message)
        self.outputs = Outputs(self.context)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.outputs.assigned(node)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if isinstance(node.target, cst.Name):
            self.outputs.rebound(node.target.value)

    visit_AugAssign = visit_NamedExpr  # ``x += y``: no layer's output any more

    def visit_Assign(self, node: cst.Assign) -> None:
        """Remember a name bound to ``Sequential([...])``, ``Model(inputs, outputs)`` or a helper's model;
        forget it when it is bound to anything else."""
        target = node.targets[0].target
        if len(node.targets) == 1 and type(target) is cst.Name:
            outputs, sequential, built_by = None, False, None
            if type(node.value) is cst.Call:
                outputs, sequential = self.outputs.of_model(node.value)
                built_by = self._helper_model(node.value)
                if built_by is not None:
                    outputs, sequential = list(built_by.outputs), built_by.sequential
            key = (id(self.context.owner(target.value)), target.value)
            if outputs is not None and self._bound_in_order(target.value):
                self.models[key] = _Model(self.outputs.block(), outputs, sequential, built_by)
                self.names.add(target.value)
            else:
                self.models.pop(key, None)  # ``model = load_model(path)``: another model from here on
        self.outputs.assigned(node)

    def _bound_in_order(self, name: str) -> bool:
        """``name`` is bound once, or only by plain assignments that run one after the other, each
        once (a notebook's ``model = ...`` per cell): the binding before a use is the one it sees."""
        bindings = self.context.bindings(name) or ()
        return len(bindings) == 1 or all(type(b) is Assigned and b.position is not None for b in bindings)

    def _helper_model(self, call: cst.Call):
        """The model a module function returns (``model = build_model()``), when it is one function
        bound once and built before this call."""
        if type(call.func) is not cst.Name or has_star_args(call):
            return None
        name = call.func.value
        owner = self.context.owner(name)
        if owner is None or len(self.context.bindings(name) or ()) != 1:
            return None
        return self.helpers.get((id(owner), name))

    def visit_Return(self, node: cst.Return) -> None:
        function = self.context.scope.node
        self.returns[function] = self.returns.get(function, 0) + 1

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (type(func) is cst.Attribute and type(func.value) is cst.Name
                and func.value.value in self.names):
            return
        owner = self.context.owner(func.value.value)
        model = self.models.get((id(owner), func.value.value))
        if model is None or func.attr.value not in ("add", "compile"):
            return
        if owner is not self.context.scope:  # compiled or changed in another function
            model.poisoned = True
        elif func.attr.value == "add":  # an add statement in the block that binds the model
            layer = call_arg(node, 0, "layer")
            if (model.compiled or not model.sequential or layer is None or has_star_args(node)
                    or type(self.context.parent) is not cst.Expr or self.outputs.block() is not model.block):
                model.poisoned = True
            else:
                found = layer_activation(self.context, layer.value)
                model.outputs = model.outputs if found == PASS else [(None, found)]
        else:
            model.compiled = True
            loss = call_arg(node, 1, "loss")
            if loss is not None and not has_star_args(node) and not model.poisoned:
                self._compile(model, loss.value)

    def _compile(self, model: _Model, loss) -> None:
        for node, outputs in losses_per_output(self.context, loss, model.outputs):
            report = loss if isinstance(loss, cst.Name) else node  # the argument, or an element of a literal
            from_logits = takes_logits(self.context, node)
            wrong = [act for _, act in outputs if act == LINEAR and from_logits is False
                     or act in (SOFTMAX, SIGMOID) and from_logits is True]
            if wrong:
                self.context.mode_thunk(report)  # remember the mode here; reported at the end
                code = " ".join(self.context.module.code_for_node(report).split())
                message = LOGITS if wrong[0] == LINEAR else PROBABILITIES
                self.candidates.append((model, report, message.format(loss=code, act=wrong[0])))

    def visit_Name(self, node: cst.Name) -> None:
        """Other uses of a model: a method that may change its layers, any use before it is compiled, and
        whether it is trained, evaluated or handed on after."""
        model = self.models.get((id(self.context.owner(node.value)), node.value)) if node.value in self.names else None
        use = model_use(self.context, node) if model is not None else None
        if use is None or use == "value" and self._returned(node, model):
            return
        if model.compiled and (use == "value" or use == "read" and self.context.parent.attr.value in LOSS_READS):
            model.used = True
        if use == "method" or use == "value" and not model.compiled:
            model.poisoned = True

    def _returned(self, node: cst.Name, model: _Model) -> bool:
        """``return model`` closing the block that built it, in a function with no other return:
        remembered as what the function builds."""
        function, parent = self.context.scope.node, self.context.parent
        if not (type(parent) is cst.Return and type(function) is cst.FunctionDef and not model.compiled
                and self.returns.get(function) == 1 and self.outputs.block() is model.block is function.body):
            return False
        scope = self.context.scope_of(function)
        key = (id(self.context.owner(function.name.value, scope.parent)), function.name.value)
        self.helpers[key] = model
        return True

    def leave_Module(self, node: cst.Module) -> None:
        severity = INFO if self.candidates and is_test_module(self.context) else None
        for model, report, message in self.candidates:
            if not model.changed and model.used:
                self.report(report, message, severity=severity)
