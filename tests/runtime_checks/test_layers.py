"""Merge (broadcast-add of projections) and leaky_relu."""
import numpy as np
import pytest

RNG = np.random.default_rng(2)
A = RNG.normal(size=(3, 1, 2))   # [m, 1, d1]
B = RNG.normal(size=(1, 4, 5))   # [1, n, d2]


@pytest.fixture
def rc(tf):
    from tflint_effective import runtime_checks
    return runtime_checks


def merge_in_mode(tf, rc, mode, device, dtype, a, b, cotangent):
    """Return (output, [grad a, grad b], [kernel values]) of one Merge layer."""
    def run(layer, a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            out = layer([a, b])
            loss = tf.reduce_sum(out * tf.cast(cotangent, dtype))
        return out, tape.gradient(loss, [a, b]), [k.read_value() for k in layer.kernels]

    if mode == "eager":
        with tf.device(device):
            return _numpy(run(rc.Merge(6), tf.cast(a, dtype), tf.cast(b, dtype)))
    if mode == "function":
        with tf.device(device):
            return _numpy(tf.function(run)(rc.Merge(6), tf.cast(a, dtype), tf.cast(b, dtype)))
    with tf.Graph().as_default(), tf.device(device):
        result = run(rc.Merge(6), tf.cast(a, dtype), tf.cast(b, dtype))
        assert result[0].op.device == device
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            return _numpy(session.run(result))


def _numpy(structure):
    if isinstance(structure, (list, tuple)):
        return [_numpy(s) for s in structure]
    return np.asarray(structure.numpy() if hasattr(structure, "numpy") else structure).astype(np.float64)


def test_merge_equals_tile_concat_dense(rc, tf, mode, device, dtype, rounded, close):
    a, b = rounded(A, dtype), rounded(B, dtype)
    w = rounded(RNG.normal(size=(3, 4, 6)), dtype)
    out, (grad_a, grad_b), (k0, k1) = merge_in_mode(tf, rc, mode, device, dtype, A, B, w)
    # The tile + concat + dense form it replaces, in float64 (bias starts at zero).
    tiled = np.concatenate([np.broadcast_to(a, (3, 4, 2)), np.broadcast_to(b, (3, 4, 5))], axis=-1)
    pre = tiled @ np.concatenate([k0, k1])
    close(out, np.maximum(pre, 0), dtype, ulps=32)
    # the ReLU mask the op applied: near zero, a low-precision pre-activation may take the other side
    upstream = w * (_numpy(out) > 0)
    close(grad_a, (upstream @ k0.T).sum(axis=1, keepdims=True), dtype, ulps=64)
    close(grad_b, (upstream @ k1.T).sum(axis=0, keepdims=True), dtype, ulps=64)


def test_merge_reuses_its_weights(rc, tf):
    layer = rc.Merge(3, activation=None)
    first = layer([A, B])
    assert len(layer.trainable_variables) == 3
    np.testing.assert_allclose(layer([A, B]).numpy(), first.numpy())
    assert len(layer.trainable_variables) == 3
    with pytest.raises(ValueError, match=r"input depths \[2, 4\] differ from the first call's \[2, 5\]"):
        layer([A, B[..., :4]])


def test_merge_function_in_graph_mode(rc, tf):
    with tf.Graph().as_default():
        out = rc.merge([tf.constant(A), tf.constant(B)], 4, activation=tf.nn.tanh)
        assert out.shape.as_list() == [3, 4, 4]
        assert len(tf.compat.v1.trainable_variables()) == 3
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            assert np.abs(session.run(out)).max() < 1


@pytest.mark.parametrize("tensors, units, error, match", [
    ([A, B], 0, ValueError, "units must be a positive int"),
    ([], 3, TypeError, "non-empty list"),
    ([A, B[0]], 3, ValueError, r"ranks differ: \[3, 2\]"),
])
def test_merge_bad_arguments(rc, tensors, units, error, match):
    with pytest.raises(error, match=match):
        rc.merge(tensors, units)


def test_merge_needs_static_depths(rc, tf):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, None])
        with pytest.raises(ValueError, match="static last dimension"):
            rc.merge([x], 3)


@pytest.mark.parametrize("alpha", [0.2, 2.0])
def test_leaky_relu(rc, run, close, rounded, dtype, alpha):
    x = RNG.normal(size=(4, 5)) * 3
    xr = rounded(x, dtype)
    w = rounded(RNG.normal(size=x.shape), dtype)
    value, (grad,) = run(lambda t: rc.leaky_relu(t, alpha), x, dtype=dtype, cotangent=w)
    close(value, np.where(xr > 0, xr, alpha * xr), dtype, ulps=1)
    close(grad, np.where(xr > 0, w, alpha * w), dtype, ulps=1)


def test_leaky_relu_bad_arguments(rc):
    with pytest.raises(ValueError, match="alpha must be finite and non-negative"):
        rc.leaky_relu([1.0], alpha=-0.1)
    with pytest.raises(TypeError, match="leaky_relu: features must be a floating-point tensor, got int32"):
        rc.leaky_relu([1, 2])
