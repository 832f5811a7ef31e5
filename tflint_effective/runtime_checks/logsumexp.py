"""log(sum(weights * exp(x))): exact, and differentiable where a weight is zero."""
import tensorflow as tf

from . import _arguments

NEG_INF = float("-inf")


def weighted_logsumexp(x, weights, axis, keepdims=False, name=None):
    """``log(sum(weights * exp(x), axis))`` without overflow, for non-negative ``weights``.

    Target of rule TFE405 for weighted sums and mixtures,
    ``log(reduce_sum(w * exp(x), axis))``.  ``reduce_logsumexp(log(w) + x)``
    has the same value but a NaN gradient where a weight is 0 (the gradient
    of ``log(0)`` times 0).  ``tfp.math.reduce_weighted_logsumexp(x, w,
    axis)`` is the TF Probability counterpart and also takes signed weights
    (``return_sign=True``); it too adds ``log(abs(w))`` to ``x``.  ``axis`` is
    required (None reduces every element, see rule TFE101); ``weights``
    broadcast against ``x``.  Half-precision inputs are computed in float32.

    Gradients are the exact ones: ``weights * exp(x - result)`` for ``x`` and
    ``exp(x - result)`` for the weights, including at zero weights (finite
    wherever that number is representable).  A zero weight removes its entry
    from the value and from the ``x`` gradient whatever ``x`` is (even
    ``+inf`` or NaN).  A row with no nonzero weight gives ``-inf`` and zero
    gradients; ``+inf`` under a positive weight gives ``+inf`` with NaN
    gradients (as ``tf.reduce_logsumexp``); a negative total or a NaN gives
    NaN.  Weights are used as given, not through their logarithm, so weights
    below the smallest normal number of the computing dtype lose precision.
    """
    op = "weighted_logsumexp"
    x = _arguments.floating(op, "x", x)
    weights = _arguments.floating(op, "weights", weights, dtype=x.dtype)
    _arguments.broadcastable(op, x=x, weights=weights)
    keepdims = _arguments.keepdims(op, keepdims)
    shape = tf.broadcast_static_shape(x.shape, weights.shape)
    axis = _arguments.axes(op, axis, shape.rank)
    with tf.name_scope(name or op):
        dtype = _arguments.compute_dtype(x.dtype)
        values, scales = tf.cast(x, dtype), tf.cast(weights, dtype)
        if not (x.shape.is_fully_defined() and x.shape == weights.shape):
            common = tf.broadcast_dynamic_shape(tf.shape(values), tf.shape(scales))
            values, scales = tf.broadcast_to(values, common), tf.broadcast_to(scales, common)
            values.set_shape(shape)
            scales.set_shape(shape)
        return tf.cast(_reduce(values, scales, axis, keepdims), x.dtype)


def _reduce(x, weights, axis, keepdims):
    """The reduction on same-shaped ``x`` and ``weights``, with its gradient written out."""
    @tf.custom_gradient
    def reduce(x, weights):
        live = tf.where(tf.not_equal(weights, 0), x, tf.constant(NEG_INF, x.dtype))
        top = tf.reduce_max(live, axis, keepdims=True)
        top = tf.where(tf.math.is_finite(top), top, tf.zeros_like(top))
        total = tf.reduce_sum(weights * tf.exp(live - top), axis, keepdims=True)
        result = tf.math.log(total) + top  # reduced dimensions kept

        def gradient(upstream):
            # The share of each entry is exp(x - result), taken as exp((x - top) - log(total)): a large
            # result would carry a rounding error of its own magnitude into the exponent.
            empty = tf.equal(total, 0)  # no nonzero weight: -inf, zero gradients
            upstream = tf.where(empty, tf.zeros_like(result), tf.reshape(upstream, tf.shape(result)))
            log_total = tf.math.log(tf.where(empty, tf.ones_like(total), total))
            share = tf.math.multiply_no_nan(tf.exp((x - top) - log_total), upstream)  # 0 in empty rows
            return tf.math.multiply_no_nan(share, weights), share

        return (result if keepdims else tf.reduce_sum(result, axis)), gradient

    return reduce(x, weights)
