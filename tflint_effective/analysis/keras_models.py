"""Keras models built in the module: which activation their layers apply last.

Names are resolved across the spellings of Keras (``tf.keras``, standalone
``keras`` 3 and ``tf_keras``) through the Context.  ``Outputs`` follows the
tensors of a functional model through names, also names bound more than once
(``x = Dense(n)(x)``): it records, statement by statement while the traversal
visits them, what each assignment's value is, so the value that reaches a use
is the one recorded last -- trusted only in straight-line code (below).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from .names import Assigned
from .syntax import call_arg, code_children, has_star_args, inherits, is_none

if TYPE_CHECKING:  # pragma: no cover
    from .context import Context

LINEAR, SOFTMAX, SIGMOID = "linear", "softmax", "sigmoid"
PASS = "pass"  # a layer that leaves the activation question to the layer before it
ACTIVATIONS = {"linear": LINEAR, "softmax": SOFTMAX, "sigmoid": SIGMOID}  # strings and keras.activations
TF_ACTIVATIONS = {"nn.softmax": SOFTMAX, "sigmoid": SIGMOID, "nn.sigmoid": SIGMOID}  # canonical TF names
# The position of ``activation`` in a layer's constructor (the same in Keras 3 and tf_keras).
ACTIVATION_PARAMETER = {"layers.Dense": 1, "layers.Conv1D": 7, "layers.Conv2D": 7, "layers.Conv3D": 7}
# Layers whose output is logits when their input is, probabilities when it is (up to noise in training).
PASS_THROUGH = {"layers.Dropout", "layers.Flatten", "layers.Reshape", "layers.GaussianNoise",
                "layers.ActivityRegularization"}
Output = Tuple[Optional[str], Optional[str]]  # (the layer's ``name=``, its last activation)
UNKNOWN: Output = (None, None)
# Compound statements and lambdas (concrete classes, for ``type(node) in``): a block ends there.
_BLOCK_ENDS = frozenset({*(c for c in vars(cst).values() if inherits(c, (cst.BaseCompoundStatement,))), cst.Lambda})
_UNSET = object()
MODELS = ("Sequential", "models.Sequential", "Model", "models.Model")
_MODEL_LEAVES = {path.rpartition(".")[2] for path in MODELS}
LOSSES = ("categorical_crossentropy", "sparse_categorical_crossentropy", "binary_crossentropy")
LOSS_CLASSES = ("CategoricalCrossentropy", "SparseCategoricalCrossentropy", "BinaryCrossentropy")
# Methods and attributes of a model that leave its layers as they are.
MODEL_READS = {"fit", "evaluate", "predict", "summary", "save", "save_weights", "load_weights", "train_on_batch",
               "test_on_batch", "predict_on_batch", "count_params", "build", "input", "inputs", "output", "outputs",
               "name", "metrics_names", "to_json", "get_config", "fit_generator"}


def keras_path(context: "Context", expr: cst.BaseExpression, scope=None) -> Optional[str]:
    """The path below ``keras`` that ``expr`` names (``tf.keras``, ``keras``, ``tf_keras``), read
    here or in ``scope``."""
    name = context.tf_name(expr, scope)
    if name is not None:
        return name.path[6:] if name.path.startswith("keras.") else None
    root, _, path = (context.qualname(expr, scope) or "").partition(".")
    return path if root in ("keras", "tf_keras") else None


def follow(context: "Context", expr: Optional[cst.BaseExpression], depth: int = 1):
    """``expr``, or the value of the name it is, through names bound once by an assignment."""
    while type(expr) is cst.Name and depth:
        expr, depth = context.assigned_value(expr), depth - 1
    return expr


def activation(context: "Context", expr: cst.BaseExpression) -> Optional[str]:
    """LINEAR, SOFTMAX or SIGMOID for an ``activation=`` argument, None for anything else."""
    expr = expr if is_none(expr) else follow(context, expr)
    if expr is None or is_none(expr):
        return LINEAR if expr is not None else None
    if isinstance(expr, cst.SimpleString):
        return ACTIVATIONS.get(expr.evaluated_value)
    path = keras_path(context, expr) or ""
    if path.startswith("activations."):
        return ACTIVATIONS.get(path[12:])
    name = context.tf_name(expr)
    return TF_ACTIVATIONS.get(name.canonical) if name is not None else None


def layer_activation(context: "Context", expr: cst.BaseExpression) -> Optional[str]:
    """The activation a layer constructor call applies last, PASS, or None (unknown)."""
    expr = follow(context, expr)
    if type(expr) is not cst.Call or has_star_args(expr):
        return None
    path = keras_path(context, expr.func)
    if path in ACTIVATION_PARAMETER:
        arg = call_arg(expr, ACTIVATION_PARAMETER[path], "activation")
        return LINEAR if arg is None else activation(context, arg.value)
    if path == "layers.Activation":
        arg = call_arg(expr, 0, "activation")
        return arg and activation(context, arg.value)
    return SOFTMAX if path == "layers.Softmax" else PASS if path in PASS_THROUGH else None


def last_activation(context: "Context", layers: Sequence[cst.BaseElement]) -> Optional[str]:
    """The activation a ``Sequential`` list of layers applies last (None: unknown)."""
    for element in reversed(layers):
        found = None if isinstance(element, cst.StarredElement) else layer_activation(context, element.value)
        if found != PASS:
            return found
    return None


def model_use(context: "Context", node: cst.Name) -> Optional[str]:
    """How the name of a model is used at ``node``: None (bound there, or not the model: a keyword,
    an attribute), ``"read"`` (a method or attribute that leaves its layers as they are), ``"add"`` or
    ``"compile"`` (called), ``"method"`` (any other attribute) or ``"value"`` (handed on)."""
    ancestors = context.ancestors
    parent = ancestors[-2]
    if (isinstance(parent, cst.AssignTarget) or isinstance(parent, cst.Arg) and parent.keyword is node
            or isinstance(parent, cst.Attribute) and parent.attr is node):
        return None
    if not isinstance(parent, cst.Attribute):
        return "value"
    attr = parent.attr.value
    if attr in ("add", "compile") and type(ancestors[-3]) is cst.Call and ancestors[-3].func is parent:
        return attr
    return "read" if attr in MODEL_READS or attr == "layers" and _layers_applied(ancestors) else "method"


def _layers_applied(ancestors) -> bool:
    """``for layer in model.layers:`` whose body only calls each layer or reads its attributes
    (``X = layer(X)``, ``print(layer.name, X.shape)``): the layers stay as they are."""
    loop, layers = ancestors[-3], ancestors[-2]
    if type(loop) is not cst.For or loop.iter is not layers or type(loop.target) is not cst.Name:
        return False
    stack = [(loop.body, None, None)]
    while stack:
        node, parent, grandparent = stack.pop()
        if type(node) is cst.Name and node.value == loop.target.value:
            called = type(parent) is cst.Call and parent.func is node
            read = type(parent) is cst.Attribute and parent.value is node
            if not (called or read and getattr(grandparent, "target", None) is not parent):  # no ``layer.x = ...``
                return False
        stack.extend((child, node, parent) for child in code_children(node))
    return True


def takes_logits(context: "Context", expr: cst.BaseExpression) -> Optional[bool]:
    """False for a cross-entropy loss that takes probabilities, True for one told it gets logits
    (``from_logits=True``), None for anything else."""
    expr = follow(context, expr, 2)
    if expr is None:
        return None
    if isinstance(expr, cst.SimpleString):
        return False if expr.evaluated_value in LOSSES + LOSS_CLASSES else None
    if type(expr) is not cst.Call:
        path = keras_path(context, expr) or ""
        return False if path.startswith("losses.") and path[7:] in LOSSES else None
    if keras_path(context, expr.func) not in tuple("losses." + c for c in LOSS_CLASSES) or has_star_args(expr):
        return None
    arg = call_arg(expr, 0, "from_logits")
    value = arg.value if arg is not None else cst.Name("False")
    return {"True": True, "False": False}.get(value.value) if isinstance(value, cst.Name) else None


def losses_per_output(context: "Context", loss: cst.BaseExpression, outputs: Sequence[Output]):
    """``(loss, outputs it applies to)`` for ``compile(loss=...)``: one loss for every output,
    a list in the order of the outputs, or a dict keyed by the outputs' layer names."""
    value = follow(context, loss)
    if isinstance(value, (cst.List, cst.Tuple)):
        if len(value.elements) != len(outputs) or any(isinstance(e, cst.StarredElement) for e in value.elements):
            return []
        return [(e.value, [output]) for e, output in zip(value.elements, outputs)]
    if isinstance(value, cst.Dict):
        named = {output[0]: output for output in outputs if output[0] is not None}
        return [(e.value, [named[e.key.evaluated_value]]) for e in value.elements
                if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                and e.key.evaluated_value in named]
    return [(loss, list(outputs))]


