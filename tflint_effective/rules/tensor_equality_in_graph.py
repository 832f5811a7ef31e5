"""A tensor compared with `==` / `!=` against a Python value in TF1 graph code.

Why: in a TF1 graph ``Tensor.__eq__`` is Python's identity test: ``t == 0`` is
the Python bool ``False`` and ``t != 0`` is ``True`` whatever ``t`` holds (only
eager tensors and ``tf.function`` compare element-wise).  Nothing fails:
``tf.where(t == 0, a, b)`` selects on a constant ``False``, ``tf.cast(t != 0,
tf.float32)`` is the constant 1, ``if tf.rank(t) == 1:`` never branches
(measured on TF 2.21 in ``tf.Graph().as_default()``).  Use ``tf.equal`` /
``tf.not_equal``.

Severity: error in G; off in F, F0 and E (element-wise there).  Reported only
when the module builds a TF1 graph (a session, placeholder, collection,
``tf.Graph()``, a TF 1.x-only name) and shows no TF2 evidence: a ``compat.v1``
helper traced by a ``tf.function`` compares element-wise.

Fix safety: unsafe, offered only where a TensorFlow op takes the result as a
boolean tensor (``tf.where``, ``tf.cond``'s predicate, ``tf.boolean_mask``,
``tf.cast``, ``tf.logical_*``, ``tf.reduce_any|all``, also through ``&`` ``|``
``^`` ``~``): ``tf.equal(t, c)`` changes what the program computes, to what it
meant.  None in an ``if`` / ``while`` / ``assert`` / ``and`` / ``or`` / ``not``
(``if tf.equal(...)`` raises in graph mode: use ``tf.cond`` / ``tf.where``), nor
in arithmetic (``(t == 0) * x`` needs ``tf.cast(tf.equal(t, 0), dtype)``).

Known problems: only tensors the semantic model knows and constants it knows
(literals, NumPy scalars, names bound to numbers or literals) are seen; a
parameter with a default other than None may hold that default (``p='default'``)
and is not reported.
Tensor-to-tensor and variable comparisons are not reported: TF1 code compares
them by identity on purpose (``if v != exclude``).
"""
import libcst as cst

from ..analysis.context import NUMBER
from ..analysis.cure_spelling import spell
from ..analysis.syntax import call_arg, is_none, parameter
from ..analysis.tf_api import BOOLEAN_CONSUMERS, builds_graph
from ..rule import ERROR, UNSAFE, Fix, Rule, per_mode

LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
PYTHON_VALUES = {"numpy." + n for n in ("inf", "nan", "pi", "e", "float16", "float32", "float64", "int8",
                                          "int16", "int32", "int64", "uint8", "bool_", "str_")}
BUILTINS = ("int", "float", "bool", "str", "len")
BITWISE = (cst.BitAnd, cst.BitOr, cst.BitXor, cst.BitInvert)
TESTED = (cst.If, cst.While, cst.IfExp, cst.Assert, cst.CompIf)
MESSAGE = ("`{symbol}` on a tensor compares identities in TF1 graph mode: `{code}` is the Python bool {value}, "
           "not an element-wise comparison; {advice}")
ADVICE = {"op": "use `tf.{op}`", "test": "branch with `tf.cond` (or select per element with `tf.where`) "
          "on `tf.{op}(...)`", "arithmetic": "use `tf.cast(tf.{op}(...), dtype)`"}


