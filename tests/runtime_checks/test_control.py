"""with_assertions: the checks run whenever the guarded tensor is evaluated, in every mode."""
import numpy as np
import pytest


@pytest.fixture
def rc(tf):
    from tflint_effective import runtime_checks
    return runtime_checks


def guarded(tf, rc, x):
    """x * 2, guarded by a positivity check, a finiteness check and a print."""
    return rc.with_assertions(x * 2, tf.debugging.assert_positive(x, message="x must be positive"),
                              [tf.debugging.check_numerics(x, "x is not finite"), tf.print("checked")])


def test_graph_mode_runs_the_checks_it_would_otherwise_prune(rc, tf, device):
    with tf.Graph().as_default(), tf.device(device):
        x = tf.compat.v1.placeholder(tf.float32, [None])
        unwired = x * 2
        tf.debugging.assert_positive(x)  # created, never wired in: TF1 prunes it
        out = guarded(tf, rc, x)
        with tf.compat.v1.Session() as session:
            np.testing.assert_array_equal(session.run(unwired, {x: [-1.0]}), [-2.0])
            np.testing.assert_array_equal(session.run(out, {x: [1.0, 3.0]}), [2.0, 6.0])
            with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
                session.run(out, {x: [-1.0]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="x is not finite"):
                session.run(out, {x: [np.inf]})


def test_tf_function_runs_the_checks(rc, tf, device):
    f = tf.function(lambda x: guarded(tf, rc, x))
    with tf.device(device):
        np.testing.assert_array_equal(f(tf.constant([1.0, 3.0])).numpy(), [2.0, 6.0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
            f(tf.constant([-1.0]))


def test_eager_checks_have_already_run(rc, tf, device):
    with tf.device(device):
        x = tf.constant([1.0, 3.0])
        y = x * 2
        assert rc.with_assertions(y, tf.debugging.assert_positive(x), tf.debugging.check_numerics(x, "")) is y
        with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
            guarded(tf, rc, tf.constant([-1.0]))


def test_nested_structures_are_all_guarded(rc, tf):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        out = rc.with_assertions({"a": x + 1, "b": (x - 1,)}, tf.debugging.assert_positive(x, message="neg"))
        with tf.compat.v1.Session() as session:
            for tensor in (out["a"], out["b"][0]):
                with pytest.raises(tf.errors.InvalidArgumentError, match="neg"):
                    session.run(tensor, {x: [-1.0]})


@pytest.mark.parametrize("tensor, check, error, match", [
    (None, None, TypeError, "tensor is None"),
    (1.0, True, TypeError, "checks must be assertion ops or tensors, got True"),
    (1.0, "x > 0", TypeError, "got 'x > 0'"),
])
def test_bad_arguments(rc, tensor, check, error, match):
    with pytest.raises(error, match=match):
        rc.with_assertions(tensor, check)


def test_boolean_tensor_is_not_a_check(rc, tf):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        with pytest.raises(TypeError, match="boolean tensor"):
            rc.with_assertions(x, x > 0)
