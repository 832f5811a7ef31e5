"""Naive softmax: `exp(x) / reduce_sum(exp(x))`.

Why: ``exp`` overflows to inf for logits above about 88 in float32 (about 11 in
float16), and inf / inf is NaN: the naive softmax of ``[1000., 0.]`` is
``[nan, 0.]``, in values and in gradients, in eager mode, inside
``tf.function`` and in graph mode alike (measured on TF 2.21).
``tf.nn.softmax`` subtracts the largest logit first and is finite for any
input.  The forms recognised: ``/``, ``tf.divide`` and ``tf.truediv``, with
the ``exp`` written twice (same tensor, no side effects) or bound to a name
once (``e = tf.exp(x); e / tf.reduce_sum(e, axis=-1, keepdims=True)``).  The
shifted form ``exp(x - reduce_max(x))`` (or ``tf.subtract(x, m)``) is stable and not reported, also when
the maximum is wrapped (``stop_gradient``, ``where(is_finite(m), m, 0)``) or
bound to its name more than once; nor is an exponent that is never positive
by construction (``exp(-0.5 * (d / s) ** 2)``, a Gaussian kernel), nor logits written out
as numbers whose exponentials, all summed, stay below float16's largest value
(``tf.constant([[1., 0.5, -1.], [4., 2., 1.]])``, also through a name or a NumPy array: a
lesson's demo): they cannot overflow.

Fix safety: safe where provably equal, else no fix.  A sum over one literal
axis with ``keepdims=True`` becomes ``softmax(x, axis=that_axis)``, spelled from
the user's own alias of the module.  A sum over every element (no axis, or
``axis=None``) of a tensor of unknown rank becomes
``tflint_effective.runtime_checks.softmax(x, axis=None)`` and the import is
added, unless the name ``softmax`` already means something else in the file.
No fix without ``keepdims=True`` (the quotient broadcasts along another axis
unless the rank is 1), for several axes or an axis held in a variable, or when
no alias the code uses resolves to ``nn.softmax``.  Through a name, ``x`` is
evaluated again at the division, so the fix is offered only when ``x`` is free
of side effects and its names are bound once.

Known problems: the ``exp`` inline on one side and through a name on the other
is not matched, nor names assigned in another scope, or more than once where an
assignment may not run or runs in a loop (one assigned several times in code that runs in
order, ``x = x - tf.reduce_max(x)``, is followed to the assignment before the read).  A
never-positive exponent can still underflow: if every element is below about
-87 (float32) the sum is 0 and the quotient NaN; this is not reported.  A fix
through a name re-reads ``x`` at the division: a ``tf.Variable`` assigned in
between (``v.assign(...)``) would be read with its new value; this is not
detected.
"""
from typing import Optional

import libcst as cst

from ..analysis.cure_spelling import compat_of, importable, keyword, spell
from ..analysis.numeric_patterns import exp_cannot_overflow, is_max_shifted, is_non_positive, is_pure, may_move
from ..analysis.producers import Produced, operand, produced_by
from ..analysis.syntax import call_arg, has_star_args
from ..analysis.tf_api import DIVISIONS, EXP, REDUCE_SUM
from ..rule import ERROR, SAFE, Fix, Rule

CURE = ("nn.softmax", "math.softmax")
ANY_RANK_CURE = ("tflint_effective.runtime_checks", "softmax")


def _single_axis(value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The literal int of ``1``, ``-1``, ``[1]`` or ``(1,)``."""
    if isinstance(value, (cst.List, cst.Tuple)) and len(value.elements) == 1:
        value = value.elements[0].value
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        return value if isinstance(value.expression, cst.Integer) else None
    return value if isinstance(value, cst.Integer) else None


def _is_literal(value: Optional[cst.BaseExpression], word: str) -> bool:
    return isinstance(value, cst.Name) and value.value == word


class NaiveSoftmax(Rule):
    """Softmax written as `exp(x) / reduce_sum(exp(x))` overflows to NaN."""

    CODE = "TFE401"
    MESSAGE = ("naive softmax `exp(x) / reduce_sum(exp(x))` gives NaN for logits above ~88 "
               "(float32) or ~11 (float16); use `tf.nn.softmax(x, axis)`")
    SEVERITY = ERROR
    FIX_SAFETY = SAFE
    NEEDS = ("reduce_sum",)  # the denominator
    BAD = """
        e = tf.exp(logits)
        probabilities = e / tf.reduce_sum(e, axis=-1, keepdims=True)
    """
    GOOD = """
        probabilities = tf.nn.softmax(logits, axis=-1)
    """

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Divide):
            self._check(node, node.left, node.right)

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        if name is not None and name.path in DIVISIONS and not has_star_args(node):
            numerator, denominator = call_arg(node, 0, "x"), call_arg(node, 1, "y")
            if numerator is not None and denominator is not None:
                self._check(node, numerator.value, denominator.value)

    def _check(self, node, numerator, denominator) -> None:
        total = produced_by(self.context, denominator, REDUCE_SUM)
        summed = operand(total.call) if total is not None else None
        exp = self._same_exp(numerator, summed) if summed is not None else None
        x = operand(exp.call) if exp is not None else None
        if x is None or is_max_shifted(self.context, x) or is_non_positive(self.context, x) \
                or exp_cannot_overflow(self.context, x):
            return
        self.report(node, fix=self._fix(node, total, exp, x))

    def _same_exp(self, numerator, summed) -> Optional[Produced]:
        """The ``exp`` call when both sides are the same exponential."""
        if isinstance(numerator, cst.Name) and isinstance(summed, cst.Name):
            return produced_by(self.context, numerator, EXP) if numerator.value == summed.value else None
        top, bottom = (produced_by(self.context, side, EXP) for side in (numerator, summed))
        if top is None or bottom is None or top.named or bottom.named:
            return None
        x = operand(top.call)
        same = x is not None and operand(bottom.call) is not None and x.deep_equals(operand(bottom.call))
        return top if same and is_pure(self.context, x) else None

    def _fix(self, node, total: Produced, exp: Produced, x) -> Optional[Fix]:
        if not may_move(self.context, total.named or exp.named, x):
            return None
        axis = call_arg(total.call, 1, "axis") or call_arg(total.call, None, "reduction_indices")
        keepdims = call_arg(total.call, 2, "keepdims") or call_arg(total.call, None, "keep_dims")
        if axis is None or _is_literal(axis.value, "None"):
            if not importable(self.context, *ANY_RANK_CURE):
                return None
            call = cst.Call(cst.Name(ANY_RANK_CURE[1]), [cst.Arg(x), keyword("axis", cst.Name("None"))])
            return Fix(call, imports=(ANY_RANK_CURE,))
        single = _single_axis(axis.value)
        hints = (exp.call.func, total.call.func, getattr(node, "func", None))
        func = spell(self.context, compat_of(self.context, exp.call), CURE, [h for h in hints if h])
        if single is None or keepdims is None or not _is_literal(keepdims.value, "True") or func is None:
            return None
        return Fix(cst.Call(func, [cst.Arg(x), keyword("axis", single)]))
