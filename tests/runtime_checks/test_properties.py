"""Property-based tests of the numerical ops against a long-double NumPy reference.

Hypothesis draws shapes (rank 1 to 3, sizes 1 to 4), axes, ``-inf`` masks
(single entries and whole rows) and magnitudes up to half the dtype's largest
finite number; the inputs are rounded to the dtype and the exact values and
vector-Jacobian products are computed from the rounded inputs in long double.
Every dtype runs in every mode (the ``run`` fixture).  Pass condition:
``|actual - exact| <= 16 eps * max(|exact|, 1)`` (relative, absolute near
zero); an exact value beyond the dtype's range must come out as the infinity
of its sign, and NaN exactly where the reference is NaN.  Gradients must be
finite wherever the exact gradient is, and on well-conditioned float64 points
they must match central differences.  NaN and ``+inf`` inputs are covered
exactly in test_special_values.py.  Means in gaussian_kl stay 0 or at least
1e-6 in magnitude, away from its documented limit (a tiny nonzero difference
of means under a prior log-variance below about -177 overflows).
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

pytestmark = [pytest.mark.slow, pytest.mark.tensorflow,  # the references meet inf on purpose:
              pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning",
                                         "ignore:invalid value encountered:RuntimeWarning",
                                         "ignore:divide by zero encountered:RuntimeWarning")]

EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52}
LARGEST = {"float16": 65504.0, "bfloat16": 3.3895e38, "float32": 3.4028e38, "float64": 1.7976e308}
ULPS = 16
# No shrinking: every step would rerun TensorFlow; the failing example is reported as drawn.
EXAMPLES = settings(derandomize=True, deadline=None, max_examples=20, database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
LD = np.longdouble
NEG = -np.inf


@pytest.fixture
def rc(tf):
    from tflint_effective import runtime_checks
    return runtime_checks


# ---------------------------------------------------------------- strategies

def element(dtype, masks=True):
    """Moderate values, values within three decades of half the dtype's range, anything in
    between (hypothesis' own spread, tiny ones included), and -inf."""
    big = 0.5 * LARGEST[dtype]
    large = st.tuples(st.sampled_from([-1.0, 1.0]), st.floats(1e-3, 1.0)).map(lambda t: t[0] * t[1] * big)
    choices = [st.floats(-30, 30), large, st.floats(-big, big)] + ([st.just(NEG)] if masks else [])
    return st.one_of(*choices)


@st.composite
def case(draw, dtype, single_axis=True, masks=True, moderate=False):
    """(array, axis): a whole row along axis may be masked."""
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    axes = list(range(-rank, rank)) + [None]
    if not single_axis:
        axes.append(draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True)))
    axis = draw(st.sampled_from(axes))
    values = st.floats(-10, 10) if moderate else element(dtype, masks)
    x = np.array(draw(st.lists(values, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))).reshape(shape)
    if masks and isinstance(axis, int) and draw(st.sampled_from([True, True, False])):
        index = [draw(st.integers(0, n - 1)) for n in shape]
        index[axis] = slice(None)
        x[tuple(index)] = NEG
    return x, axis


