"""Softmax family: stable, with explicit axes, and defined on masked rows.

Masking a class means giving it a ``-inf`` logit (a ``-1e9`` mask is
``-inf`` in float16).  Along the softmax axis, every op sorts a row into one
of three kinds and documents its result for each:

* a row with at least one finite logit (``-inf`` entries allowed): the exact
  result, masked classes having probability 0;
* a fully masked row (every logit ``-inf``): no distribution, so softmax
  and log_softmax give NaN (as TensorFlow) and the losses give 0;
* a row holding NaN or ``+inf``: NaN (values and gradients; softmax's other
  entries may be 0).

Half-precision inputs are computed in float32 and the results rounded back.
"""
import numpy as np
import tensorflow as tf

from . import _arguments

NEG_INF = float("-inf")


def _log_softmax(x, axis):
    """log_softmax by reductions: any rank, known or not, and an axis known only at run time."""
    z = x - tf.stop_gradient(tf.reduce_max(x, axis, keepdims=True))
    return z - tf.math.log(tf.reduce_sum(tf.exp(z), axis, keepdims=True))


def _softmax(x, axis):
    e = tf.exp(x - tf.stop_gradient(tf.reduce_max(x, axis, keepdims=True)))
    return e / tf.reduce_sum(e, axis, keepdims=True)


def _normalise(op, kernel, manual, logits, axis, name):
    """Apply a softmax kernel along ``axis``; ``axis=None`` runs it on a flat view."""
    logits = _arguments.floating(op, "logits", logits)
    if axis is None:
        with tf.name_scope(name or op):
            return tf.reshape(kernel(tf.reshape(logits, [-1])), tf.shape(logits))
    rank = logits.shape.rank
    axis = _arguments.axis(op, axis, rank)
    if _arguments.is_int(axis) and (rank is not None or axis == -1):
        if axis == -1 or axis == rank - 1:
            return kernel(logits, axis=axis, name=name)
        with tf.name_scope(name or op):  # TensorFlow transposes around the kernel, outside `name`
            return kernel(logits, axis=axis)
    with tf.name_scope(name or op):  # the kernels need a static axis of a known rank
        dtype = _arguments.compute_dtype(logits.dtype)
        return tf.cast(manual(tf.cast(logits, dtype), axis), logits.dtype)


def softmax(logits, axis=-1, name=None):
    """Softmax along ``axis``, or over every element of ``logits`` when ``axis`` is None.

    Target of rule TFE401 (naive ``exp(x) / reduce_sum(exp(x))``).  For an
    int axis this is ``tf.nn.softmax`` (same kernel, same results), which is
    already stable; this op adds ``axis=None`` (every element of a tensor of
    any rank; note that ``tf.nn.softmax(axis=None)`` means the last axis),
    any axis of a tensor of unknown rank, axes given as tensors, and argument
    checks.  A ``-inf`` logit gets probability 0 and a zero gradient; a fully
    masked row gives NaN, as in TensorFlow.  In a row holding NaN or ``+inf``
    those entries and all the row's gradients are NaN, and its other entries
    0 or NaN (TensorFlow's kernels differ by dtype).
    """
    return _normalise("softmax", tf.nn.softmax, _softmax, logits, axis, name)


def log_softmax(logits, axis=-1, name=None):
    """Log-softmax along ``axis``, or over every element when ``axis`` is None.

    Target of rule TFE402 (``log(softmax(x))``, -inf and NaN gradients once a
    probability underflows).  For an int axis this is ``tf.nn.log_softmax``;
    the additions are those of :func:`softmax`.  A ``-inf`` logit gives
    ``-inf`` and passes its upstream gradient through unchanged (finite);
    a fully masked row and a row holding NaN or ``+inf`` give NaN.
    """
    return _normalise("log_softmax", tf.nn.log_softmax, _log_softmax, logits, axis, name)


def _masked_log_softmax(x, axis):
    """log_softmax, except that a fully masked row is ``-inf`` throughout (zero gradients)."""
    top = tf.stop_gradient(tf.reduce_max(x, axis, keepdims=True))
    z = x - tf.where(tf.equal(top, NEG_INF), tf.zeros_like(top), top)
    total = tf.reduce_sum(tf.exp(z), axis, keepdims=True)
    return z - tf.math.log(tf.where(tf.equal(total, 0), tf.ones_like(total), total))


@tf.custom_gradient
def _weighted_log(weights, log_p):
    """``weights * log_p``, exactly 0 where a weight is 0 (even on -inf); a -inf entry passes no
    gradient to its weight (-log p is infinite there), the gradient to log_p is the weight."""
    def gradient(upstream):
        finite = tf.where(tf.equal(log_p, NEG_INF), tf.zeros_like(log_p), log_p)
        return upstream * finite, upstream * weights

    return tf.math.multiply_no_nan(log_p, weights), gradient


