"""Hand-written cross-entropy: `-reduce_sum(labels * log(softmax(logits)))`.

Why: the textbook formula ``-sum(p_i log q_i)`` on softmax probabilities breaks
as soon as one probability underflows to zero (a logit about 88 below the
largest in float32, about 17 in float16): its log is -inf, the loss is inf, or
NaN where the label is zero (``0 * -inf``), and every gradient is NaN.  This
is the same in eager mode, ``tf.function`` and graph mode (measured on TF
2.21: labels ``[0.5, 0.5]``, logits ``[1000., 0.]`` give inf).  Working from
the logits with ``log_softmax`` keeps loss and gradients finite; for labels
that sum to one ``tf.nn.softmax_cross_entropy_with_logits`` does it in one op,
and ``tflint_effective.runtime_checks.softmax_cross_entropy`` takes an explicit
axis and any label weights.  The same holds for ``reduce_mean`` and for the
probabilities bound to a name first (``p = softmax(logits)``).

Fix safety: safe.  Only the log factor is rewritten, ``log(softmax(args))`` ->
``log_softmax(args)`` as for TFE402 (same arguments, the user's own module
alias, the softmax arguments evaluated again only when they are free of side
effects and bound once, and ``name=`` kept out); the reduction, its axis and keepdims, the labels and
the sign stay as written.  A guarded log (``log(p + eps)``,
``log(clip_by_value(p, eps, 1))``) is reported without a fix, since the cure
changes its values.

Severity: error; info for a guarded log (``labels * log(p + eps)``, an entropy
``p * log(p + eps)``), as for TFE402 and TFE404: loss and gradients stay finite; info too for one
only evaluated, never run or fed only toy data, as for TFE402.  The
floor zeroes the gradient of a class whose probability falls below ``eps``, but
independent reviewers judged none of the eight guarded cross-entropies they met on real
code a clear defect (seven debatable, one false).

As for TFE402, a softmax of logits written out as numbers at most 15 apart, or bounded by
construction within 7.5 of zero (tanh or softmax outputs), is not reported; nor is a formula
beside ``softmax_cross_entropy_with_logits`` (or ``losses.softmax_cross_entropy``, the sparse
forms) on the same logits in the same block, also inside its ``with`` statements: a demo
comparing the two, whose author already wrote the cure.

The product may carry more factors, such as class weights (``labels * log(p) * w``,
``tf.multiply(labels * log(p), w)``): only the log factor changes.

Known problems: the product must be the reduction's direct argument; a product
bound to a name first (``ce = labels * log(p)``) is reported by TFE402 on the
log instead, and ``p`` must be a softmax: computed by TensorFlow, the output of a layer with a
softmax activation, an attribute holding one, a function of the module returning
one, or a parameter to which every call in the module passes one (TFE402's cases; those are
reported without a fix); probabilities returned by a model are not followed.
"""
import libcst as cst

from ..analysis.formula_comparisons import SOFTMAX_CROSS_ENTROPY, beside_stable_op
from ..analysis.numeric_patterns import cross_entropy_log, log_of_softmax, log_softmax_fix
from ..analysis.training import evaluated
from ..rule import ERROR, INFO, SAFE, Fix, Rule


class HandwrittenCrossEntropy(Rule):
    """Cross-entropy written as `-reduce_sum(labels * log(softmax(logits)))` gives inf and NaN."""

    CODE = "TFE403"
    MESSAGE = ("hand-written cross-entropy `-reduce_sum(labels * log(softmax(logits)))` is inf/NaN "
               "for extreme logits; use `labels * tf.nn.log_softmax(logits)` or "
               "`tf.nn.softmax_cross_entropy_with_logits(labels, logits)`")
    GUARDED = ("hand-written cross-entropy with a guarded `log(p + eps)` is biased and has zero "
               "gradients where p underflows; compute it from the logits with `tf.nn.log_softmax` or "
               "`tf.nn.softmax_cross_entropy_with_logits(labels, logits)`")
    SEVERITY = ERROR
    FIX_SAFETY = SAFE
    NEEDS = ("softmax", "Softmax")  # what TFE402 needs: the log is of a softmax
    BAD = """
        probabilities = tf.nn.softmax(logits)
        loss = -tf.reduce_sum(labels * tf.math.log(probabilities), axis=-1)
    """
    GOOD = """
        loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    """

    def visit_Call(self, node: cst.Call) -> None:
        log = cross_entropy_log(self.context, node)
        if log is None:
            return
        softmax, guarded = log_of_softmax(self.context, log)
        if beside_stable_op(self.context, softmax, SOFTMAX_CROSS_ENTROPY):
            return
        replacement = None if guarded else log_softmax_fix(self.context, log)
        fix = Fix(replacement, target=log) if replacement is not None else None
        message, severity = (self.GUARDED, INFO) if guarded else evaluated(self.context, self.MESSAGE)
        self.report(node, message, fix=fix, severity=severity)
