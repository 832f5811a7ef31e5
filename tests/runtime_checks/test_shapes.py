"""get_shape, reshape, batch_gather, required-axis reductions and assert_same_rank."""
import numpy as np
import pytest

RNG = np.random.default_rng(1)
X = RNG.normal(size=(2, 3, 4, 5))


@pytest.fixture
def rc(tf):
    from tflint_effective import runtime_checks
    return runtime_checks


def test_get_shape_is_static_in_eager(rc, tf):
    assert rc.get_shape(tf.zeros([2, 3, 1])) == [2, 3, 1]
    assert rc.get_shape(tf.zeros([])) == []


@pytest.mark.parametrize("traced", ["function", "graph"])
def test_get_shape_mixes_static_and_dynamic(rc, tf, traced):
    seen = {}

    def body(x):
        dims = rc.get_shape(x)
        seen["static"] = [d if isinstance(d, int) else None for d in dims]
        return tf.stack(dims)

    spec = tf.TensorSpec([None, 3, None], tf.float32)
    value = np.zeros([4, 3, 7], np.float32)
    if traced == "function":
        result = tf.function(body, input_signature=[spec])(value).numpy()
    else:
        with tf.Graph().as_default():
            x = tf.compat.v1.placeholder(tf.float32, spec.shape)
            with tf.compat.v1.Session() as session:
                result = session.run(body(x), {x: value})
    assert seen["static"] == [None, 3, None]
    assert result.tolist() == [4, 3, 7]


def test_get_shape_needs_a_known_rank(rc, tf):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, None)
        with pytest.raises(ValueError, match="get_shape: the rank of the tensor is unknown"):
            rc.get_shape(x)


@pytest.mark.parametrize("dims_list, shape", [
    ([0, [1, 2], 3], (2, 12, 5)),
    ([[0, 1, 2, 3]], (120,)),
    ([[0, 1], [2, 3]], (6, 20)),
    ([0, 1, 2, 3], (2, 3, 4, 5)),
])
def test_reshape_collapses_groups(rc, run, dims_list, shape):
    w = RNG.normal(size=shape)
    value, (grad,) = run(lambda t: rc.reshape(t, dims_list), X, cotangent=w)
    np.testing.assert_array_equal(value, X.reshape(shape))
    np.testing.assert_array_equal(grad, w.reshape(X.shape))


def test_reshape_with_unknown_sizes(rc, tf):
    f = tf.function(lambda t: rc.reshape(t, [[0, 1], 2, [3]]),
                    input_signature=[tf.TensorSpec([None, 3, None, 5], tf.float64)])
    graph_output = f.get_concrete_function().structured_outputs
    assert graph_output.shape.as_list() == [None, None, 5]
    np.testing.assert_array_equal(f(X).numpy(), X.reshape(6, 4, 5))


@pytest.mark.parametrize("dims_list, error, match", [
    ([1, 0, 2, 3], ValueError, "in order"),
    ([0, [1, 2]], ValueError, "each of the 4 dimensions"),
    ([0, [], 1, 2, 3], ValueError, "non-empty"),
    ([0, [1, 2], 4], ValueError, "axis 4 is out of range"),
    ([0, "1", 2, 3], TypeError, "ints or lists of ints"),
])
def test_reshape_rejects_bad_groups(rc, dims_list, error, match):
    with pytest.raises(error, match=match):
        rc.reshape(X, dims_list)


def reference_batch_gather(x, indices):
    return np.stack([x[i][indices[i]] for i in range(len(x))])


@pytest.mark.parametrize("indices", [
    np.array([[2, 0, 2], [1, 1, 0]], np.int32),
    np.array([[[0], [2]], [[1], [1]]], np.int64),
], ids=["rank2", "rank3"])
def test_batch_gather(rc, run, close, rounded, dtype, indices):
    x = RNG.normal(size=(2, 3, 4))
    expected = reference_batch_gather(rounded(x, dtype), indices)
    w = rounded(RNG.normal(size=expected.shape), dtype)
    value, (grad,) = run(rc.batch_gather, x, indices, dtype=dtype, cotangent=w)
    expected_grad = np.zeros_like(x)
    for i in range(len(x)):
        np.add.at(expected_grad[i], indices[i], w[i])
    close(value, expected, dtype, ulps=0)
    close(grad, expected_grad, dtype, ulps=4)


