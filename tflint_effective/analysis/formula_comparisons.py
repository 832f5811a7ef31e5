"""Hand-written formulas set beside TensorFlow's stable op on the same logits: a comparison.

``-reduce_sum(y * log(softmax(z)))`` next to ``softmax_cross_entropy_with_logits(logits=z)``,
in the same block, is a demonstration that the two agree (or a loss about to be replaced),
not a loss that may underflow unseen: the author already wrote the cure.  Asked only once a
rule has a finding, so the walk over the block costs nothing elsewhere.
"""
from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from .producers import Produced, operand
from .syntax import call_arg, code_children
from .tf_api import with_math

# Stable ops on logits by what they compute, with the position and keyword of their logits
# argument (TF1's ``nn.*_with_logits`` take a leading sentinel: by keyword only).
SOFTMAX_CROSS_ENTROPY = {
    **{f"nn.{op}": (None, "logits") for op in (
        "softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
        "sparse_softmax_cross_entropy_with_logits")},
    "losses.softmax_cross_entropy": (1, "logits"), "losses.sparse_softmax_cross_entropy": (1, "logits")}
LOG_SOFTMAX = {path: (0, "logits") for path in with_math("nn.log_softmax")}
LOG_SIGMOID = {"nn.sigmoid_cross_entropy_with_logits": (None, "logits"),
               "losses.sigmoid_cross_entropy": (1, "logits"), **{path: (0, "x") for path in with_math("log_sigmoid")}}
# What may not run with the finding: another branch, a loop, a definition.
APART = (cst.If, cst.Try, cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)
BLOCKS = (cst.IndentedBlock, cst.SimpleStatementSuite)


def beside_stable_op(context, activation: Produced, stable) -> bool:
    """One of the ``stable`` ops (``SOFTMAX_CROSS_ENTROPY``...) computes the same quantity from
    the same logits (the same code) as the softmax or sigmoid ``activation`` applied in this
    scope, or applied elsewhere to an attribute (``self.p = tf.nn.softmax(self.logits)`` in
    ``__init__``), in the block of the statement being linted (also inside its ``with`` statements)."""
    logits = operand(activation.call)
    if not activation.exact and not (type(logits) is cst.Attribute and type(logits.value) is cst.Name):
        return False
    block = _block(context.ancestors) if logits is not None else None
    if block is None:
        return False
    code = context.module.code_for_node
    spelled = code(logits)
    for call in _calls(block):
        name = context.tf_call(call)
        where = stable.get(name.path) if name is not None else None
        argument = call_arg(call, *where) if where is not None else None
        if argument is not None and code(argument.value) == spelled:
            return True
    return False


def _block(ancestors) -> Optional[cst.CSTNode]:
    """The innermost statement block holding the node being visited, seen through ``with``."""
    for at in range(len(ancestors) - 1, 0, -1):
        if type(ancestors[at]) in BLOCKS and type(ancestors[at - 1]) is not cst.With:
            return ancestors[at]
    return ancestors[0] if ancestors and type(ancestors[0]) is cst.Module else None


def _calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    stack = list(code_children(node))
    while stack:
        node = stack.pop()
        if isinstance(node, APART):
            continue
        if type(node) is cst.Call:
            yield node
        stack.extend(code_children(node))
