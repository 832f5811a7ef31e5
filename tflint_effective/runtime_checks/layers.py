"""Layers from the cookbook: broadcasting merge and leaky ReLU."""
import math
import numbers

import numpy as np
import tensorflow as tf

from . import _arguments
from .shapes import assert_same_rank


class Merge(tf.Module):
    """Combine features of different (broadcastable) shapes: ``activation(sum_i x_i @ W_i + b)``.

    Replaces tiling each input to a common shape, concatenating and applying
    one dense layer (the tile+concat pattern): projecting first and adding
    with broadcasting gives the same function without materialising the
    tiled copies.  ``[m, 1, d1]`` and ``[1, n, d2]`` merge into ``[m, n, units]``.
    The weights are created on the first call (last dimensions must be
    static) and reused afterwards, so keep one instance per layer.
    """

    def __init__(self, units, activation=tf.nn.relu, name=None):
        if not _arguments.is_int(units) or units < 1:
            raise ValueError(f"merge: units must be a positive int, got {units!r}")
        super().__init__(name=name or "merge")
        self.units = units
        self.activation = activation
        self.kernels = None
        self.bias = None

    @tf.Module.with_name_scope
    def __call__(self, tensors):
        if isinstance(tensors, (tf.Tensor, tf.Variable)) or not tensors:
            raise TypeError("merge: tensors must be a non-empty list of tensors")
        tensors = assert_same_rank(*tensors)
        depths = [t.shape[-1] if t.shape.rank else None for t in tensors]
        if None in depths:
            raise ValueError(f"merge: every input needs a static last dimension, got "
                             f"{[t.shape for t in tensors]}")
        if self.kernels is None:
            self._build(depths, tensors[0].dtype)
        expected = [k.shape[0] for k in self.kernels]
        if depths != expected:
            raise ValueError(f"merge: input depths {depths} differ from the first call's {expected}")
        result = self.bias
        for tensor, kernel in zip(tensors, self.kernels):
            result = result + tf.tensordot(tensor, kernel, axes=1)
        return self.activation(result) if self.activation else result

    def _build(self, depths, dtype):
        def glorot(depth):
            limit = math.sqrt(6.0 / (depth + self.units))
            return tf.cast(tf.random.uniform([depth, self.units], -limit, limit), dtype)

        self.kernels = [tf.Variable(glorot(d), name=f"kernel_{i}") for i, d in enumerate(depths)]
        self.bias = tf.Variable(tf.zeros([self.units], dtype), name="bias")


def merge(tensors, units, activation=tf.nn.relu, name=None):
    """Functional form of :class:`Merge` (the fix for tile+concat): new weights on every call.

    That suits TF1 graph code, where each call site builds its layer once.
    In eager code and inside tf.function, create a ``Merge`` once and call it.
    """
    return Merge(units, activation, name)(tensors)


def leaky_relu(features, alpha=0.2, name=None):
    """``x`` where ``x > 0``, else ``alpha * x``: ``tf.nn.leaky_relu`` with its arguments checked.

    For float16, bfloat16 and float32 this is the fused ``tf.nn.leaky_relu``
    (same kernel, same results); unlike the cookbook's
    ``tf.maximum(x, alpha * x)`` it stays right for ``alpha > 1``.  The kernel
    holds ``alpha`` as a float32, so float64 inputs use ``tf.where`` (exact,
    about twice the kernel's time) unless ``alpha`` is a float32 number.
    ``alpha`` is a finite non-negative real number (Python, NumPy, or a
    constant scalar tensor).  No lint rule points here.
    """
    alpha = _alpha(alpha)
    features = _arguments.floating("leaky_relu", "features", features)
    if features.dtype == tf.float64 and float(np.float32(alpha)) != alpha:  # the kernel would round it
        with tf.name_scope(name or "leaky_relu"):
            return tf.where(features > 0, features, alpha * features)
    return tf.nn.leaky_relu(features, alpha=alpha, name=name)


def _alpha(alpha):
    value = alpha
    if tf.is_tensor(value) and not isinstance(value, _arguments.NOT_DENSE):
        value = tf.get_static_value(value)
        if value is None:
            raise TypeError("leaky_relu: alpha must be known when the op is built (a number, or a "
                            "constant tensor), got a tensor computed at run time")
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"leaky_relu: alpha must be a real number, got {alpha!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"leaky_relu: alpha must be finite and non-negative, got {alpha!r}")
    return float(value)