class Outputs:
    """What the tensor a name holds comes out of, statement by statement (functional models).

    Call ``assigned(node)`` from ``visit_Assign`` / ``visit_AnnAssign`` and
    ``rebound(name)`` for a walrus.  A name bound more than once is followed only
    when every binding is such an assignment in the scope being visited and the
    last one visited sits in the same block as the statement asking (no branch
    or loop in between).
    """

    def __init__(self, context: "Context"):
        self.context = context
        self.last: Dict[Tuple[int, str], Tuple[Optional[cst.CSTNode], Output]] = {}  # -> (block, output)

    def block(self) -> Optional[cst.CSTNode]:
        """The block (module, indented block, one-line suite) of the statement being visited."""
        ancestors = self.context.ancestors
        for index in range(len(ancestors) - 1, 0, -1):
            kind = type(ancestors[index])
            if kind is cst.SimpleStatementLine:
                return ancestors[index - 1]
            if kind is cst.SimpleStatementSuite:
                return ancestors[index]
            if kind in _BLOCK_ENDS:
                return None
        return None

    def assigned(self, node) -> None:
        if node.value is None:
            return
        targets = [node.target] if type(node) is cst.AnnAssign else [t.target for t in node.targets]
        block = _UNSET  # the same for every target: asked once, when one is a name
        for target in targets:
            if type(target) is cst.Name:
                block = self.block() if block is _UNSET else block
                key = (id(self.context.owner(target.value)), target.value)
                self.last[key] = (block, self.output(node.value))

    def of_model(self, call: cst.Call) -> Tuple[Optional[List[Output]], bool]:
        """The outputs of a ``Sequential([...])`` or functional ``Model(inputs, outputs)`` call
        (None: not one, or its outputs are not a known list), and whether it is a Sequential."""
        func = call.func
        if type(func) is cst.Attribute and func.attr.value not in _MODEL_LEAVES:
            return None, False  # the path ends with the attribute: not a model (most calls)
        path = keras_path(self.context, func)
        if path not in MODELS or has_star_args(call):
            return None, False
        if path.endswith("Sequential"):
            layers = call_arg(call, 0, "layers")
            layers = follow(self.context, layers.value) if layers is not None else cst.List([])
            if not isinstance(layers, (cst.List, cst.Tuple)):
                return [UNKNOWN], True
            return [(None, last_activation(self.context, layers.elements))] if layers.elements else [], True
        found = call_arg(call, 1, "outputs")
        if found is None:
            return None, False
        listed = follow(self.context, found.value)  # ``outputs = [a, b]`` bound once
        elements = listed.elements if isinstance(listed, (cst.List, cst.Tuple)) else [cst.Element(found.value)]
        if any(isinstance(e, cst.StarredElement) for e in elements):
            return None, False
        return [self.output(e.value) for e in elements], False

    def rebound(self, name: str) -> None:
        self.last[(id(self.context.owner(name)), name)] = (None, UNKNOWN)

    def output(self, expr: cst.BaseExpression, depth: int = 3, here: bool = True) -> Output:
        """(``name=``, activation) of the layer that decides what ``expr`` holds: a layer call
        ``Dense(n)(x)``, through names and pass-through layers (``Dropout(r)(x)``).  ``here``:
        ``expr`` is evaluated at the statement being visited (else names bound once only)."""
        if type(expr) is cst.Name:
            return self._name(expr, depth, here)
        layer = follow(self.context, expr.func) if type(expr) is cst.Call else None
        if type(layer) is not cst.Call:
            return UNKNOWN
        name = call_arg(layer, None, "name")
        name = name.value.evaluated_value if name is not None and isinstance(name.value, cst.SimpleString) else None
        found = layer_activation(self.context, layer)
        if found == PASS:
            inputs = expr.args[0].value if len(expr.args) == 1 and not expr.args[0].keyword else None
            found = self.output(inputs, depth, here)[1] if inputs is not None and not expr.args[0].star else None
        return name, found

    def _name(self, expr: cst.Name, depth: int, here: bool) -> Output:
        context = self.context
        bindings, owner = context.bindings(expr.value), context.owner(expr.value)
        block, output = self.last.get((id(owner), expr.value), (None, None))
        if bindings and len(bindings) == 1 and isinstance(bindings[0], Assigned):
            if output is not None:  # recorded when it was assigned
                return output
            return self.output(bindings[0].value, depth - 1, False) if depth else UNKNOWN  # not visited yet
        if (here and bindings and owner is context.scope and block is not None and block is self.block()
                and all(isinstance(b, Assigned) and b.scope is owner for b in bindings)):
            return output
        return UNKNOWN