def nonnegative(draw, shape, zeros=True):
    values = st.one_of(st.just(0.0), st.floats(1e-3, 4.0)) if zeros else st.floats(0.25, 4.0)
    return np.array(draw(st.lists(values, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
                    ).reshape(shape)


# ---------------------------------------------------------------- references (long double)

def axes_of(x, axis):
    if axis is None:
        return tuple(range(x.ndim))
    return tuple(a % x.ndim for a in (axis if isinstance(axis, (list, tuple)) else [axis]))


def log_softmax(x, axis, masked_rows=False):
    """TensorFlow's log_softmax; with masked_rows, a fully masked row is -inf throughout."""
    top = x.max(axis=axis, keepdims=True)
    if masked_rows:
        top = np.where(top == NEG, 0, top)
    z = x - top
    total = np.exp(z).sum(axis=axis, keepdims=True)
    return z - np.log(np.where(total == 0, 1, total) if masked_rows else total)


def ref_softmax(x, w, axis):
    p = np.exp(log_softmax(x, axis))
    return p, p * (w - (p * w).sum(axis=axis, keepdims=True))


def ref_log_softmax(x, w, axis):
    log_p = log_softmax(x, axis)
    return log_p, w - np.exp(log_p) * w.sum(axis=axis, keepdims=True)


def ref_entropy(x, w, axis):
    log_p = log_softmax(x, axis, masked_rows=True)
    p, finite = np.exp(log_p), np.where(log_p == NEG, 0, log_p)
    entropy = -(p * finite).sum(axis=axis, keepdims=True)
    return entropy, -p * (finite + entropy) * w


def ref_cross_entropy(labels, x, w, axis):
    log_p = log_softmax(x, axis, masked_rows=True)
    masked = log_p == NEG
    finite = np.where(masked, 0, log_p)
    infinite = np.where((masked & (labels != 0)).any(axis=axis, keepdims=True), np.inf, 0)
    loss = -(labels * finite).sum(axis=axis, keepdims=True) + infinite
    grad_logits = w * (np.exp(log_p) * labels.sum(axis=axis, keepdims=True) - labels)
    return loss, -w * finite, grad_logits


def ref_gaussian_kl(mq, lq, mp, lp, w, axis):
    r, d = lq - lp, mq - mp
    with np.errstate(invalid="ignore", over="ignore"):
        variance = np.where(np.isinf(r), np.inf, np.expm1(r) - r)
        mean = np.where(d == 0, 0, d * d * np.exp(-lp))
        grad_mq = np.where(d == 0, 0, d * np.exp(-lp)) * w
    kl = 0.5 * (variance + mean).sum(axis=axis, keepdims=True)
    grad_lq = 0.5 * np.expm1(r) * w
    return kl, [grad_mq, grad_lq, -grad_mq, -grad_lq - 0.5 * mean * w]


def ref_weighted_logsumexp(x, weights, w, axis):
    live = np.where(weights != 0, x, NEG)
    top = live.max(axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    total = (weights * np.exp(live - top)).sum(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", over="ignore"):
        result = np.log(total) + top
        # exp(x - result) without rounding result: at 1e19 a long double cannot hold log(total)
        share = np.where(total == 0, 0, np.exp((x - top) - np.log(np.where(total == 0, 1, total))) * w)
    return result, np.where(weights != 0, weights * share, 0), share


# ---------------------------------------------------------------- comparison

def assert_matches(actual, exact, dtype, what):
    """|actual - exact| <= 16 eps max(|exact|, 1); beyond the dtype's range, the signed infinity."""
    exact = np.asarray(exact, LD)
    actual = np.broadcast_to(np.asarray(actual, np.float64).astype(LD), exact.shape)
    nan = np.isnan(exact)
    assert np.array_equal(np.isnan(actual), nan), f"{what}: NaN at {np.argwhere(np.isnan(actual) != nan)[:3]}"
    tol = ULPS * EPS[dtype]
    with np.errstate(invalid="ignore", over="ignore"):
        overflow = np.abs(exact) >= LARGEST[dtype] * (1 - tol)
        infinite_ok = overflow & (actual == np.copysign(np.inf, exact))
        error = np.where(actual == exact, 0, np.abs(actual - exact))
        ok = nan | infinite_ok | (error <= tol * np.maximum(np.abs(exact), 1))
    bad = np.argwhere(~ok)
    assert ok.all(), (f"{what} ({dtype}): {len(bad)} entries off, e.g. at {tuple(bad[0])}: "
                      f"{actual[tuple(bad[0])]!r} vs exact {exact[tuple(bad[0])]!r}")


def assert_finite_where_exact_is(actual, exact, dtype, what):
    with np.errstate(invalid="ignore"):
        representable = np.isfinite(exact) & (np.abs(exact) < LARGEST[dtype] * (1 - ULPS * EPS[dtype]))
    assert np.isfinite(np.broadcast_to(actual, representable.shape)[representable]).all(), what


def squeezed(value, x, axis, keepdims=False):
    return value if keepdims else np.squeeze(value, axes_of(x, axis))


def cotangent(data, tf_shape, rounded, dtype):
    seed = data.draw(st.integers(0, 2 ** 16))
    return rounded(np.random.default_rng(seed).uniform(-1, 1, size=tf_shape), dtype)


def ld(rounded, array, dtype):
    return rounded(array, dtype).astype(LD)


# ---------------------------------------------------------------- properties

@EXAMPLES
@given(data=st.data())
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_family(rc, run, rounded, dtype, name, data):
    x, axis = data.draw(case(dtype))
    w = cotangent(data, x.shape, rounded, dtype)
    reference = ref_softmax if name == "softmax" else ref_log_softmax
    value, grad = reference(ld(rounded, x, dtype), w.astype(LD), axes_of(x, axis))
    actual, (actual_grad,) = run(lambda t: getattr(rc, name)(t, axis=axis), x, dtype=dtype, cotangent=w)
    assert_matches(actual, value, dtype, f"{name} value")
    assert_matches(actual_grad, grad, dtype, f"{name} gradient")
    assert_finite_where_exact_is(actual_grad, grad, dtype, f"{name} gradient")


@EXAMPLES
@given(data=st.data())
def test_softmax_entropy(rc, run, rounded, dtype, data):
    x, axis = data.draw(case(dtype))
    xs = ld(rounded, x, dtype)
    shape = squeezed(np.zeros_like(xs).sum(axis=axes_of(x, axis), keepdims=True), x, axis).shape
    w = cotangent(data, shape, rounded, dtype)
    w_full = w.reshape(np.zeros_like(xs).sum(axis=axes_of(x, axis), keepdims=True).shape).astype(LD)
    value, grad = ref_entropy(xs, w_full, axes_of(x, axis))
    actual, (actual_grad,) = run(lambda t: rc.softmax_entropy(t, axis=axis), x, dtype=dtype, cotangent=w)
    assert_matches(actual, squeezed(value, x, axis), dtype, "entropy value")
    assert_matches(actual_grad, grad, dtype, "entropy gradient")
    assert_finite_where_exact_is(actual_grad, grad, dtype, "entropy gradient")


@EXAMPLES
@given(data=st.data())
def test_softmax_cross_entropy(rc, run, rounded, dtype, data):
    x, axis = data.draw(case(dtype))
    labels = nonnegative(data.draw, x.shape)
    xs, ls = ld(rounded, x, dtype), ld(rounded, labels, dtype)
    kept = np.zeros_like(xs).sum(axis=axes_of(x, axis), keepdims=True).shape
    w = cotangent(data, squeezed(np.zeros(kept), x, axis).shape, rounded, dtype)
    value, grad_labels, grad_logits = ref_cross_entropy(ls, xs, w.reshape(kept).astype(LD), axes_of(x, axis))
    actual, (actual_labels, actual_logits) = run(lambda a, b: rc.softmax_cross_entropy(a, b, axis=axis),
                                                 labels, x, dtype=dtype, cotangent=w)
    assert_matches(actual, squeezed(value, x, axis), dtype, "cross-entropy value")
    assert_matches(actual_labels, grad_labels, dtype, "cross-entropy label gradient")
    assert_matches(actual_logits, grad_logits, dtype, "cross-entropy logit gradient")
    assert_finite_where_exact_is(actual_logits, grad_logits, dtype, "cross-entropy logit gradient")


@st.composite
def kl_case(draw, dtype):
    x, axis = draw(case(dtype, single_axis=False))
    big = 0.5 * LARGEST[dtype]
    mean = st.one_of(st.just(0.0), st.floats(-30, 30), st.floats(-big, big)).map(
        lambda v: v if abs(v) >= 1e-6 else 0.0)
    means = [np.array(draw(st.lists(mean, min_size=x.size, max_size=x.size))).reshape(x.shape) for _ in "qp"]
    log_var_p = np.array(draw(st.lists(element(dtype), min_size=x.size, max_size=x.size))).reshape(x.shape)
    return means[0], x, means[1], log_var_p, axis


@EXAMPLES
@given(data=st.data())
def test_gaussian_kl(rc, run, rounded, dtype, data):
    mq, lq, mp, lp, axis = data.draw(kl_case(dtype))
    args = [ld(rounded, a, dtype) for a in (mq, lq, mp, lp)]
    kept = np.zeros_like(args[0]).sum(axis=axes_of(mq, axis), keepdims=True).shape
    w = cotangent(data, squeezed(np.zeros(kept), mq, axis).shape, rounded, dtype)
    value, grads = ref_gaussian_kl(*args, w.reshape(kept).astype(LD), axes_of(mq, axis))
    actual, actual_grads = run(lambda a, b, c, d: rc.gaussian_kl((a, b), (c, d), axis=axis),
                               mq, lq, mp, lp, dtype=dtype, cotangent=w)
    assert_matches(actual, squeezed(value, mq, axis), dtype, "KL value")
    for part, got, exact in zip(["q mean", "q log-variance", "p mean", "p log-variance"], actual_grads, grads):
        assert_matches(got, exact, dtype, f"KL gradient w.r.t. {part}")
        assert_finite_where_exact_is(got, exact, dtype, f"KL gradient w.r.t. {part}")


@EXAMPLES
@given(data=st.data())
def test_weighted_logsumexp(rc, run, rounded, dtype, data):
    x, axis = data.draw(case(dtype, single_axis=False))
    weights = nonnegative(data.draw, x.shape)
    xs, ws = ld(rounded, x, dtype), ld(rounded, weights, dtype)
    kept = np.zeros_like(xs).sum(axis=axes_of(x, axis), keepdims=True).shape
    w = cotangent(data, squeezed(np.zeros(kept), x, axis).shape, rounded, dtype)
    value, grad_x, grad_weights = ref_weighted_logsumexp(xs, ws, w.reshape(kept).astype(LD), axes_of(x, axis))
    actual, (actual_x, actual_weights) = run(lambda a, b: rc.weighted_logsumexp(a, b, axis), x, weights,
                                             dtype=dtype, cotangent=w)
    assert_matches(actual, squeezed(value, x, axis), dtype, "weighted logsumexp value")
    assert_matches(actual_x, grad_x, dtype, "weighted logsumexp x gradient")
    assert_matches(actual_weights, grad_weights, dtype, "weighted logsumexp weight gradient")
    assert_finite_where_exact_is(actual_weights, grad_weights, dtype, "weighted logsumexp weight gradient")


# ---------------------------------------------------------------- finite differences (float64)

def well_conditioned(name, rc, data):
    """fn, its float64 inputs, and which entries may be perturbed (not -inf, not a zero weight)."""
    masks = name in ("softmax_entropy", "softmax_cross_entropy")  # defined on fully masked rows
    x, axis = data.draw(case("float64", single_axis=name != "weighted_logsumexp", masks=masks, moderate=True))
    free = np.isfinite(x)
    if name == "softmax_cross_entropy":
        labels = np.where(free, nonnegative(data.draw, x.shape), 0.0)  # no label on a masked class
        return lambda a, b: rc.softmax_cross_entropy(a, b, axis), [labels, x], [free, free]
    if name == "gaussian_kl":
        parts = [np.array(data.draw(st.lists(st.floats(-5, 5), min_size=x.size, max_size=x.size))).reshape(x.shape)
                 for _ in range(3)]
        return (lambda a, b, c, d: rc.gaussian_kl((a, b), (c, d), axis), [parts[0], x, parts[1], parts[2]],
                [free] * 4)
    if name == "weighted_logsumexp":
        weights = nonnegative(data.draw, x.shape, zeros=False)
        return lambda a, b: rc.weighted_logsumexp(a, b, axis), [x, weights], [free, free]
    return (lambda a: getattr(rc, name)(a, axis=axis)), [x], [free]


@EXAMPLES
@given(data=st.data())
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmax_entropy", "softmax_cross_entropy",
                                  "gaussian_kl", "weighted_logsumexp"])
def test_gradients_match_central_differences(rc, tf, run, name, data):
    fn, arrays, free = well_conditioned(name, rc, data)
    out_shape = fn(*(tf.constant(a) for a in arrays)).shape
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    w = rng.uniform(-1, 1, size=out_shape)
    directions = [np.where(f, rng.uniform(-1, 1, size=a.shape), 0.0) for a, f in zip(arrays, free)]
    _, grads = run(fn, *arrays, cotangent=w)
    slope = sum(np.sum(g * d) for g, d in zip(grads, directions))
    h = 1e-6

    def loss(step):
        moved = [tf.constant(a + step * d) for a, d in zip(arrays, directions)]
        return float(np.sum(fn(*moved).numpy() * w))

    numeric = (loss(h) - loss(-h)) / (2 * h)
    scale = max(1.0, sum(float(np.sum(np.abs(g * d))) for g, d in zip(grads, directions)))
    assert abs(numeric - slope) <= 1e-6 * scale, (numeric, slope)
