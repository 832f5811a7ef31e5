"""`tf.squeeze` without an explicit axis.

Why: with no ``axis`` squeeze drops *every* dimension of size 1, and which
dimensions have size 1 depends on the data.  A batch of one example loses its
batch dimension; a model that works with batch 32 breaks (or silently
broadcasts) on the last, short batch or at inference with batch 1.

Severity (the same in every mode): a warning where the squeezed value shows a
batch dimension (a placeholder whose first dimension is ``None``, the output of
a layer, or a value computed from one of these); info elsewhere, where the value
may be a parameter or a statistic with no batch dimension at all.  A value whose
static shape the code spells out (``tf.squeeze(tf.constant([[1.0]]))``) has no
dimension to lose by surprise: not reported.

Fix safety: none offered; which dimension was meant cannot be known.

Known problems: calls through ``*args`` / ``**kwargs`` are not checked; a batch
dimension is seen only through names bound once, arithmetic and element-wise
TensorFlow ops, not through attributes (``self.logits``) or helpers.
"""
import libcst as cst

from ..analysis.static_shapes import static_shape
from ..analysis.syntax import call_arg, has_star_args
from ..rule import INFO, WARNING, Rule

TARGETS = {"squeeze"}
# Element-wise ops: their result keeps the batch dimension of their first operand.
ELEMENTWISE = {"identity", "cast", "sigmoid", "tanh", "exp", "log", "abs", "square", "sqrt", "nn.relu",
               "nn.sigmoid", "nn.tanh", "nn.softmax", "nn.log_softmax", "stop_gradient", "nn.elu"}


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
        if call_arg(node, 1, "axis") is not None or call_arg(node, None, "squeeze_dims") is not None:
            return
        operand = call_arg(node, 0, "input")
        if operand is None or static_shape(self.context, operand.value) is not None:
            return
        self.report(node, severity=WARNING if self._batched(operand.value, 4) else INFO)

    def _batched(self, expr: cst.BaseExpression, depth: int) -> bool:
        """``expr`` certainly has a batch dimension: a placeholder of shape ``[None, ...]``, a
        layer's output, or a value computed from one (through names bound once)."""
        if depth == 0:
            return False
        if isinstance(expr, cst.Name):
            value = self.context.assigned_value(expr)
            return value is not None and self._batched(value, depth - 1)
        if isinstance(expr, cst.BinaryOperation):
            return self._batched(expr.left, depth - 1) or self._batched(expr.right, depth - 1)
        if not isinstance(expr, cst.Call):
            return False
        if isinstance(expr.func, cst.Call):  # tf.keras.layers.Dense(1)(x)
            layer = self.context.tf_call(expr.func)
            return layer is not None and layer.path.startswith("keras.layers.")
        name = self.context.tf_call(expr)
        if name is None:
            return False
        if name.path.startswith(("layers.", "contrib.layers.")) and name.leaf[:1].islower():
            return True
        if name.path == "placeholder":
            shape = call_arg(expr, 1, "shape")
            return (shape is not None and isinstance(shape.value, (cst.List, cst.Tuple)) and shape.value.elements
                    and isinstance(shape.value.elements[0].value, cst.Name)
                    and shape.value.elements[0].value.value == "None")
        first = call_arg(expr, 0, "x")
        return name.canonical in ELEMENTWISE and first is not None and self._batched(first.value, depth - 1)
