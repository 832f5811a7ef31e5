"""A `tf.Variable` created on every call of a `tf.function`.

Why: a ``tf.function`` may create variables only once.  When a trace creates
one, TensorFlow traces the Python function a second time to check that no
further variable is created, and a body that builds ``tf.Variable(...)``
unconditionally creates another: the *first* call already raises
``ValueError: tf.function only supports singleton tf.Variables created on the
first call`` (measured on TF 2.21, for ``tf.Variable``,
``tf.compat.v1.Variable``, ``self.v = tf.Variable(...)`` in a decorated
method, a ``tf.function(lambda: ...)``, and also with eager execution
disabled).  The same happens to a Keras layer with weights (``Dense``,
``Conv1D``/``Conv2D``, ``Embedding``, ``BatchNormalization``, ``LSTM``,
``GRU``; of ``tf.keras``, Keras 3 or ``tf_keras``) constructed and called in
the body: its call builds new weights on each trace.  Create the variable (or layer) once, outside the function, in
``__init__`` / ``build``, or behind ``if self.v is None:``.

Fix safety: none offered; where the variable should live (an attribute, a
module-level name) is a design decision.

Known problems: only variables and layers created in the body of the
function ``tf.function`` itself wraps are seen, not those of helpers it
calls, of Keras ``call`` / ``train_step`` (Keras builds layers before it
traces them), or of nested functions.  Creation under an ``if``, a ``try``,
a loop, a conditional expression, ``and`` / ``or``, a ``with`` other than a
TensorFlow scope, or after an earlier ``return`` / ``raise`` is not reported
(a create-once pattern may be behind it); nor is creation under ``with
tf.init_scope():``, although on TF 2.21 an unconditional one raises the same
error.  A layer is reported only when it is constructed and called in the
body unconditionally (``Dense(3)(x)``, or bound once to a name called
later); layers without weights (``Flatten``) or whose weights depend on
arguments (``LayerNormalization``) are not.  Nothing is reported in a module
that calls ``tf.config.run_functions_eagerly``: the bodies then run eagerly,
where a variable per call is legal.  Nor for a function of the module whose every call, until
its name is bound again, is made under ``with assert_raises(ValueError):`` (``pytest.raises``,
``self.assertRaises``): a lesson showing the error (the TF guide's cells and their copies).
"""
import libcst as cst

from ..analysis.keras_models import keras_path
from ..analysis.names import COMPREHENSIONS
from ..analysis.syntax import bindings_in, code_children, leaf_name
from ..analysis.tf_api import RUN_FUNCTIONS_EAGERLY
from ..rule import ERROR, Rule

# Keras layers measured to create weights when first called (inside a tf.function: ValueError)
KERAS_LAYERS = {"layers." + n for n in ("Dense", "Conv1D", "Conv2D", "Embedding", "BatchNormalization",
                                               "LSTM", "GRU")}
_LAYER_LEAVES = {path.rpartition(".")[2] for path in KERAS_LAYERS}
BRANCHES = frozenset({cst.If, cst.IfExp, cst.Try, cst.TryStar, cst.For, cst.While, cst.BooleanOperation, cst.Match,
                      *COMPREHENSIONS})
