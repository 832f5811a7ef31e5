"""Shape helpers and reductions that make the axes explicit."""
import functools
import math

import tensorflow as tf

from . import _arguments
from .control import with_assertions


def get_shape(tensor, name=None):
    """The shape of ``tensor`` as a list: Python ints where static, scalar tensors otherwise.

    Pointed to by rules TFE201 (slicing in a Python loop: use the sizes to
    build one vectorised op instead) and TFE103 (``tf.squeeze`` without
    ``axis``: read the dimensions and reshape explicitly).  The rank must be
    known statically.  ``name`` names the ``tf.shape`` op, when one is needed.
    """
    tensor = _arguments.as_tensor(tensor, op="get_shape", name="tensor")
    if tensor.shape.rank is None:
        raise ValueError("get_shape: the rank of the tensor is unknown; give it a static rank "
                         "(e.g. with tensor.set_shape or ensure_shape)")
    static = tensor.shape.as_list()
    if None not in static:
        return static
    dynamic = tf.unstack(tf.shape(tensor, name=name))
    return [d if d is not None else dynamic[i] for i, d in enumerate(static)]


def _typed(value):
    return value.__class__, value  # True == 1 and 1.0 == 1: the cache must not confuse them


def reshape(tensor, dims_list, name=None):
    """Collapse groups of adjacent dimensions: ``reshape(x, [0, [1, 2]])`` turns [a, b, c] into [a, b*c].

    Each entry is a dimension index or a list of consecutive indices to
    multiply together; together they must list every dimension once, in
    order (transpose first to reorder).  Works with unknown sizes.  Pointed
    to by rule TFE103: folding a size-1 dimension into a neighbour drops it
    without the guesswork of ``tf.squeeze`` with no ``axis``.
    """
    shape = get_shape(tensor)
    if not isinstance(dims_list, (list, tuple)):
        raise TypeError(f"reshape: dims_list must be a list, got {dims_list!r}")
    key = tuple(tuple(map(_typed, d)) if isinstance(d, (list, tuple)) else _typed(d) for d in dims_list)
    try:
        groups = _groups(key, len(shape))
    except TypeError as error:  # an unhashable entry never reaches the checks
        if "unhashable" not in str(error):
            raise
        raise TypeError(f"reshape: dims_list entries must be ints or lists of ints, got {dims_list!r}") from None
    sizes = [[shape[d] for d in group] for group in groups]
    new_shape = [math.prod(s) if all(map(_arguments.is_int, s)) else tf.reduce_prod(tf.stack(s), axis=0)
                 for s in sizes]
    return tf.reshape(tensor, new_shape, name=name)


@functools.lru_cache(maxsize=256)
def _groups(key, rank):
    """The checked dimension groups of a ``reshape`` dims_list (once per key and rank:
    checking costs as much as a tenth of an eager ``tf.reshape``).  ``key`` holds
    ``(type, value)`` pairs, one per entry or a tuple of them per group."""
    entries = [d[1] if d and isinstance(d[0], type) else [v for _, v in d] for d in key]
    shown = entries
    groups = [(d,) if _arguments.is_int(d) else tuple(d) if isinstance(d, list) else d for d in entries]
    if not all(isinstance(g, tuple) and all(map(_arguments.is_int, g)) for g in groups):
        raise TypeError(f"reshape: dims_list entries must be ints or lists of ints, got {shown!r}")
    flat = [_arguments.axis("reshape", d, rank) for group in groups for d in group]
    if flat != list(range(rank)) or not all(groups):
        raise ValueError(f"reshape: dims_list {shown!r} must list each of the {rank} dimensions "
                         "once, in order, in non-empty groups")
    return groups


def batch_gather(params, indices, name=None):
    """``output[i] = tf.gather(params[i], indices[i])`` for every batch row i, as one op.

    Pointed to by rule TFE201 (gathering or slicing per row in a Python
    loop).  It is ``tf.gather(params, indices, batch_dims=1)`` (which gives
    the same results) after checking that the batch sizes agree and the
    indices are integers.
    """
    tensor = _arguments.as_tensor(params, op="batch_gather", name="params")
    indices = _arguments.as_tensor(indices, op="batch_gather", name="indices")
    if indices.dtype not in (tf.int32, tf.int64):
        raise TypeError(f"batch_gather: indices must be int32 or int64, got {indices.dtype.name}")
    if tensor.shape.rank is not None and tensor.shape.rank < 2:
        raise ValueError(f"batch_gather: params must have rank >= 2 (batch, items, ...), got {tensor.shape}")
    if indices.shape.rank == 0:
        raise ValueError("batch_gather: indices must have a batch dimension, got a scalar")
    if not tensor.shape[:1].is_compatible_with(indices.shape[:1]):
        raise ValueError(f"batch_gather: batch sizes differ: params {tensor.shape}, indices {indices.shape}")
    return tf.gather(tensor, indices, batch_dims=1, name=name)


def _reduce(op, reduction, x, axis, keepdims, name):
    x = _arguments.as_tensor(x, op=op, name="input_tensor")
    return reduction(x, axis=_arguments.axes(op, axis, x.shape.rank), keepdims=_arguments.keepdims(op, keepdims),
                     name=name)


def reduce_sum(input_tensor, axis, keepdims=False, name=None):
    """``tf.reduce_sum`` with a required ``axis`` (None: explicitly all elements). Rule TFE101."""
    return _reduce("reduce_sum", tf.reduce_sum, input_tensor, axis, keepdims, name)


def reduce_mean(input_tensor, axis, keepdims=False, name=None):
    """``tf.reduce_mean`` with a required ``axis`` (None: explicitly all elements). Rule TFE101."""
    return _reduce("reduce_mean", tf.reduce_mean, input_tensor, axis, keepdims, name)


def reduce_max(input_tensor, axis, keepdims=False, name=None):
    """``tf.reduce_max`` with a required ``axis`` (None: explicitly all elements). Rule TFE101."""
    return _reduce("reduce_max", tf.reduce_max, input_tensor, axis, keepdims, name)


def reduce_min(input_tensor, axis, keepdims=False, name=None):
    """``tf.reduce_min`` with a required ``axis`` (None: explicitly all elements). Rule TFE101."""
    return _reduce("reduce_min", tf.reduce_min, input_tensor, axis, keepdims, name)


def assert_same_rank(*tensors, name=None):
    """Return ``tensors`` as a list after checking that they all have the same rank.

    Pointed to by rule TFE101: ``[[1], [2]] + [1, 2]`` silently broadcasts
    to a 2x2 matrix.  Static ranks are compared at once (ValueError); where
    a rank is unknown, a runtime assertion is tied to every returned tensor.
    """
    tensors = [_arguments.as_tensor(t, op="assert_same_rank", name=f"tensor {i}") for i, t in enumerate(tensors)]
    ranks = [t.shape.rank for t in tensors]
    known = {r for r in ranks if r is not None}
    if len(known) > 1:
        raise ValueError(f"assert_same_rank: ranks differ: {ranks}")
    if None not in ranks or len(tensors) < 2:
        return tensors
    with tf.name_scope(name or "assert_same_rank"):
        reference = tf.rank(tensors[0])
        checks = [tf.debugging.assert_equal(tf.rank(t), reference, message=f"assert_same_rank: tensor {i}")
                  for i, t in enumerate(tensors[1:], 1)]
        return [with_assertions(t, *checks) for t in tensors]
