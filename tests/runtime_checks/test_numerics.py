"""Softmax family and Gaussian KL: values and gradients against float64 NumPy, in every mode."""
import numpy as np
import pytest


RNG = np.random.default_rng(0)
# Row 0 overflows exp() in every dtype; the naive forms give NaN/inf on it.
LOGITS = np.array([[1000.0, -1000.0, 0.0, 999.0, 1000.0],
                   [0.5, -1.25, 2.0, 0.0, 3.0],
                   RNG.normal(size=5) * 3])
# Rows are distributions; columns are not, so axis=0 checks the gradient for unnormalised
# labels, where the fused kernel's "softmax - labels" would be wrong.
LABELS = np.array([[0.5, 0.0, 0.0, 0.0, 0.5],
                   [0.0, 0.0, 1.0, 0.0, 0.0],
                   [0.125, 0.25, 0.125, 0.25, 0.25]])
# Columns: equal tiny variances, equal huge variances, ordinary values; row 1 column 0 has
# var_p / var_q = exp(100), which overflows float32 in the naive form.
Q_MEAN = np.array([[0.0, 1.0, -2.0, 0.5], [0.0, 3.0, 0.0, 1.0]])
Q_LOG_VAR = np.array([[-50.0, 50.0, 0.0, 1.0], [-50.0, 50.0, 0.3, -2.0]])
P_MEAN = np.array([[0.0, 1.5, 1.0, 0.0], [0.0, 3.0, 0.25, 1.0]])
P_LOG_VAR = np.array([[-50.0, 50.0, 0.5, -1.0], [50.0, 50.0, 0.0, -2.0]])


def _axes(x, axis):
    return tuple(range(x.ndim)) if axis is None else axis


def ref_log_softmax(x, axis):
    shifted = x - x.max(axis=_axes(x, axis), keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=_axes(x, axis), keepdims=True))


def _sum(x, axis):
    return x.sum(axis=_axes(x, axis), keepdims=True)


@pytest.fixture
def rc(tf):
    from tflint_effective import runtime_checks
    return runtime_checks


def cotangent_like(shape):
    return RNG.uniform(-1, 1, size=shape)


@pytest.mark.parametrize("axis", [-1, 0, None])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_family(rc, run, close, rounded, dtype, name, axis):
    x = rounded(LOGITS, dtype)
    w = rounded(cotangent_like(x.shape), dtype)
    value, (grad,) = run(lambda t: getattr(rc, name)(t, axis=axis), LOGITS, dtype=dtype, cotangent=w)
    log_p = ref_log_softmax(x, axis)
    p = np.exp(log_p)
    if name == "softmax":
        expected, expected_grad = p, p * (w - _sum(p * w, axis))
    else:
        expected, expected_grad = log_p, w - p * _sum(w, axis)
    assert value.shape == x.shape
    close(value, expected, dtype)
    close(grad, expected_grad, dtype)


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_softmax_cross_entropy(rc, run, close, rounded, dtype, axis):
    labels, x = rounded(LABELS, dtype), rounded(LOGITS, dtype)
    log_p = ref_log_softmax(x, axis)
    expected = -(labels * log_p).sum(axis=_axes(x, axis))
    w = rounded(cotangent_like(expected.shape), dtype)
    w_full = np.expand_dims(w, _axes(x, axis)) if axis is not None else w
    value, (grad_labels, grad_logits) = run(
        lambda lab, t: rc.softmax_cross_entropy(lab, t, axis=axis), LABELS, LOGITS, dtype=dtype, cotangent=w)
    close(value, expected, dtype)
    close(grad_logits, (np.exp(log_p) * _sum(labels, axis) - labels) * w_full, dtype)
    close(grad_labels, -log_p * w_full, dtype)


def test_cross_entropy_with_extra_label_dimensions(rc, tf, close):
    """Labels broadcast with a leading dimension; a positive axis still names the logits' class axis."""
    labels = np.stack([LABELS, LABELS[::-1]])
    value = rc.softmax_cross_entropy(labels, LOGITS, axis=1)
    expected = -(labels * ref_log_softmax(LOGITS, -1)).sum(axis=-1)
    assert value.shape == (2, 3)
    close(value, expected, "float64")


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_softmax_entropy(rc, run, close, rounded, dtype, axis):
    x = rounded(LOGITS, dtype)
    log_p = ref_log_softmax(x, axis)
    p = np.exp(log_p)
    entropy = -(p * log_p).sum(axis=_axes(x, axis), keepdims=True)
    w = rounded(cotangent_like(np.squeeze(entropy, _axes(x, axis)).shape), dtype)
    w_full = np.expand_dims(w, _axes(x, axis)) if axis is not None else w
    value, (grad,) = run(lambda t: rc.softmax_entropy(t, axis=axis), LOGITS, dtype=dtype, cotangent=w)
    close(value, np.squeeze(entropy, _axes(x, axis)), dtype)
    close(grad, -p * (log_p + entropy) * w_full, dtype)