def _class_axis(op, logits, axis):
    return None if axis is None else _arguments.axis(op, axis, logits.shape.rank)


def softmax_entropy(logits, axis=-1, keepdims=False, name=None):
    """Entropy ``-sum(p * log p)`` of ``p = softmax(logits)`` along ``axis`` (None: all elements).

    Target of rule TFE406: ``softmax_cross_entropy_with_logits(labels=
    softmax(x), logits=x)`` as an entropy has no gradient through its labels
    in TF1.  The TF Probability counterpart is
    ``tfp.distributions.Categorical(logits=x).entropy()`` (last axis only;
    not installed or compared here).  Masked (``-inf``) classes contribute 0
    and get a zero gradient; a fully masked row has entropy 0 and zero
    gradients; NaN or ``+inf`` in a row gives NaN.
    """
    op = "softmax_entropy"
    logits = _arguments.floating(op, "logits", logits)
    axis = _class_axis(op, logits, axis)
    keepdims = _arguments.keepdims(op, keepdims)
    with tf.name_scope(name or op):
        x = tf.cast(logits, _arguments.compute_dtype(logits.dtype))
        log_p = _masked_log_softmax(x, axis)
        entropy = -tf.reduce_sum(_weighted_log(tf.exp(log_p), log_p), axis, keepdims=keepdims)
        return tf.cast(entropy, logits.dtype)


def _labels(op, labels, dtype):
    kind = labels.dtype if tf.is_tensor(labels) else None
    if kind is None and not isinstance(labels, _arguments.NOT_DENSE):
        array_kind = np.asarray(labels).dtype.kind
        kind = tf.int64 if array_kind in "iu" else tf.bool if array_kind == "b" else None
    if kind is not None and (kind.is_integer or kind == tf.bool):
        raise TypeError(f"{op}: labels are {kind.name}, but the dense cross-entropy takes one weight per "
                        "class; for class ids use tf.nn.sparse_softmax_cross_entropy_with_logits(labels, "
                        f"logits), and cast one-hot integer labels to {dtype.name}")
    return _arguments.floating(op, "labels", labels, dtype=dtype)


def softmax_cross_entropy(labels, logits, axis=-1, keepdims=False, name=None):
    """Cross-entropy ``-sum(labels * log_softmax(logits))`` along ``axis``.

    Target of rule TFE403 (hand-written ``-reduce_sum(labels * log(p))``).
    For labels that sum to one and finite logits it equals
    ``tf.nn.softmax_cross_entropy_with_logits`` (use that there).  This op
    adds: an exact gradient for any label weights (the fused kernel's
    ``softmax - labels`` assumes they sum to one), masked logits, and a clear
    error for integer class ids (those belong in
    ``tf.nn.sparse_softmax_cross_entropy_with_logits``).  ``axis=None``
    treats all elements as one distribution; ``labels`` may broadcast
    against ``logits`` (a positive axis counts in the logits' dimensions).

    A zero label contributes exactly 0 whatever its logit; a positive label
    on a ``-inf`` logit makes the loss ``+inf``.  So a fully masked row costs
    0 when its labels are all zero (``+inf`` otherwise).  Gradients: for the
    logits ``p * sum(labels) - labels`` (``p = 0`` on masked classes and in
    fully masked rows), for the labels ``-log p``, but 0 on masked classes
    (where ``-log p`` is infinite).  NaN or ``+inf`` in a row of logits gives
    NaN.
    """
    op = "softmax_cross_entropy"
    logits = _arguments.floating(op, "logits", logits)
    labels = _labels(op, labels, logits.dtype)
    _arguments.broadcastable(op, labels=labels, logits=logits)
    axis = _class_axis(op, logits, axis)
    keepdims = _arguments.keepdims(op, keepdims)
    rank = logits.shape.rank
    with tf.name_scope(name or op):
        if axis is None:
            sum_axis = None
        elif _arguments.is_int(axis) and rank is not None:  # count from the end: labels may add dims
            sum_axis = axis - rank
        else:
            sum_axis = tf.math.floormod(axis, tf.rank(logits)) - tf.rank(logits)
        dtype = _arguments.compute_dtype(logits.dtype)
        x, weights = tf.cast(logits, dtype), tf.cast(labels, dtype)
        log_p = _masked_log_softmax(x, axis)
        if not (labels.shape.is_fully_defined() and labels.shape == logits.shape):
            shape = tf.broadcast_dynamic_shape(tf.shape(weights), tf.shape(log_p))
            weights, log_p = tf.broadcast_to(weights, shape), tf.broadcast_to(log_p, shape)
            static = tf.broadcast_static_shape(labels.shape, logits.shape)
            weights.set_shape(static)
            log_p.set_shape(static)
        loss = -tf.reduce_sum(_weighted_log(weights, log_p), sum_axis, keepdims=keepdims)
        return tf.cast(loss, logits.dtype)
