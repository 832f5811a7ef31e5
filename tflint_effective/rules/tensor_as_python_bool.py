"""A tensor used as a Python bool: `if t:`, `while t:`, `t and u`, `not t`, `assert t`, `bool(t)`.

Why: Python asks the tensor for ``bool(t)``.  A symbolic tensor has no value
yet, so in TF1 graph mode and in ``tf.function(autograph=False)`` this raises
``OperatorNotAllowedInGraphError`` (a ``TypeError``).  In eager mode it works
for scalars only (a vector raises ``ValueError``) and breaks as soon as the code
moves into a graph.  Inside ``tf.function`` autograph rewrites ``if``,
``while``, ``x if t else y``, ``and``, ``or`` and ``not`` into ``tf.cond`` /
``tf.while_loop`` / ``tf.math.logical_*``, which needs a scalar boolean; it
does not rewrite ``assert``, ``bool()`` or the ``if`` of a comprehension,
which raise there too (measured on TF 2.21).  Use ``tf.cond`` / ``tf.where``
/ ``tf.math.logical_and|or|not`` / ``tf.debugging.assert_*``, or ``x is None``
when a None check was meant.

Severity: error in G and F0.  In F, error for the forms autograph leaves alone
(``assert``, ``bool()``, the ``if`` of a comprehension, ``any()`` / ``all()``
over a tensor), info for the forms it converts (legal code, as long as the
test is a scalar boolean).  In E a tensor's truth value works unless it has
more than one element: reported (error) only when the static shape shows more
than one; ``any(t)`` / ``all(t)`` ask each row of ``t`` (measured on TF 2.21:
``all(tf.constant([False, True]))`` works, ``all(tf.constant([[1, 2]]))`` raises),
so there only rows of more than one element, or a scalar, are reported.
``t == u`` is a tensor in E, F and F0 only (in TF1 graph mode it compares
identities, TFE302): such tests, also of a name bound to one
(``is_1d = tf.rank(x) == 1``), are not reported in G.

Fix safety: none offered; the replacement depends on what the test meant.

Known problems: only values the semantic model knows to be tensors are seen:
results of TensorFlow calls, names bound to them, module helpers returning them,
``self`` attributes assigned them, and parameters that every call in the module
passes a tensor (private and nested functions) or that are annotated or
documented as tensors.  Values from other modules and attributes of other
objects (``model.total``) are not.
"""
import math
from typing import Iterator, Tuple

import libcst as cst

from ..analysis.tf_api import with_math
from ..analysis.static_shapes import static_shape, static_size
from ..rule import ERROR, INFO, Rule, per_mode

AUTOGRAPH_CONVERTS = per_mode(ERROR, F=INFO, E=None)
AUTOGRAPH_LEAVES = per_mode(ERROR, E=None)
EQUALITY = (cst.Equal, cst.NotEqual)
ORDERING = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
BOOLEAN_REDUCTIONS = with_math("reduce_any", "reduce_all")
ALTERNATIVE = {
    cst.If: "`tf.cond` (or `tf.where` element-wise)", cst.IfExp: "`tf.cond` / `tf.where`",
    cst.While: "`tf.while_loop`", cst.Assert: "`tf.debugging.assert_*`",
    cst.CompIf: "`tf.boolean_mask`", cst.BooleanOperation: "`tf.math.logical_and` / `logical_or`",
    cst.UnaryOperation: "`tf.math.logical_not`", cst.Call: "`tf.cond`",
    cst.Name: "`tf.reduce_any` / `tf.reduce_all`",
}
TESTED = (cst.If, cst.While, cst.IfExp, cst.Assert, cst.CompIf)


