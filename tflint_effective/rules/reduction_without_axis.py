"""Reduction without an explicit axis.

Why: with no ``axis`` a reduction collapses every dimension.  Combined with
broadcasting this hides shape bugs: ``reduce_sum([[1], [2]] + [1, 2])`` is 12,
because the sum silently broadcasts to a 2x2 matrix first, when 6 was meant.
Naming the axis makes the intent checkable: a wrong shape then fails loudly or
gives a result of the wrong rank.  Say ``axis=None`` when reducing every
element is the intent.  Same number in every execution mode, so the severity
is the same everywhere.

Fix safety: none offered; the intended axis cannot be known from the code.

Known problems: calls that pass arguments through ``*args`` / ``**kwargs`` are
not checked; reductions reached through ``functools.partial`` or a wrapper of
your own are not seen.
"""
import libcst as cst

from ..rule import WARNING, Rule, call_arg, has_star_args

# Every spelling takes the axis as its second parameter.
REDUCTIONS = {
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
    "reduce_all", "reduce_logsumexp", "count_nonzero",
}
MATH_ONLY = {"reduce_std", "reduce_variance", "reduce_euclidean_norm"}
TARGETS = REDUCTIONS | {f"math.{name}" for name in REDUCTIONS | MATH_ONLY}
# TF1 spellings of the axis parameter (TFE102 asks to rename them).
OLD_AXIS_KEYWORDS = ("reduction_indices",)


class ReductionWithoutAxis(Rule):
    """Reduction without an explicit `axis` reduces every dimension."""

    CODE = "TFE101"
    MESSAGE = ("reduction without `axis` reduces all dimensions, hiding broadcasting mistakes; "
               "pass `axis=...` (or `axis=None` to reduce every element on purpose)")
    SEVERITY = WARNING
    BAD = """
        total = tf.reduce_sum(x + y)  # x: [2, 1], y: [2] -> broadcasts to [2, 2]
    """
    GOOD = """
        total = tf.reduce_sum(x + y, axis=0)  # a shape mistake now shows in the result's rank
    """

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        if name is None or name.path not in TARGETS or has_star_args(node):
            return
        if call_arg(node, 1, "axis") is None and not any(
                call_arg(node, None, keyword) for keyword in OLD_AXIS_KEYWORDS):
            self.report(node)
