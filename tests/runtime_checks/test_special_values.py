"""What each numerical op returns for -inf, +inf and NaN entries and fully masked rows.

Every case is the one its docstring documents, checked for values and
gradients in every dtype and mode (the ``run`` fixture).  Row 2 masks with
-1e9, which is -inf in float16 and finite in the other dtypes: the results
must not depend on which.
"""
import numpy as np
import pytest

NEG, POS, NAN = -np.inf, np.inf, np.nan
LOGITS = np.array([
    [0.0, NEG, 1.5, NEG],      # partly masked
    [NEG, NEG, NEG, NEG],      # fully masked
    [0.0, -1e9, 1.5, -1e9],    # masked with -1e9
    [0.0, 2.0, NAN, 1.0],      # NaN
    [0.0, POS, 1.0, 2.0],      # +inf
])
LIVE = [0, 2]  # the unmasked columns of rows 0 and 2
P_LIVE = np.exp([0.0, 1.5]) / np.exp([0.0, 1.5]).sum()
LOG_P_LIVE = np.log(P_LIVE)
ENTROPY_LIVE = -(P_LIVE * LOG_P_LIVE).sum()
LABELS = np.array([[0.25, 0, 0.75, 0], [0, 0, 0, 0], [0.25, 0, 0.75, 0], [1, 0, 0, 0], [0, 1, 0, 0]])
RNG = np.random.default_rng(7)
W_ROWS = RNG.uniform(0.5, 1.0, size=5)
W_FULL = RNG.uniform(-1.0, 1.0, size=LOGITS.shape)


@pytest.fixture
def rc(tf):
    from tflint_effective import runtime_checks
    return runtime_checks


def rows(values, masked=0.0):
    """A [5, 4] array with ``values`` in the live columns of rows 0 and 2, ``masked`` elsewhere there,
    zeros in the fully masked row 1, NaN in rows 3 and 4."""
    out = np.full(LOGITS.shape, np.nan)
    out[[0, 2]] = masked
    out[1] = 0.0
    for i, r in enumerate((0, 2)):
        out[r, LIVE] = values[i] if np.ndim(values) == 2 else values
    return out


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_and_log_softmax(rc, run, close, rounded, dtype, name):
    w = rounded(W_FULL, dtype)
    value, (grad,) = run(getattr(rc, name), LOGITS, dtype=dtype, cotangent=w)
    expected = rows(P_LIVE) if name == "softmax" else rows(LOG_P_LIVE, masked=NEG)
    expected[1] = np.nan  # a fully masked row has no distribution: NaN, as tf.nn.softmax
    live_w = w[[0, 2]][:, LIVE]
    if name == "softmax":
        grad_live = P_LIVE * (live_w - (P_LIVE * live_w).sum(axis=1, keepdims=True))
        expected_grad = rows(grad_live)
    else:  # a masked entry passes its upstream gradient through: d log p_i / d x_i = 1 - p_i = 1
        expected_grad = rows(live_w - P_LIVE * w[[0, 2]].sum(axis=1, keepdims=True))
        expected_grad[[0, 2]] = np.where(np.isin(np.arange(4), LIVE), expected_grad[[0, 2]], w[[0, 2]])
    expected_grad[1] = np.nan
    if dtype != "float16" and name == "log_softmax":  # -1e9 is finite: its log-probability too
        expected[2, [1, 3]] = rounded(LOGITS, dtype)[2, [1, 3]] - (1.5 - LOG_P_LIVE[1])
    if name == "softmax":  # NaN at the NaN / +inf entry; the rest of the row is 0 or NaN, by dtype
        assert np.isnan(value[3, 2]) and np.isnan(value[4, 1])
        assert np.all((value[3:] == 0) | np.isnan(value[3:]))
        value[3:] = np.nan
    close(value, expected, dtype)
    close(grad, expected_grad, dtype)


def test_softmax_entropy(rc, run, close, rounded, dtype):
    w = rounded(W_ROWS, dtype)
    value, (grad,) = run(rc.softmax_entropy, LOGITS, dtype=dtype, cotangent=w)
    close(value, [ENTROPY_LIVE, 0.0, ENTROPY_LIVE, NAN, NAN], dtype)
    expected_grad = rows(-P_LIVE * (LOG_P_LIVE + ENTROPY_LIVE) * w[[0, 2], None])
    close(grad, expected_grad, dtype)
    np.testing.assert_array_equal(grad[[0, 1, 2]][:, [1, 3]], 0.0)  # masked classes: exactly zero
    np.testing.assert_array_equal(grad[1], 0.0)


def test_softmax_cross_entropy(rc, run, close, rounded, dtype):
    w = rounded(W_ROWS, dtype)
    value, (grad_labels, grad_logits) = run(rc.softmax_cross_entropy, LABELS, LOGITS, dtype=dtype,
                                            cotangent=w)
    live_labels = LABELS[0, LIVE]
    loss = -(live_labels * LOG_P_LIVE).sum()
    close(value, [loss, 0.0, loss, NAN, NAN], dtype)
    close(grad_logits, rows((P_LIVE * live_labels.sum() - live_labels) * w[[0, 2], None]), dtype)
    expected_labels = rows(-LOG_P_LIVE * w[[0, 2], None])
    if dtype != "float16":  # -1e9 is a finite logit there: its label gradient is -w * log p
        finite = rounded(LOGITS, dtype)[2, [1, 3]] - (1.5 - LOG_P_LIVE[1])
        expected_labels[2, [1, 3]] = -finite * w[2]
    close(grad_labels, expected_labels, dtype)
    np.testing.assert_array_equal(grad_logits[1], 0.0)
    np.testing.assert_array_equal(grad_labels[1], 0.0)


