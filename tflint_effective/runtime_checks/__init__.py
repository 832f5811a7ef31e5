"""Corrected TensorFlow ops that the lint rules and their fixes point to.

Each op names, in its docstring, the rule (TFE...) that recommends it, and
says where TensorFlow already ships the same op; rules whose cure TensorFlow
ships (TFE404: ``tf.math.log_sigmoid``, TFE405: ``tf.reduce_logsumexp``)
point there, except for weighted sums (``weighted_logsumexp``).  The ops
work in eager mode, inside tf.function and in TF1 graph mode, take ``name=``
(and ``keepdims=`` where they reduce), and check their arguments before
TensorFlow does.  This is the only part of the package that imports
TensorFlow; ``import tflint_effective`` does not load it.
"""
from .control import with_assertions
from .devices import make_parallel, tower_gradients
from .gaussian import gaussian_kl
from .layers import Merge, leaky_relu, merge
from .logsumexp import weighted_logsumexp
from .numerics import log_softmax, softmax, softmax_cross_entropy, softmax_entropy
from .shapes import (assert_same_rank, batch_gather, get_shape, reduce_max, reduce_mean, reduce_min,
                     reduce_sum, reshape)
from .training import finalized_graph, train_op_with_updates, with_update_ops

__all__ = [
    "softmax", "log_softmax", "softmax_cross_entropy", "softmax_entropy", "gaussian_kl",
    "weighted_logsumexp", "get_shape", "reshape", "batch_gather", "reduce_sum", "reduce_mean",
    "reduce_max", "reduce_min", "assert_same_rank", "with_assertions", "Merge", "merge", "leaky_relu",
    "make_parallel", "tower_gradients", "train_op_with_updates", "with_update_ops", "finalized_graph",
]
