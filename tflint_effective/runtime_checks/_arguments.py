"""Argument checks shared by the ops: fail early, in the caller's terms.

The checks read only static information (dtype, static rank, constant
values), so they cost nothing at run time and behave the same in eager,
tf.function and graph mode.  An axis given as a tensor whose value is not
known while tracing is passed on, and TensorFlow checks it at run time.
"""
import numbers

import numpy as np
import tensorflow as tf

NOT_DENSE = (tf.RaggedTensor, tf.SparseTensor)


def as_tensor(value, dtype=None, op="runtime_checks", name="input"):
    """``value`` if it already is a dense tensor (saving ~4 us of eager dispatch), else converted."""
    if isinstance(value, NOT_DENSE):
        kind = type(value).__name__
        raise TypeError(f"{op}: {name} is a {kind}; pass a dense tensor (e.g. {name}.to_tensor(default_value=...)"
                        ", with -inf as the default for padded logits)")
    return value if tf.is_tensor(value) else tf.convert_to_tensor(value, dtype=dtype)


def floating(op, name, value, dtype=None):
    """``value`` as a floating-point tensor; Python numbers and arrays take ``dtype`` when given."""
    tensor = as_tensor(value, dtype, op, name)
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


def _constant(op, value):
    """A Python int, list of ints or a tensor for an integer axis value; TypeError for anything else."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.ndim <= 1:
        return value.tolist()
    if tf.is_tensor(value) and not isinstance(value, NOT_DENSE) and value.dtype.is_integer:
        static = tf.get_static_value(value)
        if static is None:
            if value.shape.rank not in (None, 0, 1):
                raise ValueError(f"{op}: an axis tensor must be a scalar or a vector, got shape {value.shape}")
            return value  # known only at run time: TensorFlow checks it
        return static.tolist()
    raise TypeError(f"{op}: axis must be an int, a list of ints, an integer tensor or None, got {value!r}")


def axis(op, value, rank):
    """A single axis in ``[-rank, rank)``, non-negative when the rank is known, or a run-time scalar tensor."""
    if not is_int(value):
        if value is None or isinstance(value, (bool, list, tuple, str, float)):
            raise TypeError(f"{op}: axis must be an int, a scalar integer tensor or None, got {value!r}")
        value = _constant(op, value)
        if tf.is_tensor(value):
            if value.shape.rank not in (None, 0):
                raise ValueError(f"{op}: axis must name one dimension, got a tensor of shape {value.shape}")
            return value
        if not is_int(value):
            raise ValueError(f"{op}: axis must name one dimension, got {value!r}")
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
    if not isinstance(value, (list, tuple)):
        if isinstance(value, (bool, str, float)):
            raise TypeError(f"{op}: axis must be an int, a list of ints, an integer tensor or None, "
                            f"got {value!r}")
        value = _constant(op, value)
        if tf.is_tensor(value):
            return value
        if is_int(value):
            return axis(op, value, rank)
    checked = [axis(op, a, rank) for a in value]
    if rank is not None and all(map(is_int, checked)) and len(set(checked)) != len(checked):
        raise ValueError(f"{op}: axis {list(value)} names a dimension twice")
    return checked


def keepdims(op, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{op}: keepdims must be a bool, got {value!r}")
    return bool(value)


def compute_dtype(dtype):
    """The dtype to compute in: float32 for the half-precision types, else ``dtype`` itself."""
    return tf.float32 if dtype in (tf.float16, tf.bfloat16) else dtype