class TensorAsPythonBool(Rule):
    """A tensor's truth value is asked for, which fails in graph mode."""

    CODE = "TFE301"
    MESSAGE = ("tensor used as a Python bool: raises in graph mode, works only for scalars in eager; "
               "use {alternative}{none_check}")
    SEVERITY = AUTOGRAPH_CONVERTS
    EXAMPLE_HEADER = "import tensorflow.compat.v1 as tf\n"
    BAD = """
        if tf.reduce_sum(x, axis=None) > 0:
            y = x
        else:
            y = -x
    """
    GOOD = """
        y = tf.cond(tf.reduce_sum(x, axis=None) > 0, lambda: x, lambda: -x)
    """

    def visit_If(self, node: cst.If) -> None:
        self._check(node, node.test)

    visit_While = visit_IfExp = visit_Assert = visit_CompIf = visit_If

    def visit_Call(self, node: cst.Call) -> None:
        if self._is_builtin_bool(node):
            self._check(node, node.args[0].value)
        elif (type(node.func) is cst.Name and node.func.value in ("any", "all") and len(node.args) == 1
              and not node.args[0].star and self.context.owner(node.func.value) is None
              and self.context.is_tensor(node.args[0].value)):  # iterates a tensor's truth values
            self.report(node.args[0].value, self.MESSAGE.format(alternative=ALTERNATIVE[cst.Name], none_check=""),
                        severity=self._iterated_in_eager(node.args[0].value))

    def _is_builtin_bool(self, node: cst.CSTNode) -> bool:
        return (type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "bool"
                and len(node.args) == 1 and self.context.owner("bool") is None)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if not self._inside_truth_test(node):
            self._check(node, node, whole_tested=False)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not) and not self._inside_truth_test(node):
            self._check(node, node, whole_tested=False)

    def _inside_truth_test(self, node: cst.BaseExpression) -> bool:
        """Part of a larger truth test, which reports it."""
        parent = self.context.parent
        if isinstance(parent, cst.BooleanOperation) or (
                isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not)):
            return True
        if isinstance(parent, TESTED) and parent.test is node:
            return True
        return isinstance(parent, cst.Arg) and self._is_builtin_bool(self.context.ancestors[-3])

    def _check(self, context: cst.CSTNode, test: cst.BaseExpression, whole_tested=True) -> None:
        for operand, converted_by in _truth_tested(test, whole_tested, context):
            if self.context.is_tensor(operand):
                severity = self._in_eager(operand, self._severity(converted_by))
            elif self._is_tensor_equality(operand):
                severity = per_mode(self._severity(converted_by), G=None)
            else:
                continue
            none_check = " (or `is None` if a None check was meant)" if isinstance(operand, cst.Name) else ""
            alternative = ALTERNATIVE[type(converted_by)]
            self.report(operand, self.MESSAGE.format(alternative=alternative, none_check=none_check),
                        severity=severity)

    @staticmethod
    def _severity(converted_by: cst.CSTNode):
        if isinstance(converted_by, (cst.Assert, cst.CompIf, cst.Call)):
            return AUTOGRAPH_LEAVES
        return AUTOGRAPH_CONVERTS

    def _in_eager(self, operand: cst.BaseExpression, severity):
        """Eager Python asks a tensor for its truth value: that fails for more than one element."""
        size = static_size(self.context, operand)
        return per_mode(severity, E=ERROR) if size is not None and size > 1 else severity

    def _iterated_in_eager(self, operand: cst.BaseExpression):
        """``any(t)`` iterates ``t`` along its first axis: eager Python asks each row for its truth value,
        which fails for rows of more than one element (and a scalar cannot be iterated)."""
        shape = static_shape(self.context, operand)
        rows_fail = shape is not None and (not shape or math.prod(shape[1:]) > 1)
        return per_mode(AUTOGRAPH_LEAVES, E=ERROR) if rows_fail else AUTOGRAPH_LEAVES

    def _is_tensor_equality(self, expr: cst.BaseExpression) -> bool:
        """``t == u`` with a tensor, or a name bound to one (``is_1d = tf.rank(x) == 1``)."""
        if type(expr) is cst.Name:
            expr = self.context.assigned_value(expr)
        return (isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1
                and isinstance(expr.comparisons[0].operator, EQUALITY)
                and (self.context.is_tensor(expr.left) or self.context.is_tensor(expr.comparisons[0].comparator)))


def _truth_tested(expr: cst.BaseExpression, whole_tested: bool,
                  context: cst.CSTNode) -> Iterator[Tuple[cst.BaseExpression, cst.CSTNode]]:
    """The operands whose truth value Python asks for, with the construct that asks.

    ``a and b``: ``a`` always, ``b`` only when the whole is tested; ``not a``: ``a``.
    """
    if isinstance(expr, cst.BooleanOperation):
        yield from _truth_tested(expr.left, True, expr if not whole_tested else context)
        yield from _truth_tested(expr.right, whole_tested, expr if not whole_tested else context)
    elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        yield from _truth_tested(expr.expression, True, expr if not whole_tested else context)
    elif whole_tested:
        yield expr, context
