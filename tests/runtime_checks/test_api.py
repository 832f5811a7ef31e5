"""Drop-in parity with tf.nn / tf.math: name=, keepdims=, tensor and NumPy axes, unknown ranks,
and clear errors for class ids, ragged inputs, scalar tower outputs and bad alphas."""
import numpy as np
import pytest

RNG = np.random.default_rng(5)
X = RNG.normal(size=(2, 3, 4)) * 3
LABELS = RNG.uniform(size=(2, 3, 4))
WEIGHTS = RNG.uniform(size=(2, 3, 4)) * (RNG.uniform(size=(2, 3, 4)) > 0.3)


@pytest.fixture
def rc(tf):
    from tflint_effective import runtime_checks
    return runtime_checks


def calls(rc, tf):
    """name -> fn(x, axis, **kwargs) for every op that takes an axis."""
    return {
        "softmax": rc.softmax, "log_softmax": rc.log_softmax, "softmax_entropy": rc.softmax_entropy,
        "softmax_cross_entropy": lambda x, axis, **k: rc.softmax_cross_entropy(tf.constant(LABELS), x, axis, **k),
        "gaussian_kl": lambda x, axis, **k: rc.gaussian_kl((x, 0.5 * x), (0.25, -1.0), axis, **k),
        "weighted_logsumexp": lambda x, axis, **k: rc.weighted_logsumexp(x, tf.constant(WEIGHTS), axis, **k),
        "reduce_sum": rc.reduce_sum, "reduce_mean": rc.reduce_mean,
        "reduce_max": rc.reduce_max, "reduce_min": rc.reduce_min,
    }


REDUCING = ["softmax_entropy", "softmax_cross_entropy", "gaussian_kl", "weighted_logsumexp",
            "reduce_sum", "reduce_mean", "reduce_max", "reduce_min"]
NAMES = ["softmax", "log_softmax"] + REDUCING


@pytest.mark.parametrize("op", NAMES)
def test_name_scopes_the_ops(rc, tf, op):
    with tf.Graph().as_default():
        out = calls(rc, tf)[op](tf.constant(X), 1, name="my_op")
        assert out.name.startswith("my_op"), out.name
        if op != "gaussian_kl":  # the pair's defaults are converted before the scope opens
            assert all(o.name.startswith("my_op") for o in tf.compat.v1.get_default_graph().get_operations()
                       if o.type not in ("Const", "Placeholder") and "Const" not in o.name), op


def test_name_elsewhere(rc, tf):
    with tf.Graph().as_default():
        x = tf.constant(X)
        named = {
            "reshape": rc.reshape(x, [0, [1, 2]], name="flat"),
            "batch_gather": rc.batch_gather(x, tf.constant([[0], [2]]), name="picked"),
            "leaky_relu": rc.leaky_relu(tf.cast(x, tf.float32), name="act"),
            "leaky_relu64": rc.leaky_relu(x, name="act64"),
            "with_assertions": rc.with_assertions(x, tf.debugging.assert_all_finite(x, "x"), name="checked"),
            "assert_same_rank": rc.assert_same_rank(x, tf.compat.v1.placeholder(tf.float64), name="ranks")[0],
        }
        prefixes = {"reshape": "flat", "batch_gather": "picked", "leaky_relu": "act", "leaky_relu64": "act64",
                    "with_assertions": "checked", "assert_same_rank": "ranks"}
        for key, tensor in named.items():
            assert tensor.name.startswith(prefixes[key] + "/") or tensor.name.startswith(prefixes[key] + ":"), \
                (key, tensor.name)


@pytest.mark.parametrize("op", REDUCING)
def test_keepdims(rc, tf, op):
    fn = calls(rc, tf)[op]
    for axis in (1, None):
        kept, dropped = fn(tf.constant(X), axis, keepdims=True), fn(tf.constant(X), axis)
        expected_shape = (2, 1, 4) if axis == 1 else (1, 1, 1)
        assert kept.shape == expected_shape
        np.testing.assert_array_equal(np.reshape(kept.numpy(), dropped.shape), dropped.numpy())
    with pytest.raises(TypeError, match="keepdims must be a bool"):
        fn(tf.constant(X), 1, keepdims="yes")