class TensorEqualityInGraph(Rule):
    """`tensor == value` in TF1 graph code is an identity test: a constant Python bool."""

    CODE = "TFE302"
    MESSAGE = "`==` on a tensor compares identities in TF1 graph mode; use `tf.equal` / `tf.not_equal`"
    SEVERITY = per_mode(None, G=ERROR)
    FIX_SAFETY = UNSAFE
    EXAMPLE_HEADER = "import tensorflow.compat.v1 as tf\n"
    BAD = """
        labels = tf.placeholder(tf.int32, [None])
        weights = tf.cast(labels != 0, tf.float32)
    """
    GOOD = """
        labels = tf.placeholder(tf.int32, [None])
        weights = tf.cast(tf.not_equal(labels, 0), tf.float32)
    """

    def setup(self) -> None:
        self.graph_evidence = []  # filled when the module shows it builds a TF1 graph

    def visit_Call(self, node: cst.Call) -> None:
        if not self.graph_evidence:
            name = self.context.tf_call(node)
            if name is not None and builds_graph(name):
                self.graph_evidence.append(True)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, (cst.Equal, cst.NotEqual)):
            return
        left, right = node.left, node.comparisons[0].comparator
        tensor = self._is_tensor
        if not (tensor(left) and self._python_value(right) or tensor(right) and self._python_value(left)):
            return
        equal = isinstance(node.comparisons[0].operator, cst.Equal)
        op = "equal" if equal else "not_equal"
        consumer, use = self._use()
        message = MESSAGE.format(code=_short(self.context.module.code_for_node(node)), symbol="=!"[not equal] + "=",
                                 value=not equal, advice=ADVICE[use].format(op=op))
        fix = None
        if consumer is not None:
            func = spell(self.context, self.context.tf_call(consumer).compat, (op, "math." + op), (consumer.func,))
            if func is not None:
                args = [cst.Arg(_bare(left)), cst.Arg(_bare(right))]
                fix = Fix(cst.Call(func, args), safety=UNSAFE)
        tf2, evidence = self.context.tf2_thunk(node), self.graph_evidence
        self.report(node, message, fix=fix, when=lambda: bool(evidence) and not tf2())

    def _is_tensor(self, expr: cst.BaseExpression) -> bool:
        """A tensor, and not a parameter with a default other than None: ``placeholder='default'``
        documented as a ``Tensor`` is also a string, and ``== 'default'`` tests for it."""
        if not self.context.is_tensor(expr):
            return False
        owner = self.context.owner(expr.value) if isinstance(expr, cst.Name) else None
        function = owner.node if owner is not None else None
        param = parameter(function, expr.value) if isinstance(function, (cst.FunctionDef, cst.Lambda)) else None
        return param is None or param.default is None or is_none(param.default)

    def _python_value(self, expr: cst.BaseExpression) -> bool:
        """A number, string or bool that is certainly not a tensor."""
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            expr = expr.expression
        if isinstance(expr, cst.Name):
            if expr.value in ("True", "False"):
                return True
            if isinstance(self.context.assigned_value(expr), LITERALS):  # PAD = "<pad>"
                return True
        if isinstance(expr, LITERALS) or self.context.kind(expr) == NUMBER:
            return True
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Name) and func.value in BUILTINS and self.context.owner(func.value) is None:
                return True
            expr = func
        return self.context.qualname(expr) in PYTHON_VALUES

    def _use(self):
        """The TensorFlow call that takes the comparison as a boolean tensor (or None), and how it is used."""
        ancestors = self.context.ancestors
        index = len(ancestors) - 1
        while index > 1 and isinstance(getattr(ancestors[index - 1], "operator", None), BITWISE):
            index -= 1
        parent = ancestors[index - 1]
        if isinstance(parent, cst.Arg) and index > 1 and isinstance(ancestors[index - 2], cst.Call):
            call = ancestors[index - 2]
            name = self.context.tf_call(call)
            slots = BOOLEAN_CONSUMERS.get(name.path, ()) if name is not None else ()
            if any(call_arg(call, position, keyword) is parent for position, keyword in slots):
                return call, "op"
        if (isinstance(parent, TESTED) and parent.test is ancestors[index] or isinstance(parent, cst.BooleanOperation)
                or isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not)):
            return None, "test"
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.AugAssign)):
            return None, "arithmetic"
        return None, "op"


def _bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` without the parentheses an argument does not need."""
    if getattr(expr, "lpar", None) and not isinstance(expr, (cst.Tuple, cst.GeneratorExp, cst.Yield)):
        return expr.with_changes(lpar=(), rpar=())
    return expr


def _short(code: str, limit: int = 60) -> str:
    code = " ".join(code.split())
    return code if len(code) <= limit else code[:limit - 3] + "..."