def test_gaussian_kl(rc, run, close, rounded, dtype):
    mq, lq, mp, lp = (rounded(a, dtype) for a in (Q_MEAN, Q_LOG_VAR, P_MEAN, P_LOG_VAR))
    diff, ratio, inv_var_p = mq - mp, np.exp(lq - lp), np.exp(-lp)
    expected = 0.5 * (ratio - (lq - lp) - 1 + diff ** 2 * inv_var_p).sum(axis=-1)
    w = rounded(cotangent_like(expected.shape), dtype)[:, None]
    value, grads = run(lambda a, b, c, d: rc.gaussian_kl((a, b), (c, d)),
                       Q_MEAN, Q_LOG_VAR, P_MEAN, P_LOG_VAR, dtype=dtype, cotangent=w[:, 0])
    close(value, expected, dtype)
    expected_grads = [diff * inv_var_p * w, 0.5 * (ratio - 1) * w,
                      -diff * inv_var_p * w, 0.5 * (1 - ratio - diff ** 2 * inv_var_p) * w]
    for grad, expected_grad in zip(grads, expected_grads):
        close(grad, expected_grad, dtype)


def test_gaussian_kl_defaults_to_standard_normal(rc, close):
    mean, log_var = np.array([[0.5, -1.0]]), np.array([[0.0, 2.0]])
    expected = 0.5 * (np.exp(log_var) - log_var - 1 + mean ** 2).sum(axis=-1)
    close(rc.gaussian_kl((mean, log_var)), expected, "float64")
    close(rc.gaussian_kl((mean, log_var), axis=None), expected.sum(), "float64")


def test_naive_forms_fail_on_these_inputs(tf, rc):
    """The extreme rows above are where the naive forms break (so the tests above mean something)."""
    x = tf.constant(LOGITS, tf.float32)
    labels = tf.constant(LABELS, tf.float32)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        naive_p = tf.exp(x) / tf.reduce_sum(tf.exp(x), axis=-1, keepdims=True)
        naive_xent = -tf.reduce_sum(labels * tf.math.log(naive_p), axis=-1)
        stable_xent = rc.softmax_cross_entropy(labels, x)
    assert np.isnan(naive_p.numpy()[0]).any() and np.isfinite(rc.softmax(x).numpy()).all()
    assert not np.isfinite(naive_xent.numpy()[0])
    assert np.isnan(tape.gradient(naive_xent, x).numpy()[0]).any()
    assert np.isfinite(tape.gradient(stable_xent, x).numpy()).all()
    var_q, var_p = tf.exp(tf.constant(Q_LOG_VAR, tf.float32)), tf.exp(tf.constant(P_LOG_VAR, tf.float32))
    assert np.isinf(tf.math.log(var_p / var_q).numpy()[1, 0])
    kl = rc.gaussian_kl((tf.constant(Q_MEAN, tf.float32), tf.constant(Q_LOG_VAR, tf.float32)),
                        (tf.constant(P_MEAN, tf.float32), tf.constant(P_LOG_VAR, tf.float32)))
    assert np.isfinite(kl.numpy()).all()


@pytest.mark.parametrize("name", ["softmax_entropy", "gaussian_kl"])
def test_numeric_jacobian_matches(tf, rc, name):
    """tf.test.compute_gradient: symbolic vs finite-difference Jacobians (moderate inputs)."""
    if name == "softmax_entropy":
        fn, args = rc.softmax_entropy, [LOGITS[1:]]
    else:
        def fn(mq, lq):
            return rc.gaussian_kl((mq, lq), (P_MEAN[:, 2:], P_LOG_VAR[:, 2:]))
        args = [Q_MEAN[:, 2:], Q_LOG_VAR[:, 2:]]
    theoretical, numerical = tf.test.compute_gradient(fn, [tf.constant(a) for a in args])
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_all_elements_of_unknown_rank(rc, run, close, mode, name):
    """axis=None normalises over every element even when the rank is unknown at trace time."""
    x = RNG.normal(size=(2, 3, 4)) * 10
    value = run(lambda t: getattr(rc, name)(t, axis=None), x, static=False)
    expected = ref_log_softmax(x, None)
    close(value, np.exp(expected) if name == "softmax" else expected, "float64")
    assert value.shape == x.shape


def test_softmax_keeps_static_shape_in_graph_mode(tf, rc):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 7, 3])
        assert rc.softmax(x, axis=None).shape.as_list() == [None, 7, 3]
        assert rc.softmax_entropy(x, axis=1).shape.as_list() == [None, 3]


@pytest.mark.parametrize("call, error, match", [
    (lambda rc: rc.softmax([1, 2]), TypeError, "softmax: logits must be a floating-point tensor, got int32"),
    (lambda rc: rc.softmax_entropy(np.arange(3)), TypeError, "softmax_entropy: logits .* got int64"),
    (lambda rc: rc.log_softmax([[1.0, 2.0]], axis=2), ValueError, "axis 2 is out of range for a tensor of rank 2"),
    (lambda rc: rc.softmax([1.0], axis="rows"), TypeError, "axis must be an int, a scalar integer tensor or None"),
    (lambda rc: rc.softmax_entropy(np.ones([2, 3]), axis=-3), ValueError, "out of range"),
    (lambda rc: rc.softmax_cross_entropy(rc.softmax([1.0]), np.ones(1)), TypeError, "labels is float32 but"),
    (lambda rc: rc.softmax_cross_entropy(np.ones([2]), np.ones([3])), ValueError, "do not broadcast"),
    (lambda rc: rc.gaussian_kl(np.ones(3)), TypeError, r"q must be a \(mean, log_variance\) pair"),
    (lambda rc: rc.gaussian_kl((np.ones(3), np.ones(2))), ValueError, "do not broadcast"),
])
def test_bad_arguments_raise_clear_errors(rc, call, error, match):
    with pytest.raises(error, match=match):
        call(rc)
