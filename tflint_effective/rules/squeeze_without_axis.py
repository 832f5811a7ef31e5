"""`tf.squeeze` without an explicit axis.

Why: with no ``axis`` squeeze drops *every* dimension of size 1, and which
dimensions have size 1 depends on the data.  A batch of one example loses its
batch dimension; a model that works with batch 32 breaks (or silently
broadcasts) on the last, short batch or at inference with batch 1.

Severity (the same in every mode): a warning where the squeezed value shows a
batch dimension (a placeholder whose first dimension is ``None``, the output of
a layer, or a value computed from one of these); info elsewhere, where the value
may be a parameter or a statistic with no batch dimension at all, or where the
squeezed value goes, through element-wise ops, into a full reduction or a
histogram summary (``tf.reduce_mean(tf.cast(tf.equal(tf.squeeze(p), y), tf.float32))``),
where size-1 dimensions only broadcast and losing one changes nothing (also through a
name bound once to it, when every read of the name in its function goes there), or into a
local name its function never reads.  A
value whose static shape the code spells out (``tf.squeeze(tf.constant([[1.0]]))``)
has no dimension to lose by surprise: not reported.

Fix safety: none offered; which dimension was meant cannot be known.

Known problems: calls through ``*args`` / ``**kwargs`` are not checked; a batch
dimension is seen only through names bound once, arithmetic and element-wise
TensorFlow ops, not through attributes (``self.logits``) or helpers.
"""
from typing import List, Optional, Sequence, Tuple, Union

import libcst as cst

from ..analysis.loops import is_read
from ..analysis.names import NESTED_SCOPES
from ..analysis.static_shapes import static_shape
from ..analysis.syntax import call_arg, code_children, descendants, has_star_args
from ..analysis.tf_api import REDUCTIONS, with_math
from ..rule import INFO, WARNING, Rule

TARGETS = {"squeeze"}
# Element-wise ops: their result keeps the batch dimension of their first operand.
ELEMENTWISE = {"identity", "cast", "sigmoid", "tanh", "exp", "log", "abs", "square", "sqrt", "nn.relu",
               "nn.sigmoid", "nn.tanh", "nn.softmax", "nn.log_softmax", "stop_gradient", "nn.elu"}


# Element-wise ops of two operands (comparisons and arithmetic): their result broadcasts both.
ELEMENTWISE_PAIRS = with_math("equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "add",
                              "subtract", "multiply", "divide", "maximum", "minimum")
# Where a value's size-1 dimensions make no difference: reductions without an axis, and
# histograms, which flatten what they are given.
FULL_REDUCTIONS = with_math(*REDUCTIONS)
HISTOGRAMS = {"summary.histogram"}
PASS_THROUGH = (cst.Arg, cst.BinaryOperation, cst.Comparison, cst.ComparisonTarget, cst.UnaryOperation)


class SqueezeWithoutAxis(Rule):
    """`tf.squeeze` without `axis` also drops a batch dimension of size 1."""

    CODE = "TFE103"
    MESSAGE = ("`squeeze` without `axis` removes every size-1 dimension, including a batch of one; "
               "pass the axis to remove (`axis=[...]`)")
    SEVERITY = WARNING
    NEEDS = ("squeeze",)
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
        batched = self._batched(operand.value, 4)
        if batched:
            use = self._rank_free_use(self.context.ancestors)
            batched = not (use is True or (type(use) is cst.Name and self._read_rank_free(use)))
        self.report(node, severity=WARNING if batched else INFO)

    def _rank_free_use(self, ancestors: Sequence[cst.CSTNode]) -> Union[bool, cst.Name]:
        """The value of ``ancestors[-1]`` goes, through element-wise ops only, into a full reduction
        or a histogram summary (``tf.reduce_mean(tf.cast(tf.equal(tf.squeeze(p), y), tf.float32))``):
        size-1 dimensions only broadcast there, so dropping one changes nothing.  The name it is
        assigned to, when that is where it goes."""
        for position in range(len(ancestors) - 2, -1, -1):
            node = ancestors[position]
            kind = type(node)
            if kind in PASS_THROUGH and not (kind is cst.BinaryOperation and type(node.operator) is cst.MatrixMultiply):
                continue
            if kind is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name:
                return node.targets[0].target
            if kind is not cst.Call:
                return False
            name = self.context.tf_call(node)
            if name is None:
                return False
            path = name.path
            if path in HISTOGRAMS:
                return True
            if path in FULL_REDUCTIONS:
                return call_arg(node, 1, "axis") is None and call_arg(node, None, "reduction_indices") is None
            if name.canonical not in ELEMENTWISE and path not in ELEMENTWISE_PAIRS:
                return False
        return False

    def _read_rank_free(self, target: cst.Name) -> bool:
        """``target``, bound once in this function (or module), is read only where ``_rank_free_use``
        holds, or, a function's local, never read (names read in nested functions or comprehensions:
        unsure)."""
        context = self.context
        if not context.is_local(target.value) or len(context.bindings(target.value)) > 1 or context.scope.is_class:
            return False
        reads = _reads(context.scope.node, target.value)
        if reads == [] and type(context.scope.node) is cst.FunctionDef:
            return True  # a dead local: nothing downstream can lose a dimension
        return bool(reads) and all(self._rank_free_use(read) is True for read in reads)

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


def _reads(root: cst.CSTNode, name: str) -> Optional[List[Tuple[cst.CSTNode, ...]]]:
    """The ancestors (root first, the name last) of each read of ``name`` in ``root``'s own
    scope; None if a nested scope mentions it."""
    reads, stack = [], [(child, (root,)) for child in code_children(root)]
    while stack:
        node, above = stack.pop()
        kind = type(node)
        if kind is cst.Name:
            if node.value == name and is_read(above[-1], node):
                reads.append((*above, node))
        elif kind in NESTED_SCOPES:
            if any(type(n) is cst.Name and n.value == name for n in descendants(node)):
                return None
        else:
            stack.extend((child, (*above, node)) for child in code_children(node))
    return reads
