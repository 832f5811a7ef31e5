"""`.numpy()` or NumPy on a tensor computed inside a `tf.function`.

Why: while ``tf.function`` traces, the tensors its body computes are
symbolic: they hold no value yet.  ``t.numpy()`` raises ``AttributeError:
'SymbolicTensor' object has no attribute 'numpy'``, and ``np.array(t)`` /
``np.asarray(t)`` (or ``np.sum``, ``np.mean``, ``np.square``... of it) raise
``NotImplementedError: Cannot convert a symbolic tf.Tensor ... to a numpy
array`` (measured on TF 2.21, with autograph on or off, on the first call).
Keep the computation in TensorFlow ops (``tf.reduce_sum``, ``tf.math.*``),
return the tensor and call ``.numpy()`` outside the function, or wrap code
that really needs NumPy in ``tf.numpy_function`` / ``tf.py_function``.

Fix safety: none offered; the NumPy code has to be rewritten with
TensorFlow ops, or moved out of the function.

Known problems: reported only in the body of the function ``tf.function``
itself wraps (not the functions given to ``tf.py_function`` or
``tf.numpy_function``, which run eagerly, nor Keras ``call`` /
``train_step``, which ``run_eagerly=True`` makes eager), and only on a
tensor the function certainly computes: an op's result (``(x * 2).numpy()``),
or a local name every assignment of which is such a result, or a parameter
the analysis knows to be a tensor.  Closed-over eager tensors (trace-time
constants: legal), attributes (``self.w.numpy()``: legal on an eager
constant), names aliasing another name, names of a function with a ``with
tf.init_scope():`` block (it may bind them to eager tensors), code under it
or ``if tf.executing_eagerly():`` (eager there) are not reported, nor is
anything in a module that calls ``tf.config.run_functions_eagerly`` (the
bodies then run eagerly: ``.numpy()`` works).
"""
import libcst as cst

from ..analysis.names import Assigned
from ..analysis.syntax import parameter
from ..analysis.tf_api import RUN_FUNCTIONS_EAGERLY
from ..rule import ERROR, Rule

# NumPy functions measured to raise on a symbolic tensor (np.shape does not: it returns a tensor)
NUMPY = {"numpy." + n for n in ("array", "asarray", "asanyarray", "float32", "sum", "mean", "max", "argmax",
                                 "square", "isnan")}
_NUMPY_LEAVES = {name.rpartition(".")[2] for name in NUMPY}
COMPUTED = (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Subscript)
FUNCTIONS = (cst.FunctionDef, cst.Lambda)
MESSAGE = ("`{code}` on a tensor computed inside a tf.function: tracing raises {error} (the tensor is symbolic, "
           "it has no value yet); keep the computation in TensorFlow ops, or call `.numpy()` outside the function")


class NumpyInFunction(Rule):
    """`.numpy()` or `np.array(...)` of a tensor computed inside a `tf.function`: raises when traced."""

    CODE = "TFE704"
    MESSAGE = "`.numpy()` / NumPy on a symbolic tensor inside a tf.function raises when traced"
    SEVERITY = ERROR
    EXAMPLE_HEADER = "import numpy as np\nimport tensorflow as tf\n"
    BAD = """
        @tf.function
        def norm(x):
            total = tf.reduce_sum(x * x, axis=0)
            return np.sqrt(total.numpy())
    """
    GOOD = """
        @tf.function
        def norm(x):
            total = tf.reduce_sum(x * x, axis=0)
            return tf.sqrt(total)
    """

    def setup(self) -> None:
        self.eager = []  # filled when the module calls tf.config.run_functions_eagerly
        self.init_scoped = set()  # functions with a ``with tf.init_scope():`` (their names may hold eager tensors)

    def visit_With(self, node: cst.With) -> None:
        if any(_leaf(self.context.tf_call(item.item)) == "init_scope" for item in node.items):
            self.init_scoped.add(self.context.scope.node)

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        if name is not None and name.path in RUN_FUNCTIONS_EAGERLY:
            self.eager.append(True)
        func = node.func
        if (type(func) is cst.Attribute and func.attr.value == "numpy" and not node.args
                and self._computed_here(func.value)):
            code, error = ".numpy()", "`AttributeError`"
        elif node.args and not node.args[0].keyword and not node.args[0].star and self._numpy_call(func) \
                and self._computed_here(node.args[0].value):
            code, error = self.context.module.code_for_node(func) + "(...)", "`NotImplementedError`"
        else:
            return
        traced, eager = self.context.in_tf_function_thunk(node), self.eager
        self.report(node, MESSAGE.format(code=code, error=error), when=lambda: traced() and not eager)

    def _numpy_call(self, func: cst.BaseExpression) -> bool:
        # an attribute's qualified name ends with it: most calls are ruled out without resolving
        if type(func) is cst.Attribute and func.attr.value not in _NUMPY_LEAVES:
            return False
        return self.context.qualname(func) in NUMPY

    def _computed_here(self, expr: cst.BaseExpression) -> bool:
        """Certainly a tensor, and one the innermost function computes (an op's result, a local
        name only ever bound to one, a parameter), in code that is not made eager."""
        context = self.context
        if not context.is_tensor(expr) or context.eager_guarded() or self._under_init_scope():
            return False
        if type(expr) is cst.Subscript:
            return context.is_tensor(expr.value) and self._computed_here(expr.value)
        if isinstance(expr, COMPUTED):
            return type(expr) is not cst.Call or context.tf_call(expr) is not None
        if type(expr) is not cst.Name or not context.is_local(expr.value):
            return False
        function = context.scope.node
        if not isinstance(function, FUNCTIONS) or function in self.init_scoped:
            return False
        bindings = context.bindings(expr.value) or []
        others = [b for b in bindings if not isinstance(b, Assigned)]
        if others and not (len(others) == 1 and parameter(function, expr.value) is not None):
            return False
        return all(isinstance(b.value, COMPUTED) and not isinstance(b.value, cst.Subscript)
                   and (type(b.value) is not cst.Call or context.tf_call(b.value) is not None)
                   for b in bindings if isinstance(b, Assigned))

    def _under_init_scope(self) -> bool:
        for node in reversed(self.context.ancestors):
            if isinstance(node, FUNCTIONS):
                return False
            if isinstance(node, cst.With) and any(_leaf(self.context.tf_call(item.item)) == "init_scope"
                                                  for item in node.items):
                return True
        return False


def _leaf(name):
    return name.leaf if name is not None else None
