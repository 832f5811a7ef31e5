"""Log of a sum of exponentials: `log(reduce_sum(exp(x), axis))`.

Why: ``exp`` overflows to inf above about 88 in float32 (about 11 in float16)
and underflows to zero below about -88 (-17), so the hand-written log-sum-exp
is inf when any element is large and -inf when all are very negative, with NaN
gradients, in eager mode, ``tf.function`` and graph mode alike (measured on TF
2.21: ``log(reduce_sum(exp([200., 0.])))`` is inf).  ``reduce_logsumexp``
subtracts the maximum first and is finite for any input.

Fix safety: safe.  ``log(reduce_sum(exp(x), <args>))`` becomes
``reduce_logsumexp(x, <args>)``: the same reduction arguments (axis, keepdims,
or none: every element), which ``reduce_logsumexp`` accepts in both APIs,
spelled from the user's own alias of the module; when no alias the code uses
resolves to it, no fix is offered.  Through a name (``e = exp(x)`` then
``log(reduce_sum(e, 1))``) the arguments are evaluated again at the log, so the
fix is offered only when they are free of side effects and bound once.  The
stable form ``log(reduce_sum(exp(x - reduce_max(x))))`` is not reported.

Known problems: names assigned in another scope, or more than once, are not
followed; ``log(reduce_mean(exp(x)))`` (log-sum-exp minus ``log(n)``) is not
reported.  A fix through a name re-reads ``x`` at the log: a ``tf.Variable``
assigned in between is not detected.
"""
import libcst as cst

from ..analysis.numeric_patterns import compat_of, is_max_shifted, may_move, operand, produced_chain, spell
from ..analysis.tf_api import EXP, LOG, REDUCE_SUM
from ..rule import ERROR, SAFE, Rule

CURE = ("reduce_logsumexp", "math.reduce_logsumexp")


class LogOfSumExp(Rule):
    """Hand-written `log(reduce_sum(exp(x)))` overflows; `reduce_logsumexp` does not."""

    CODE = "TFE405"
    MESSAGE = ("`log(reduce_sum(exp(x)))` overflows to inf (or -inf) for large |x|; "
               "use `tf.reduce_logsumexp(x, axis)`")
    SEVERITY = ERROR
    FIX_SAFETY = SAFE
    BAD = """
        norm = tf.math.log(tf.reduce_sum(tf.exp(scores), axis=-1))
    """
    GOOD = """
        norm = tf.reduce_logsumexp(scores, axis=-1)
    """

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        if name is None or name.path not in LOG:
            return
        chain = produced_chain(self.context, operand(node), REDUCE_SUM, EXP)
        if chain is None:
            return
        total, exp = chain
        x = operand(exp.call)
        if x is None or is_max_shifted(self.context, x):
            return
        self.report(node, fix=self._fix(node, total.call, x, total.named or exp.named))

    def _fix(self, log: cst.Call, total: cst.Call, x: cst.BaseExpression, named: bool):
        rest = [arg for arg in total.args if arg.value is not operand(total)]
        if not may_move(self.context, named, x, *(arg.value for arg in rest)):
            return None
        func = spell(self.context, compat_of(self.context, total), CURE, (total.func, log.func))
        if func is None:
            return None
        args = [arg.with_changes(value=x) if arg.value is operand(total) else arg for arg in total.args]
        return total.with_changes(func=func, args=args, lpar=(), rpar=())
