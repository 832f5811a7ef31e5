"""Logarithm of a softmax: `log(softmax(x))`.

Why: a softmax probability underflows to exactly zero once its logit is about
88 below the largest one in float32 (about 17 in float16), and its log is
then -inf; the gradient through ``log`` is ``1 / 0`` times zero, NaN.  This
happens in eager mode, inside ``tf.function`` and in graph mode alike (measured
on TF 2.21: ``log(softmax([200., 0.]))`` is ``[0, -inf]`` with NaN gradients).
``tf.nn.log_softmax`` computes ``x - logsumexp(x)`` instead and stays finite.
Guarding the log (``log(p + eps)``, ``log(clip_by_value(p, eps, 1))``) keeps
values finite but floors them at ``log(eps)`` and zeroes the gradient there.

Fix safety: safe.  ``log(softmax(args))`` becomes ``log_softmax(args)`` with the
softmax's arguments (axis included) unchanged, spelled from the user's own
alias of the module (``tf1.nn.softmax`` -> ``tf1.nn.log_softmax``); when no
alias the code already uses resolves to it, no fix is offered.  Through a name
(``p = softmax(x)`` then ``log(p)``) the softmax arguments are evaluated again
at the log, so the fix is offered only when they are free of side effects and
their names are bound once.  Guarded forms are reported without a fix: the
cure changes their (wrong) values.

A softmax is also seen as the output of a layer with a softmax activation
(``Dense(10, activation="softmax")(x)``, a layer object bound once, ``self.out(x)``,
``tf.keras.layers.Softmax()``, ``tf.compat.v1.layers.dense(x, n, activation=tf.nn.softmax)``)
and in an attribute the class assigns once (``self.p``, or ``model.p`` for
``model = Model(...)`` of a class of the module); these are reported without a
fix: the cure is to drop the activation and apply ``log_softmax`` to the logits.

Severity: error; info for a guarded log, whose values stay finite.  Where the
probabilities also weight the log (an entropy ``p * log(p + eps)``) the floor
costs nothing, since those terms are near zero anyway: independent reviewers
judged guarded forms on real code harmless.  Logits written out as numbers at
most 15 apart (``softmax(tf.constant([1., 2., 3.]))``, a demo comparing formulas)
are not reported: no probability can underflow.

Known problems: a softmax reached through a name assigned in another scope, or
more than once, is not seen, nor one returned by a helper of your own, nor the
last layer of a ``Sequential`` model.  The
log factor of a hand-written cross-entropy is reported by TFE403 instead.  A fix
through a name re-reads the softmax arguments at the log: a ``tf.Variable``
assigned in between (``v.assign(...)``) is not detected.
"""
import libcst as cst

from ..analysis.numeric_patterns import in_cross_entropy, log_of_softmax, log_softmax_fix
from ..rule import ERROR, INFO, SAFE, Rule


class LogOfSoftmax(Rule):
    """`log(softmax(x))` is -inf with NaN gradients once a probability underflows."""

    CODE = "TFE402"
    MESSAGE = "`log(softmax(x))` gives -inf and NaN gradients for extreme logits; use `tf.nn.log_softmax(x)`"
    GUARDED = ("`log(softmax(x) + eps)` floors log-probabilities at log(eps) and zeroes their "
               "gradient; use `tf.nn.log_softmax(x)`")
    SEVERITY = ERROR
    FIX_SAFETY = SAFE
    BAD = """
        log_p = tf.math.log(tf.nn.softmax(logits, axis=-1))
    """
    GOOD = """
        log_p = tf.nn.log_softmax(logits, axis=-1)
    """

    def visit_Call(self, node: cst.Call) -> None:
        found = log_of_softmax(self.context, node)
        if found is None or in_cross_entropy(self.context, node):
            return
        guarded = found[1]
        self.report(node, self.GUARDED if guarded else None, fix=log_softmax_fix(self.context, node),
                    severity=INFO if guarded else None)
