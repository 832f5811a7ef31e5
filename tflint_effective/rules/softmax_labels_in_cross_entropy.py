"""A TF1 softmax cross-entropy given `labels=softmax(x)` of its own logits `x`, as an entropy.

Why: the TF1 ops ``tf.compat.v1.nn.softmax_cross_entropy_with_logits`` and
``tf.compat.v1.losses.softmax_cross_entropy`` (and ``tf.nn.`` /
``tf.losses.`` of the same names in TensorFlow 1.x) stop the gradient at their
labels.  With ``labels=softmax(x), logits=x`` the value is the entropy of
``softmax(x)``, but its gradient is only the logits' share, ``softmax(x) -
labels``, which is zero: maximising or regularising that entropy does nothing
(measured on TF 2.21, in graph and eager mode: the gradient is 0 where
``-reduce_sum(p * log_softmax(x))`` gives the true one).  Use
``tflint_effective.runtime_checks.softmax_entropy(x, axis)``; in TF2,
``tf.nn.softmax_cross_entropy_with_logits`` and the Keras losses back-propagate
into the labels and are not reported.

Severity: error in every mode (the TF1 ops stop the gradient in eager mode
and ``tf.function`` too).  ``tf.nn.softmax_cross_entropy_with_logits`` under
plain ``tensorflow`` is the TF2 op in TensorFlow 2, so it is reported only
when the module uses TensorFlow 1.x-only names (``tf.Session``,
``tf.placeholder``...) and shows no TF2 evidence.

Fix safety: none offered; the entropy changes the gradient (the point), and
``losses.softmax_cross_entropy`` also weights, reduces and collects the loss.

Known problems: the labels must be computed from the very logits expression
(the same code, free of side effects, or a name bound once); an entropy over
``softmax(x / t)`` with ``logits=x`` is not recognised.  Distillation
(``labels=softmax(teacher)``) and ``labels=tf.stop_gradient(...)`` are not
reported on purpose, nor is an entropy passed straight to ``tf.stop_gradient``
(ENAS's controller adds it to a reward): it wants no gradient at all.
"""
import libcst as cst

from ..analysis.numeric_patterns import is_pure, movable
from ..analysis.producers import operand, produced_by
from ..analysis.syntax import call_arg, has_star_args
from ..analysis.tf_api import SOFTMAX, TF1_LABELS_STOPPED, tf1_only
from ..rule import ERROR, Rule

CURE = "tflint_effective.runtime_checks.softmax_entropy"


class SoftmaxLabelsInCrossEntropy(Rule):
    """TF1 cross-entropy of softmax(x) with logits x: its gradient is zero."""

    CODE = "TFE406"
    MESSAGE = ("the TF1 `{op}` stops the gradient into its labels, so with `labels=softmax(x)` of its own "
               "logits this entropy has a zero gradient; use `{cure}({arguments})`")
    SEVERITY = ERROR
    NEEDS = ("softmax",)  # the cross-entropy and the softmax both spell it
    EXAMPLE_HEADER = "import tensorflow.compat.v1 as tf\n"
    BAD = """
        entropy = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(logits), logits=logits)
    """
    GOOD = """
        from tflint_effective.runtime_checks import softmax_entropy
        entropy = softmax_entropy(logits, axis=-1)
    """

    def setup(self) -> None:
        self.tf1_evidence = []  # filled when the module uses a TensorFlow 1.x-only name

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self.tf1_evidence and type(self.context.parent) is not cst.Attribute:
            name = self.context.tf_name(node)
            if name is not None and tf1_only(name):
                self.tf1_evidence.append(True)

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        if name is None or name.path not in TF1_LABELS_STOPPED or name.compat == "v2" or has_star_args(node):
            return
        is_loss = name.path.startswith("losses.")
        labels = call_arg(node, 0 if is_loss else None, TF1_LABELS_STOPPED[name.path])
        logits = call_arg(node, 1 if is_loss else None, "logits")
        axis = None if is_loss else call_arg(node, None, "axis") or call_arg(node, None, "dim")
        if labels is None or logits is None or not self._softmax_of(labels.value, logits.value, axis):
            return
        if self._gradient_stopped():
            return
        code = self.context.module.code_for_node
        arguments = code(logits.value) + (f", axis={code(axis.value)}" if axis is not None else "")
        message = self.MESSAGE.format(op=code(node.func), cure=CURE, arguments=arguments)
        if name.compat == "v1" or is_loss:  # tf.losses.softmax_cross_entropy is TF 1.x only
            self.report(node, message)
        else:  # plain tf.nn: the TF2 op in TensorFlow 2
            tf2, evidence = self.context.tf2_thunk(node), self.tf1_evidence
            self.report(node, message, when=lambda: bool(evidence) and not tf2())

    def _gradient_stopped(self) -> bool:
        """The cross-entropy is the argument of ``tf.stop_gradient``: no gradient is wanted."""
        ancestors = self.context.ancestors
        if len(ancestors) < 3 or type(ancestors[-2]) is not cst.Arg or type(ancestors[-3]) is not cst.Call:
            return False
        name = self.context.tf_call(ancestors[-3])
        return name is not None and name.path == "stop_gradient"

    def _softmax_of(self, labels: cst.BaseExpression, logits: cst.BaseExpression, axis) -> bool:
        """``labels`` is ``softmax(logits)`` over the same axis: the same value, from the same expression."""
        softmax = produced_by(self.context, labels, SOFTMAX)
        x = operand(softmax.call) if softmax is not None else None
        if x is None or not x.deep_equals(logits):
            return False
        softmax_axis = call_arg(softmax.call, 1, "axis") or call_arg(softmax.call, None, "dim")
        if _axis(self.context, softmax_axis) != _axis(self.context, axis):
            return False
        return movable(self.context, x) if softmax.named else is_pure(self.context, x)


def _axis(context, arg) -> str:
    """The class axis as code; the default is the last one."""
    return "-1" if arg is None else "".join(context.module.code_for_node(arg.value).split())
