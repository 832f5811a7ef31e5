"""Log of a sum of exponentials: `log(reduce_sum(exp(x), axis))`, also weighted: `log(reduce_sum(w * exp(x), axis))`.

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
fix is offered only when they are free of side effects and bound once; the op's ``name=``
stays with the sum, as for TFE402.  The
stable form ``log(reduce_sum(exp(x - reduce_max(x))))`` is not reported, nor is the shift
spelled ``tf.subtract(x, m)`` or scaled by a temperature (``exp((q - m) / tau)``).  Weighted sums and mixtures, ``log(reduce_sum(w * exp(x), axis))``
with ``w`` a mask, weights or ``softmax(l)``, are reported without a fix:
``reduce_logsumexp(log(w) + x, axis)`` has the same value but a NaN gradient
with respect to ``w`` where a weight is 0 (``1/w`` times 0, measured on TF
2.21), and mixture weights and masks are 0 in practice.  The message points at
``tflint_effective.runtime_checks.weighted_logsumexp(x, w, axis)``, exact with
finite gradients at zero weights, or ``tfp.math.reduce_weighted_logsumexp``,
with the user's axis.

Known problems: names assigned in another scope, or more than once where an
assignment may not run or runs in a loop, are not followed (one assigned several times in code
that runs in order is followed to the assignment before the read);
``log(reduce_mean(exp(x)))`` (log-sum-exp minus ``log(n)``) is not reported.  A fix
through a name re-reads ``x`` at the log: a ``tf.Variable`` assigned in between is not
detected.
"""
import libcst as cst

from ..analysis.cure_spelling import compat_of, spell
from ..analysis.numeric_patterns import cure_args, is_max_shifted, may_move
from ..analysis.producers import operand, produced_by, produced_chain, through_name
from ..analysis.syntax import call_arg
from ..analysis.tf_api import EXP, LOG, REDUCE_SUM
from ..rule import ERROR, SAFE, Rule

CURE = ("reduce_logsumexp", "math.reduce_logsumexp")
WEIGHTED = ("`log(reduce_sum(w * exp(x)))` overflows to inf (or -inf) for large |x|; use "
            "`tflint_effective.runtime_checks.weighted_logsumexp({call})` (or "
            "`tfp.math.reduce_weighted_logsumexp`); `reduce_logsumexp(log(w) + x)` has a NaN "
            "gradient where a weight is 0")


class LogOfSumExp(Rule):
    """Hand-written `log(reduce_sum(exp(x)))` overflows; `reduce_logsumexp` does not."""

    CODE = "TFE405"
    MESSAGE = ("`log(reduce_sum(exp(x)))` overflows to inf (or -inf) for large |x|; "
               "use `tf.reduce_logsumexp(x, axis)`")
    SEVERITY = ERROR
    FIX_SAFETY = SAFE
    NEEDS = ("reduce_sum",)
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
            self._check_weighted(node)
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
        args = cure_args(total, named)
        if func is None or args is None:
            return None
        args = [arg.with_changes(value=x) if arg.value is operand(total) else arg for arg in args]
        return total.with_changes(func=func, args=args, lpar=(), rpar=())

    def _check_weighted(self, log: cst.Call) -> None:
        """``log(reduce_sum(w * exp(x), axis))``: reported without a fix."""
        total = produced_by(self.context, operand(log), REDUCE_SUM) if operand(log) is not None else None
        product = through_name(self.context, operand(total.call))[0] if total and operand(total.call) else None
        if not (isinstance(product, cst.BinaryOperation) and isinstance(product.operator, cst.Multiply)):
            return
        for exp_factor, weights in ((product.right, product.left), (product.left, product.right)):
            exp = produced_by(self.context, exp_factor, EXP)
            x = operand(exp.call) if exp is not None else None
            if x is not None:
                if not is_max_shifted(self.context, x):
                    self.report(log, WEIGHTED.format(call=self._arguments(total.call, x, weights)))
                return

    def _arguments(self, total: cst.Call, x: cst.BaseExpression, weights: cst.BaseExpression) -> str:
        """``x, w, axis=..., keepdims=...`` with the user's reduction arguments."""
        code = self.context.module.code_for_node
        axis = call_arg(total, 1, "axis") or call_arg(total, None, "reduction_indices")
        keep = call_arg(total, 2, "keepdims") or call_arg(total, None, "keep_dims")
        parts = [_short(code(x), "x"), _short(code(weights), "w"), f"axis={code(axis.value) if axis else None}"]
        return ", ".join(parts + ([f"keepdims={code(keep.value)}"] if keep is not None else []))


def _short(code: str, placeholder: str) -> str:
    code = " ".join(code.split())
    return code if len(code) <= 40 else placeholder