@pytest.mark.parametrize("tensor, indices, error, match", [
    (np.ones([2, 3]), np.ones([2, 1]), TypeError, "indices must be int32 or int64, got float64"),
    (np.ones([2, 3]), np.zeros([3, 1], np.int32), ValueError, "batch sizes differ"),
    (np.ones([2]), np.zeros([2, 1], np.int32), ValueError, "rank >= 2"),
    (np.ones([2, 3]), np.int32(0), ValueError, "must have a batch dimension"),
])
def test_batch_gather_rejects_bad_arguments(rc, tensor, indices, error, match):
    with pytest.raises(error, match=match):
        rc.batch_gather(tensor, indices)


REDUCTIONS = {"reduce_sum": np.sum, "reduce_mean": np.mean, "reduce_max": np.max, "reduce_min": np.min}


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [1, -1, [0, 2], None])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(rc, run, name, axis, keepdims):
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    expected = REDUCTIONS[name](X, axis=np_axis, keepdims=keepdims)
    w = RNG.normal(size=np.shape(expected))
    value, (grad,) = run(lambda t: getattr(rc, name)(t, axis, keepdims=keepdims), X, cotangent=w)
    np.testing.assert_allclose(value, expected, rtol=1e-14)
    w_full = w if keepdims else np.expand_dims(w, np_axis if np_axis is not None else tuple(range(X.ndim)))
    if name == "reduce_sum":
        expected_grad = np.broadcast_to(w_full, X.shape)
    elif name == "reduce_mean":
        expected_grad = np.broadcast_to(w_full, X.shape) * expected.size / X.size
    else:  # no ties in X: the gradient goes to the single extreme element
        expected_grad = (X == REDUCTIONS[name](X, axis=np_axis, keepdims=True)) * w_full
    np.testing.assert_allclose(grad, expected_grad, rtol=1e-14)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_refuse_a_missing_or_bad_axis(rc, name):
    op = getattr(rc, name)
    with pytest.raises(TypeError, match=f"{name}\\(\\) missing 1 required positional argument: 'axis'"):
        op(X)
    with pytest.raises(ValueError, match=f"{name}: axis 4 is out of range for a tensor of rank 4"):
        op(X, 4)
    with pytest.raises(ValueError, match="names a dimension twice"):
        op(X, [1, -3])
    with pytest.raises(TypeError, match="axis must be an int, a list of ints, an integer tensor or None"):
        op(X, 1.0)


def test_explicit_axis_avoids_the_broadcasting_trap(rc, tf):
    """The guide's example: [[1], [2]] + [1, 2] broadcasts to 2x2 and sums to 12, not 6."""
    a, b = tf.constant([[1.0], [2.0]]), tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match=r"ranks differ: \[2, 1\]"):
        rc.assert_same_rank(a, b)
    a, b = rc.assert_same_rank(a, tf.expand_dims(b, 1))
    assert rc.reduce_sum(a + b, axis=[0, 1]).numpy() == 6.0


@pytest.mark.parametrize("traced", ["function", "graph"])
def test_assert_same_rank_checks_unknown_ranks_at_run_time(rc, tf, traced):
    def body(a, b):
        a, b = rc.assert_same_rank(a, b)
        return a + b

    spec = tf.TensorSpec(None, tf.float32)
    good, bad = (np.ones([2, 1], np.float32), np.ones([2, 1], np.float32)), \
        (np.ones([2, 1], np.float32), np.ones([2], np.float32))
    if traced == "function":
        f = tf.function(body, input_signature=[spec, spec])
        np.testing.assert_array_equal(f(*good).numpy(), 2 * good[0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="assert_same_rank: tensor 1"):
            f(*bad)
    else:
        with tf.Graph().as_default():
            a, b = (tf.compat.v1.placeholder(tf.float32, None) for _ in range(2))
            out = body(a, b)
            with tf.compat.v1.Session() as session:
                np.testing.assert_array_equal(session.run(out, dict(zip((a, b), good))), 2 * good[0])
                with pytest.raises(tf.errors.InvalidArgumentError, match="assert_same_rank: tensor 1"):
                    session.run(out, dict(zip((a, b), bad)))