def test_positive_label_on_a_masked_class_costs_inf(rc, run, close, dtype):
    """+inf; the logit gradient is still p * sum(labels) - labels, the label gradient 0 there."""
    labels = np.array([[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
    w = np.array([1.0, 1.0])
    value, (grad_labels, grad_logits) = run(rc.softmax_cross_entropy, labels, LOGITS[:2], dtype=dtype,
                                            cotangent=w)
    np.testing.assert_array_equal(value, [POS, POS])
    close(grad_logits, [[P_LIVE[0], -1.0, P_LIVE[1], 0.0], [-1.0, 0.0, 0.0, 0.0]], dtype)
    close(grad_labels[0], [-LOG_P_LIVE[0], 0.0, -LOG_P_LIVE[1], 0.0], dtype)
    np.testing.assert_array_equal(grad_labels[1], 0.0)


def test_gaussian_kl(rc, run, close, rounded, dtype):
    big = {"float16": 6e4, "bfloat16": 1e30, "float32": 1e30, "float64": 1e300}[dtype]
    cases = np.array([  # q mean, q log-variance, p mean, p log-variance
        [0.5, -big, 0.5, -big],     # equal means, equal tiny variances: exactly 0 (was NaN)
        [0.5, 0.0, 0.5, -200.0],    # equal means: variance ratio e^200 (inf below float64)
        [0.0, 0.0, 0.0, NEG],       # p a point mass
        [0.0, NEG, 0.0, 0.0],       # q a point mass
        [0.0, NEG, 0.0, NEG],       # both point masses: undefined ratio
        [NAN, 0.0, 0.0, 0.0],
        [1.0, -big, 0.0, -big],     # different means, tiny prior variance: (1/var_p) overflows
        [1.0, 0.5, 0.0, -0.25],     # ordinary
    ])
    w = np.linspace(0.5, 1.0, len(cases))
    value, grads = run(lambda a, b, c, d: rc.gaussian_kl((a, b), (c, d)),
                       *(cases[:, i:i + 1] for i in range(4)), dtype=dtype, cotangent=w)
    lq, lp = rounded(0.5, dtype), rounded(-0.25, dtype)  # the ordinary row's inputs, as stored
    r = lq - lp
    expected = [0.0, 0.5 * (np.expm1(200.0) - 200.0), POS, POS, NAN, NAN, POS,
                0.5 * (np.expm1(r) - r + np.exp(-lp))]
    close(value, rounded(np.array(expected), dtype), dtype)  # rounded: e^200 overflows below float64
    mq_grad, lq_grad, mp_grad, lp_grad = (g[:, 0] for g in grads)
    for g in (mq_grad, lq_grad, mp_grad, lp_grad):
        np.testing.assert_array_equal(g[0], 0.0)  # no 0 * inf in the gradients either
    close([g[7] for g in (mq_grad, lq_grad, mp_grad, lp_grad)],
          [w[7] * np.exp(-lp), 0.5 * w[7] * np.expm1(r), -w[7] * np.exp(-lp),
           -0.5 * w[7] * (np.expm1(r) + np.exp(-lp))], dtype)
    assert np.isfinite([mq_grad[1], mp_grad[1]]).all() and mq_grad[1] == mp_grad[1] == 0.0


def test_weighted_logsumexp(rc, run, close, dtype):
    x = np.array([[1.0, 0.0, POS, NAN], [1.0, 2.0, 3.0, 4.0], [0.0, POS, 1.0, 2.0], [1.0, 2.0, 3.0, 4.0]])
    weights = np.array([[2.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0],
                        [-1.0, 0.0, 0.0, 0.0]])
    w = np.array([1.0, 0.75, 0.5, 0.25])
    value, (grad_x, grad_weights) = run(lambda a, b: rc.weighted_logsumexp(a, b, axis=-1), x, weights,
                                        dtype=dtype, cotangent=w)
    total = 2 * np.e + 1
    close(value, [np.log(total), NEG, POS, NAN], dtype)
    # Zero weights drop out of the value and the x gradient, even on +inf or NaN; their weight
    # gradient is the exact exp(x - result).
    close(grad_x[0], [2 * np.e / total, 1 / total, 0.0, 0.0], dtype)
    close(grad_weights[0], [np.e / total, 1 / total, POS, NAN], dtype)
    np.testing.assert_array_equal(grad_x[1], 0.0)  # no nonzero weight: -inf, zero gradients
    np.testing.assert_array_equal(grad_weights[1], 0.0)
    assert np.isnan(grad_x[2, 1]) and np.isnan(grad_weights[2, 1])  # at +inf: NaN, as reduce_logsumexp
    np.testing.assert_array_equal(grad_x[2, [0, 2, 3]], 0.0)


def test_gaussian_kl_near_the_largest_float(rc, run, close, rounded, dtype):
    """Three halves of 0.4 * max sum to 0.6 * max: finite, though the three unhalved terms overflow."""
    top = {"float16": 65504.0, "bfloat16": 3.3895e38, "float32": 3.4028e38, "float64": 1.7976e308}[dtype]
    log_var = rounded(np.full([1, 3], -0.4 * top), dtype)
    value = run(lambda a, b: rc.gaussian_kl((a, b)), np.zeros([1, 3]), log_var, dtype=dtype)
    close(value, 1.5 * (np.expm1(log_var[0, 0]) - log_var[0, 0]), dtype)
