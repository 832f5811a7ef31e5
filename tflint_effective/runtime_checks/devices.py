"""Data parallelism: split the batch over devices, keep each tower's work on its device."""
import contextlib
import functools
import numbers

import tensorflow as tf

from . import _arguments


def make_parallel(fn, devices, *, name=None, **inputs):
    """Run ``fn(**inputs)`` as one tower per device on equal slices of the batch (axis 0).

    The towers' outputs (a tensor or a nested structure of them, batch
    first) are concatenated back in order.  Pointed to by rules TFE501 and
    TFE502: the forward pass lands on each tower's device; for the backward
    pass use :func:`tower_gradients`.  In TF1 graph mode the towers share
    ``tf.compat.v1.get_variable`` variables (AUTO_REUSE); in TF2, ``fn``
    should close over variables created once.  ``devices`` is one device
    name or a sequence of them; ``name``, when given, scopes every tower.
    The inputs are dense tensors (a ragged batch does not split evenly).
    ``tf.distribute.MirroredStrategy`` is TensorFlow's general answer.
    """
    outputs = []
    with _scope(name):
        for scope, split in _towers(devices, inputs, "make_parallel"):
            with scope():
                outputs.append(_batched(fn(**split)))
        return tf.nest.map_structure(lambda *parts: tf.concat(parts, axis=0), *outputs)


def _batched(outputs):
    """``outputs`` after checking that each one has a batch dimension to concatenate."""
    for output in tf.nest.flatten(outputs):
        shape = getattr(output, "shape", None)
        rank = shape.rank if isinstance(shape, tf.TensorShape) else None if shape is None else len(shape)
        if rank == 0 or output is None or isinstance(output, numbers.Number):
            raise ValueError(f"make_parallel: fn returned {output!r}; each output needs the batch "
                             "dimension (axis 0) to be concatenated over the towers; reduce after "
                             "make_parallel, or use tower_gradients for a scalar loss")
    return outputs


def _scope(name):
    return tf.name_scope(name) if name else contextlib.nullcontext()


def tower_gradients(loss_fn, variables, devices, *, name=None, **inputs):
    """Gradients of the scalar ``loss_fn(**inputs)`` w.r.t. ``variables``, one tower per device.

    Each tower's forward and backward pass run under that tower's device
    scope: a ``GradientTape`` inside the scope in eager mode and
    tf.function (rule TFE502), ``tf.compat.v1.gradients(...,
    colocate_gradients_with_ops=True)`` in TF1 graph mode (rule TFE501).
    Returns ``(loss, gradients)``: the mean of the tower losses and, per
    variable, the mean of the tower gradients (None where unconnected).
    With a ``loss_fn`` that averages over its batch, these equal the
    single-device loss and gradients.  ``devices`` and ``name`` are as in
    :func:`make_parallel`; ``tf.distribute.MirroredStrategy`` is the
    TensorFlow way for whole training loops.
    """
    with _scope(name):
        return _tower_gradients(loss_fn, list(variables), devices, inputs)


def _tower_gradients(loss_fn, variables, devices, inputs):
    losses, tower_grads = [], []
    for scope, split in _towers(devices, inputs, "tower_gradients"):
        with scope():
            if tf.compat.v1.executing_eagerly_outside_functions():
                with tf.GradientTape(watch_accessed_variables=False) as tape:
                    tape.watch(variables)
                    loss = _scalar(loss_fn(**split))
                grads = tape.gradient(loss, variables)
            else:
                loss = _scalar(loss_fn(**split))
                grads = tf.compat.v1.gradients(loss, variables, colocate_gradients_with_ops=True)
        losses.append(loss)
        tower_grads.append(grads)
    return tf.add_n(losses) / len(losses), [_mean(g) for g in zip(*tower_grads)]


def _towers(devices, inputs, op):
    """One ``(scope, inputs)`` pair per device: a context manager and that tower's batch slice."""
    devices = [devices] if isinstance(devices, (str, tf.DeviceSpec)) else list(devices)
    if not devices:
        raise ValueError(f"{op}: devices is empty")
    for device in devices:
        if not isinstance(device, (str, tf.DeviceSpec)):
            raise TypeError(f"{op}: devices must be device names (strings) or tf.DeviceSpec, got {device!r}")
    if not inputs:
        raise ValueError(f"{op}: pass the batched inputs as keyword arguments")
    inputs = {k: _arguments.as_tensor(v, op=op, name=f"input {k!r}") for k, v in inputs.items()}
    _check_batch(op, inputs, len(devices))
    splits = {k: tf.split(v, len(devices), axis=0) for k, v in inputs.items()}
    return [(functools.partial(_tower_scope, i, device), {k: v[i] for k, v in splits.items()})
            for i, device in enumerate(devices)]


@contextlib.contextmanager
def _tower_scope(index, device):
    with contextlib.ExitStack() as scopes:
        scopes.enter_context(tf.device(device))
        scopes.enter_context(tf.name_scope(f"tower_{index}"))
        if not tf.compat.v1.executing_eagerly_outside_functions():  # TF1 graph: share get_variable
            scopes.enter_context(tf.compat.v1.variable_scope(
                tf.compat.v1.get_variable_scope(), reuse=tf.compat.v1.AUTO_REUSE))
        yield


def _scalar(loss):
    loss = tf.convert_to_tensor(loss)
    if loss.shape.rank != 0:
        raise ValueError(f"tower_gradients: loss_fn must return a scalar, got shape {loss.shape}")
    return loss


def _check_batch(op, inputs, count):
    sizes = {}
    for name, value in inputs.items():
        if value.shape.rank == 0:
            raise ValueError(f"{op}: input {name!r} is a scalar; inputs need a batch dimension")
        if value.shape.rank is not None and value.shape[0] is not None:
            sizes[name] = value.shape[0]
    if len(set(sizes.values())) > 1:
        raise ValueError(f"{op}: inputs have different batch sizes: {sizes}")
    for name, size in sizes.items():
        if size % count:
            raise ValueError(f"{op}: batch size {size} of {name!r} does not split evenly over "
                             f"{count} devices")


def _mean(grads):
    """Average one variable's gradients over the towers, keeping sparse gradients sparse."""
    if any(g is None for g in grads):
        if all(g is None for g in grads):
            return None
        raise ValueError("tower_gradients: a variable is connected to the loss in some towers only")
    if isinstance(grads[0], tf.IndexedSlices):
        return tf.IndexedSlices(tf.concat([g.values for g in grads], axis=0) / len(grads),
                                tf.concat([g.indices for g in grads], axis=0), grads[0].dense_shape)
    return tf.add_n(grads) / len(grads)
