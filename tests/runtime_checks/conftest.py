"""Run one computation in each execution mode and compare it with float64 NumPy.

``run(fn, *arrays)`` executes ``fn`` on the arrays (floating ones cast to
``dtype``) on the test's ``device`` in the test's ``mode`` (eager, inside
tf.function, or TF1 graph mode with a Session) and returns NumPy results.
With ``cotangent=w`` it also returns the gradients of ``sum(fn(...) * w)``
with respect to the floating inputs, so that a reference vector-Jacobian
product can be compared; a random ``w`` keeps zero-sum gradients (softmax)
from passing vacuously.
"""
import numpy as np
import pytest

DTYPES = ["float16", "bfloat16", "float32", "float64"]
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52}


@pytest.fixture(params=["eager", "function", "graph"])
def mode(request):
    return request.param


@pytest.fixture(params=DTYPES)
def dtype(request):
    return request.param


@pytest.fixture
def rounded(tf):
    """The float64 values an array takes once stored in ``dtype`` (inputs of the references)."""
    def rounded(array, dtype):
        return tf.cast(tf.constant(array, tf.float64), dtype).numpy().astype(np.float64)
    return rounded


@pytest.fixture
def close():
    """``close(actual, expected, dtype, ulps=16)``: relative and absolute tolerance of ``ulps`` epsilons."""
    def close(actual, expected, dtype, ulps=16):
        tol = ulps * EPS[str(dtype)]
        np.testing.assert_allclose(np.asarray(actual, np.float64), expected, rtol=tol, atol=tol)
    return close


@pytest.fixture
def run(tf, mode, device):
    want = tf.DeviceSpec.from_string(device)

    def run(fn, *arrays, dtype="float64", cotangent=None, static=True):
        def cast(a):
            a = np.asarray(a)
            return tf.cast(a, dtype) if a.dtype.kind == "f" else tf.constant(a)

        def body(*xs):
            if cotangent is None:
                return fn(*xs)
            floats = [x for x in xs if x.dtype.is_floating]
            with tf.GradientTape() as tape:
                tape.watch(floats)
                y = fn(*xs)
                loss = tf.reduce_sum(y * tf.cast(cotangent, y.dtype))
            return y, tape.gradient(loss, floats)

        if mode in ("eager", "function"):
            with tf.device(device):
                specs = None if static else [tf.TensorSpec(None, cast(a).dtype) for a in arrays]
                call = body if mode == "eager" else tf.function(body, input_signature=specs)
                out = call(*map(cast, arrays))
            placed = tf.DeviceSpec.from_string(tf.nest.flatten(out)[0].device)
            assert (placed.device_type, placed.device_index) == (want.device_type, want.device_index)
            return _numpy(out)
        with tf.Graph().as_default(), tf.device(device):  # a graph has its own device stack
            xs = [cast(a) for a in arrays]
            if not static:
                xs = [tf.compat.v1.placeholder_with_default(x, shape=None) for x in xs]
            out = body(*xs)
            assert all(t.op.device == device for t in tf.nest.flatten(out))
            with tf.compat.v1.Session() as session:
                return _numpy(session.run(out))
    return run


def _numpy(structure):
    if isinstance(structure, (list, tuple)):
        return type(structure)(_numpy(s) for s in structure)
    array = np.asarray(structure.numpy() if hasattr(structure, "numpy") else structure)
    return array if array.dtype.kind in "biu" else array.astype(np.float64)