FUNCTIONS = frozenset({cst.FunctionDef, cst.Lambda})
# context managers that expect the code they run to raise
RAISES = frozenset({"assert_raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "raises"})
MESSAGE = ("`{code}` creates a new variable on every trace of this tf.function: the first call raises "
           "`ValueError: tf.function only supports singleton tf.Variables created on the first call`; "
           "create it once (outside, in `__init__` / `build`, or behind `if self.v is None:`)")


class VariableCreatedInFunction(Rule):
    """`tf.Variable` (or a Keras layer with weights) created unconditionally in a `tf.function` body."""

    CODE = "TFE701"
    MESSAGE = "variable created on every call of a tf.function: the first call raises ValueError; create it once"
    SEVERITY = ERROR
    BAD = """
        @tf.function
        def step(x):
            v = tf.Variable(1.0)
            return v * x
    """
    GOOD = """
        v = tf.Variable(1.0)

        @tf.function
        def step(x):
            return v * x
    """

    def setup(self) -> None:
        self.exited = []  # per enclosing function: whether a return or raise came before
        self.layers = {}  # (id(function), name) -> the layer constructor bound once to it
        self.eager = []  # filled when the module calls tf.config.run_functions_eagerly

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.exited.append(False)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.exited.pop()

    def leave_Return(self, node: cst.Return) -> None:
        if self.exited:
            self.exited[-1] = True

    def leave_Raise(self, node: cst.Raise) -> None:
        if self.exited:
            self.exited[-1] = True

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        if name is not None and name.path in RUN_FUNCTIONS_EAGERLY:
            self.eager.append(True)
        # the cheap tests first: the walk up to the function is only for candidates
        if name is not None and name.path == "Variable":
            if self._unconditional_function() is not None:
                self._report(node, node.func)
        elif self._is_layer(node.func):  # Dense(3)(x)
            if self._unconditional_function() is not None:
                self._report(node, node.func.func)
        elif type(self.context.parent) is cst.Assign and self._is_layer(node):
            function = self._unconditional_function()
            targets = self.context.parent.targets
            if function is not None and len(targets) == 1 and type(targets[0].target) is cst.Name:
                target = targets[0].target
                bindings = self.context.bindings(target.value)
                if self.context.is_local(target.value) and bindings and len(bindings) == 1:
                    self.layers[(id(function), target.value)] = node
        elif type(node.func) is cst.Name and self.layers:
            function = self._unconditional_function()
            if function is not None and (id(function), node.func.value) in self.layers:
                self._report(node, self.layers[(id(function), node.func.value)].func)

    def _report(self, node: cst.Call, func: cst.BaseExpression) -> None:
        if self._expected_to_raise():
            return
        code = self.context.module.code_for_node(func) + "(...)"
        traced, eager = self.context.in_tf_function_thunk(node), self.eager
        self.report(node, MESSAGE.format(code=code), when=lambda: traced() and not eager)

    def _expected_to_raise(self) -> bool:
        """The function is defined at module level and, until the module binds its name again, only
        called under ``with assert_raises(ValueError):`` (``pytest.raises``, ``self.assertRaises``):
        a lesson showing the error."""
        body = self.context.module.body
        ancestors = self.context.ancestors
        function = ancestors[1] if len(ancestors) > 1 else None
        if type(function) is not cst.FunctionDef or function not in body:
            return False
        name, calls = function.name.value, 0
        for statement in body[body.index(function) + 1:]:
            if any(bound == name for bound, _ in bindings_in([statement])):
                break
            for expected in _uses(statement, name):
                if not expected:
                    return False
                calls += 1
        return calls > 0

    def _is_layer(self, expr: cst.BaseExpression) -> bool:
        func = expr.func if type(expr) is cst.Call else None
        if func is None or type(func) is cst.Attribute and func.attr.value not in _LAYER_LEAVES:
            return False  # a path ends with the attribute: most calls are ruled out without resolving
        return keras_path(self.context, func) in KERAS_LAYERS  # tf.keras, keras or tf_keras

    def _unconditional_function(self):
        """The innermost function when the node runs on every call of it (else None)."""
        ancestors = self.context.ancestors
        for depth in range(len(ancestors) - 2, -1, -1):
            node = ancestors[depth]
            kind = type(node)  # all concrete node classes: no isinstance needed
            if kind in FUNCTIONS:
                if kind is cst.FunctionDef and (not self.exited or self.exited[-1]):
                    return None
                return node
            if kind in BRANCHES or kind is cst.ClassDef:
                return None
            if kind is cst.With and not all(self._tf_scope(item.item) for item in node.items):
                return None
        return None

    def _tf_scope(self, expr: cst.BaseExpression) -> bool:
        """A TensorFlow context manager that lets the body run (``tf.name_scope``, ``tf.device``),
        not ``tf.init_scope()``."""
        name = self.context.tf_call(expr)
        return name is not None and name.leaf != "init_scope"


def _uses(statement: cst.CSTNode, name: str):
    """For each occurrence of ``name`` in ``statement``: whether it is called under a context manager
    that expects an error."""
    todo = [(statement, False)]
    while todo:
        node, expected = todo.pop()
        kind = type(node)
        if kind is cst.Name and node.value == name:
            yield False
            continue
        if kind is cst.Call and type(node.func) is cst.Name and node.func.value == name:
            yield expected
            todo.extend((arg, expected) for arg in node.args)
            continue
        if kind is cst.With and any(_raises(item.item) for item in node.items):
            expected = True
        todo.extend((child, expected) for child in code_children(node))


def _raises(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Call and leaf_name(expr.func) in RAISES
