"""weighted_logsumexp: exact values and gradients, zero weights included, in every dtype and mode."""
import numpy as np
import pytest

RNG = np.random.default_rng(11)
# Row 0 overflows exp() in every dtype; zero weights sit on the largest entries of rows 0 and 2.
X = np.array([[1000.0, 999.0, -1000.0, 998.0],
              [0.5, -1.25, 2.0, 0.0],
              [5.0, 0.25, -3.0, 1.5]])
WEIGHTS = np.array([[0.0, 0.5, 1.0, 0.25],
                    [0.125, 0.0, 0.75, 1.0],
                    [0.0, 0.0, 0.5, 0.0]])


@pytest.fixture
def rc(tf):
    from tflint_effective import runtime_checks
    return runtime_checks


def reference(x, w, axis):
    """Value and both gradients in long double, for non-negative weights with a nonzero per row."""
    x, w = np.broadcast_arrays(x.astype(np.longdouble), w.astype(np.longdouble))
    live = np.where(w != 0, x, -np.inf)
    top = live.max(axis=axis, keepdims=True)
    result = top + np.log((w * np.exp(live - top)).sum(axis=axis, keepdims=True))
    share = np.exp(x - result)
    return result, w * np.where(w != 0, share, 0), share


@pytest.mark.parametrize("axis", [-1, 0, None, [0, 1]])
def test_values_and_gradients(rc, run, close, rounded, dtype, axis):
    x, w = rounded(X, dtype), rounded(WEIGHTS, dtype)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    result, grad_x, grad_w = reference(x, w, np_axis)
    cot = rounded(RNG.uniform(0.5, 1.0, size=np.squeeze(result, np_axis).shape), dtype)
    cot_full = np.expand_dims(cot, np_axis) if np_axis is not None else cot
    value, (gx, gw) = run(lambda a, b: rc.weighted_logsumexp(a, b, axis), X, WEIGHTS, dtype=dtype,
                          cotangent=cot)
    with np.errstate(over="ignore"):  # shares beyond float64 (exp(1000 - 0)) are inf in any dtype
        close(value, np.squeeze(result, np_axis).astype(np.float64), dtype)
        close(gx, (grad_x * cot_full).astype(np.float64), dtype)
        close(gw, (grad_w * cot_full).astype(np.float64), dtype)
    if axis == -1:  # the zero weight on the largest entry still learns (not so along other axes:
        assert np.isfinite(gw[0, 0]) and gw[0, 0] > 0  # exp(1000 - ~0) is inf there, truly)


def test_weights_broadcast_and_keepdims(rc, run, close, rounded, dtype):
    x, w = rounded(X, dtype), rounded(WEIGHTS[1], dtype)
    result, grad_x, grad_w = reference(x, w, -1)
    value, (gx, gw) = run(lambda a, b: rc.weighted_logsumexp(a, b, axis=-1, keepdims=True), X, WEIGHTS[1],
                          dtype=dtype, cotangent=np.ones([3, 1]))
    assert value.shape == (3, 1) and gw.shape == (4,)
    close(value, result.astype(np.float64), dtype)
    close(gx, grad_x.astype(np.float64), dtype)
    close(gw, grad_w.sum(axis=0).astype(np.float64), dtype)


def test_log_of_weights_gives_nan_gradients_where_this_does_not(rc, tf):
    """The form TFE405 warns against: reduce_logsumexp(log(w) + x) has a NaN gradient at w = 0."""
    x, w = tf.constant(X[1:2]), tf.constant(WEIGHTS[1:2])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(w)
        naive = tf.reduce_logsumexp(tf.math.log(w) + x, axis=-1)
        ours = rc.weighted_logsumexp(x, w, axis=-1)
    np.testing.assert_allclose(ours.numpy(), naive.numpy(), rtol=1e-15)
    assert np.isnan(tape.gradient(naive, w).numpy()[0, 1])
    expected = np.exp(X[1] - ours.numpy()[0])
    np.testing.assert_allclose(tape.gradient(ours, w).numpy()[0], expected, rtol=1e-15)


def test_finite_differences(rc, tf):
    """Symbolic against finite-difference Jacobians at positive weights (a zero weight is the
    domain's boundary, where central differences step into negative totals)."""
    theoretical, numerical = tf.test.compute_gradient(
        lambda a, b: rc.weighted_logsumexp(a, b, axis=-1), [tf.constant(X[1:]), tf.constant(WEIGHTS[1:] + 0.25)],
        delta=1e-6)
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call, error, match", [
    (lambda rc: rc.weighted_logsumexp(X, WEIGHTS), TypeError, "missing 1 required positional argument: 'axis'"),
    (lambda rc: rc.weighted_logsumexp(X, WEIGHTS[:, :2], -1), ValueError, "do not broadcast"),
    (lambda rc: rc.weighted_logsumexp(X, rc.softmax(WEIGHTS.astype(np.float32)), -1), TypeError,
     "weights is float32"),
    (lambda rc: rc.weighted_logsumexp(X.astype(int), WEIGHTS, -1), TypeError, "x must be a floating-point"),
    (lambda rc: rc.weighted_logsumexp(X, WEIGHTS, 2), ValueError, "axis 2 is out of range"),
])
def test_bad_arguments(rc, call, error, match):
    with pytest.raises(error, match=match):
        call(rc)