@pytest.mark.parametrize("op", NAMES)
def test_numpy_and_tensor_axes(rc, tf, op):
    fn = calls(rc, tf)[op]
    expected = fn(tf.constant(X), 1).numpy()
    for axis in (np.int64(1), np.array(1, np.int32), tf.constant(1), tf.constant(-2, tf.int64)):
        np.testing.assert_array_equal(fn(tf.constant(X), axis).numpy(), expected)
    traced = tf.function(lambda x, a: fn(x, a), input_signature=[tf.TensorSpec(None, tf.float64),
                                                                 tf.TensorSpec([], tf.int32)])
    np.testing.assert_allclose(traced(X, 1).numpy(), expected, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(traced(X, -2).numpy(), expected, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("op", NAMES)
@pytest.mark.parametrize("axis", [0, 1, -2, None])
def test_unknown_rank_takes_any_axis(rc, tf, run, mode, op, axis):
    """Checked before TensorFlow: no internal TypeError for axis != -1 when the rank is unknown."""
    fn = calls(rc, tf)[op]
    expected = fn(tf.constant(X), axis).numpy()
    actual = run(lambda x: fn(x, axis), X, static=False)
    np.testing.assert_allclose(actual, expected, rtol=1e-14, atol=1e-15)


def test_reductions_take_several_numpy_or_tensor_axes(rc, tf):
    expected = X.sum(axis=(0, 2))
    for axis in ([0, 2], (0, -1), np.array([0, 2]), tf.constant([0, 2])):
        np.testing.assert_allclose(rc.reduce_sum(X, axis).numpy(), expected, rtol=1e-14)
    np.testing.assert_allclose(rc.gaussian_kl((X, X), axis=np.array([0, 2])).numpy(),
                               0.5 * (np.expm1(X) - X + X ** 2).sum(axis=(0, 2)), rtol=1e-13)


@pytest.mark.parametrize("axis, error, match", [
    (1.0, TypeError, "axis must be an int"), (True, TypeError, "axis must be an int"),
    ([0], TypeError, "axis must be an int, a scalar integer tensor or None"),
    (np.array([0, 1]), ValueError, "axis must name one dimension"),
    (np.array(0.5), TypeError, "axis must be an int"), (3, ValueError, "axis 3 is out of range"),
])
def test_bad_single_axes(rc, tf, axis, error, match):
    for op in ("softmax", "log_softmax", "softmax_entropy", "softmax_cross_entropy"):
        with pytest.raises(error, match=match):
            calls(rc, tf)[op](tf.constant(X), axis)


@pytest.mark.parametrize("labels", [[0, 2], np.array([[0, 1, 0]]), np.array([1], np.int64), [True, False]],
                         ids=["list", "array", "int64", "bool"])
def test_class_ids_point_at_the_sparse_op(rc, tf, labels):
    logits = np.zeros([2, 3])
    with pytest.raises(TypeError, match=r"tf\.nn\.sparse_softmax_cross_entropy_with_logits"):
        rc.softmax_cross_entropy(labels, logits)
    with pytest.raises(TypeError, match="sparse_softmax_cross_entropy_with_logits"):
        rc.softmax_cross_entropy(tf.constant(labels), logits)


def test_the_sparse_op_handles_class_ids_with_masked_logits(tf):
    """What the error message recommends is right for masked logits (finite, exact)."""
    logits = tf.constant([[0.0, -np.inf, 1.5]])
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2], logits=logits)
    p = np.exp([0.0, 1.5]) / np.exp([0.0, 1.5]).sum()
    np.testing.assert_allclose(loss.numpy(), [-np.log(p[1])], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, logits).numpy(), [[p[0], 0.0, p[1] - 1]], rtol=1e-6)


@pytest.mark.parametrize("make", ["ragged", "sparse"])
def test_ragged_and_sparse_inputs_are_refused(rc, tf, make, two_devices):
    value = tf.ragged.constant([[1.0], [2.0, 3.0]]) if make == "ragged" else \
        tf.sparse.from_dense(tf.constant([[1.0, 0.0]]))
    kind = "RaggedTensor" if make == "ragged" else "SparseTensor"
    for call in (lambda: rc.softmax(value), lambda: rc.softmax_entropy(value),
                 lambda: rc.softmax_cross_entropy(value, value), lambda: rc.reduce_sum(value, 0),
                 lambda: rc.weighted_logsumexp(value, value, 0), lambda: rc.gaussian_kl((value, value)),
                 lambda: rc.make_parallel(lambda x: x, two_devices, x=value), lambda: rc.get_shape(value)):
        with pytest.raises(TypeError, match=f"is a {kind}; pass a dense tensor"):
            call()


