"""Argument checks shared by the ops: fail early, in the caller's terms.

Every check uses only static information (dtype, static rank), so it costs
nothing at run time and behaves identically in eager, tf.function and graph
mode.  Where the static rank is unknown the axis is passed on unchecked.
"""
import numbers

import tensorflow as tf


def as_tensor(value, dtype=None):
    """``value`` if it already is a tensor (saving ~4 us of eager dispatch), else converted."""
    return value if tf.is_tensor(value) else tf.convert_to_tensor(value, dtype=dtype)


def floating(op, name, value, dtype=None):
    """``value`` as a floating-point tensor; Python numbers and arrays take ``dtype`` when given."""
    tensor = as_tensor(value, dtype)
    if not tensor.dtype.is_floating:
        raise TypeError(f"{op}: {name} must be a floating-point tensor, got {tensor.dtype.name}")
    if dtype is not None and tensor.dtype != dtype:
        raise TypeError(f"{op}: {name} is {tensor.dtype.name} but must match {dtype.name}")
    return tensor


def broadcastable(op, **tensors):
    """Raise unless the static shapes of ``tensors`` broadcast together."""
    shape = tf.TensorShape([])
    try:
        for tensor in tensors.values():
            shape = tf.broadcast_static_shape(shape, tensor.shape)
    except ValueError:
        shapes = ", ".join(f"{name} {t.shape}" for name, t in tensors.items())
        raise ValueError(f"{op}: shapes do not broadcast: {shapes}") from None


def is_int(value):
    # The exact-type test first: an ABC isinstance costs ~0.3 us, paid per dimension.
    return type(value) is int or (isinstance(value, numbers.Integral) and not isinstance(value, bool))


def axis(op, value, rank):
    """A single axis in ``[-rank, rank)``, normalised to be non-negative when rank is known."""
    if not is_int(value):
        raise TypeError(f"{op}: axis must be an int or None, got {value!r}")
    if rank is None:
        return value
    if not -rank <= value < rank:
        raise ValueError(f"{op}: axis {value} is out of range for a tensor of rank {rank}")
    return value % rank


def axes(op, value, rank):
    """An int, a list of distinct ints, a tensor, or None (all axes) for a reduction."""
    if value is None:
        return value
    if is_int(value):
        return axis(op, value, rank)
    if isinstance(value, (list, tuple)):
        checked = [axis(op, a, rank) for a in value]
        if rank is not None and len(set(checked)) != len(checked):
            raise ValueError(f"{op}: axis {list(value)} names a dimension twice")
        return checked
    if tf.is_tensor(value):  # last: tf.is_tensor costs ~15 us on a Python int
        return value
    raise TypeError(f"{op}: axis must be an int, a list of ints or None, got {value!r}")
