"""`tf.squeeze` without an explicit axis.

Why: with no ``axis`` squeeze drops *every* dimension of size 1, and which
dimensions have size 1 depends on the data.  A batch of one example loses its
batch dimension; a model that works with batch 32 breaks (or silently
broadcasts) on the last, short batch or at inference with batch 1.

Fix safety: none offered; which dimension was meant cannot be known.

Known problems: calls through ``*args`` / ``**kwargs`` are not checked.
"""
import libcst as cst

from ..analysis.syntax import call_arg, has_star_args
from ..rule import WARNING, Rule

TARGETS = {"squeeze"}


class SqueezeWithoutAxis(Rule):
    """`tf.squeeze` without `axis` also drops a batch dimension of size 1."""

    CODE = "TFE103"
    MESSAGE = ("`squeeze` without `axis` removes every size-1 dimension, including a batch of one; "
               "pass the axis to remove (`axis=[...]`)")
    SEVERITY = WARNING
    BAD = """
        scores = tf.squeeze(logits)  # [batch, 1] -> [batch], but [1, 1] -> []
    """
    GOOD = """
        scores = tf.squeeze(logits, axis=-1)  # [batch, 1] -> [batch] for every batch size
    """

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        if name is None or name.path not in TARGETS or has_star_args(node):
            return
        if call_arg(node, 1, "axis") is None and call_arg(node, None, "squeeze_dims") is None:
            self.report(node)