@pytest.mark.parametrize("devices", ["/device:CPU:0", "cpu"])
def test_one_device_given_as_a_string(rc, tf, devices):
    spec = tf.DeviceSpec.from_string("/device:CPU:0") if devices == "cpu" else devices
    out = rc.make_parallel(lambda x: x * 2, spec, x=X)
    np.testing.assert_array_equal(out.numpy(), X * 2)
    w = tf.Variable(1.0, dtype=tf.float64)
    loss, (grad,) = rc.tower_gradients(lambda x: tf.reduce_mean(w * x, axis=None), [w], spec, x=X)
    np.testing.assert_allclose(grad.numpy(), X.mean(), rtol=1e-14)


@pytest.mark.parametrize("output", [lambda tf, x: tf.reduce_sum(x, axis=None), lambda tf, x: 3.0,
                                    lambda tf, x: {"a": x, "b": tf.reduce_mean(x, axis=None)}])
def test_scalar_tower_outputs_are_refused(rc, tf, two_devices, output):
    with pytest.raises(ValueError, match="each output needs the batch dimension"):
        rc.make_parallel(lambda x: output(tf, x), two_devices, x=X)


def test_devices_must_be_names(rc, tf):
    with pytest.raises(TypeError, match="devices must be device names"):
        rc.make_parallel(lambda x: x, [0, 1], x=X)


def test_towers_take_a_name(rc, tf, two_devices):
    with tf.Graph().as_default():
        out = rc.make_parallel(lambda x: x * 2, two_devices, name="par", x=X)
        assert out.name.startswith("par/")


@pytest.mark.parametrize("alpha", [np.float32(0.1), np.float64(0.1), np.array(0.1), 0.1, "tensor"])
def test_leaky_relu_alpha_kinds(rc, tf, alpha):
    alpha = tf.constant(0.1) if isinstance(alpha, str) else alpha
    x = np.array([-2.0, 3.0], np.float32)
    np.testing.assert_allclose(rc.leaky_relu(x, alpha).numpy(), [-0.2, 3.0], rtol=1e-6)
    np.testing.assert_allclose(rc.leaky_relu(features=x.astype(np.float64), alpha=alpha).numpy(), [-0.2, 3.0],
                               rtol=1e-7)


@pytest.mark.parametrize("alpha, error, match", [
    (np.nan, ValueError, "finite and non-negative"), (np.inf, ValueError, "finite and non-negative"),
    (-0.1, ValueError, "finite and non-negative"), (True, TypeError, "real number"),
    ("0.2", TypeError, "real number"), (np.array([0.1]), TypeError, "real number"),
])
def test_leaky_relu_refuses_bad_alphas(rc, alpha, error, match):
    with pytest.raises(error, match=match):
        rc.leaky_relu([1.0], alpha)


def test_leaky_relu_refuses_a_run_time_alpha(rc, tf):
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="alpha must be known when the op is built"):
            rc.leaky_relu([1.0], tf.compat.v1.placeholder(tf.float32, []))


@pytest.mark.parametrize("good, bad, shape", [([0, 1, 2], [0, True, 2], (2, 3, 4)),
                                              ([0, 1, 2], [0, 1.0, 2], (2, 3, 4)),
                                              ([0, [1, 2]], [0, [True, 2]], (2, 12))])
@pytest.mark.parametrize("bad_first", [False, True])
def test_reshape_cache_tells_bools_and_floats_from_ints(rc, good, bad, shape, bad_first):
    """True == 1 and 1.0 == 1 in Python: the cache of checked dims_lists must not confuse them."""
    x = np.zeros([2, 3, 4])
    for dims in ([bad, good] if bad_first else [good, bad]):
        if dims is bad:
            with pytest.raises(TypeError, match="ints or lists of ints"):
                rc.reshape(x, dims)
        else:
            assert rc.reshape(x, dims).shape == shape
