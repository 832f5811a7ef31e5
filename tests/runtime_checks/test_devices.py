"""make_parallel and tower_gradients on two devices (two logical CPUs unless two GPUs are visible).

Placement is read from the graph (TF1 graph mode, or a tf.function's concrete
function): every forward and backward op of tower 1 must ask for device 1.
"""
import re

import numpy as np
import pytest

RNG = np.random.default_rng(3)
X = RNG.normal(size=(8, 3))
Y = RNG.normal(size=(8,))
W = np.array([0.5, -1.0, 2.0])
TOWER_1 = re.compile(r"^(gradient_tape/)?tower_1(_\d+)?/")


@pytest.fixture
def rc(tf):
    from tflint_effective import runtime_checks
    return runtime_checks


def on(tf, op_device, device):
    """Whether an op's requested device is ``device`` (type and index)."""
    want, got = tf.DeviceSpec.from_string(device), tf.DeviceSpec.from_string(op_device)
    return (got.device_type, got.device_index) == (want.device_type, want.device_index)


def tower_1_ops(graph, *, backward):
    ops = [op for op in graph.get_operations() if TOWER_1.match(op.name)
           and op.type != "ReadVariableOp"]  # variable reads sit with the variable
    ops = [op for op in ops if ("gradient" in op.name) == backward]
    assert ops, "no tower 1 ops found"
    return ops


def mse(tf, w):
    def loss_fn(x, y):
        return tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) - y))
    return loss_fn


def test_make_parallel_eager_runs_each_tower_on_its_device(rc, tf, two_devices):
    seen = []

    def fn(x, y):
        out = tf.linalg.matvec(x, tf.constant(W)) - y
        seen.append(out.device)
        return {"residual": out, "twice": (2 * out,)}

    out = rc.make_parallel(fn, two_devices, x=X, y=Y)
    np.testing.assert_allclose(out["residual"].numpy(), X @ W - Y, rtol=1e-14)
    np.testing.assert_allclose(out["twice"][0].numpy(), 2 * (X @ W - Y), rtol=1e-14)
    assert [on(tf, d, want) for d, want in zip(seen, two_devices)] == [True, True]


def test_make_parallel_tf_function_places_towers(rc, tf, two_devices):
    w = tf.Variable(W)
    f = tf.function(lambda x, y: rc.make_parallel(lambda x, y: tf.linalg.matvec(x, w) - y, two_devices, x=x, y=y))
    np.testing.assert_allclose(f(X, Y).numpy(), X @ W - Y, rtol=1e-14)
    graph = f.get_concrete_function(X, Y).graph
    assert all(on(tf, op.device, two_devices[1]) for op in tower_1_ops(graph, backward=False))


def test_make_parallel_graph_mode_shares_get_variable(rc, tf, two_devices):
    with tf.Graph().as_default() as graph:
        def fn(x, y):
            w = tf.compat.v1.get_variable("w", dtype=tf.float64, initializer=tf.constant(W))
            return tf.linalg.matvec(x, w) - y

        out = rc.make_parallel(fn, two_devices, x=X, y=Y)
        assert len(tf.compat.v1.global_variables()) == 1
        assert all(on(tf, op.device, two_devices[1]) for op in tower_1_ops(graph, backward=False))
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            np.testing.assert_allclose(session.run(out), X @ W - Y, rtol=1e-14)


def single_device_reference():
    residual = X @ W - Y
    return np.mean(residual ** 2), 2 * X.T @ residual / len(X)


def test_tower_gradients_graph_mode_colocates_backward_pass(rc, tf, two_devices):
    with tf.Graph().as_default() as graph:
        w = tf.compat.v1.get_variable("w", initializer=tf.constant(W))

        def loss_fn(x, y):
            with tf.device(two_devices[0]):  # a model that pins one op inside its tower
                prediction = tf.linalg.matvec(x, w)
            return tf.reduce_mean(tf.square(prediction - y))

        loss, (grad,) = rc.tower_gradients(loss_fn, [w], two_devices, x=X, y=Y)
        assert all(on(tf, op.device, two_devices[1]) for op in tower_1_ops(graph, backward=False)
                   if "MatVec" not in op.name)
        # Each gradient op sits with its forward op: on device 1, or device 0 for the pinned op.
        forward_of = {op: graph.get_operation_by_name(op.colocation_groups()[0].decode()[len("loc:@"):])
                      for op in tower_1_ops(graph, backward=True)}
        for op, forward in forward_of.items():
            assert on(tf, op.device, forward.device), (op.name, op.device, forward.name, forward.device)
        assert {tf.DeviceSpec.from_string(f.device).device_index for f in forward_of.values()} == {0, 1}
        # Contrast: plain gradients of the towers' mean loss leave those backward ops unplaced.
        naive = tf.compat.v1.gradients(loss, [w], name="naive_gradients")
        naive_ops = [op for op in graph.get_operations() if op.name.startswith("naive_gradients/tower_1")]
        assert naive_ops and not any(op.device for op in naive_ops)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            loss_value, grad_value, naive_value = session.run([loss, grad, naive[0]])
    expected_loss, expected_grad = single_device_reference()
    np.testing.assert_allclose(loss_value, expected_loss, rtol=1e-14)
    np.testing.assert_allclose(grad_value, expected_grad, rtol=1e-14)
    np.testing.assert_allclose(naive_value, expected_grad, rtol=1e-14)  # right values, wrong place


def test_tower_gradients_tf_function_keeps_backward_pass_on_tower(rc, tf, two_devices):
    w = tf.Variable(W)
    f = tf.function(lambda x, y: rc.tower_gradients(mse(tf, w), [w], two_devices, x=x, y=y))
    loss, (grad,) = f(X, Y)
    graph = f.get_concrete_function(X, Y).graph
    for backward in (False, True):
        assert all(on(tf, op.device, two_devices[1]) for op in tower_1_ops(graph, backward=backward))
    expected_loss, expected_grad = single_device_reference()
    np.testing.assert_allclose(loss.numpy(), expected_loss, rtol=1e-14)
    np.testing.assert_allclose(grad.numpy(), expected_grad, rtol=1e-14)


def test_tower_gradients_eager_equals_single_device(rc, tf, two_devices):
    w, unused = tf.Variable(W), tf.Variable(1.0)
    loss, (grad, none) = rc.tower_gradients(mse(tf, w), [w, unused], two_devices, x=X, y=Y)
    expected_loss, expected_grad = single_device_reference()
    np.testing.assert_allclose(loss.numpy(), expected_loss, rtol=1e-14)
    np.testing.assert_allclose(grad.numpy(), expected_grad, rtol=1e-14)
    assert none is None


def test_tower_gradients_keeps_sparse_gradients_sparse(rc, tf, two_devices):
    table = tf.Variable(RNG.normal(size=(5, 2)))
    ids = np.array([0, 3, 3, 1])

    def loss_fn(ids):
        return tf.reduce_mean(tf.square(tf.gather(table, ids)))

    _, (grad,) = rc.tower_gradients(loss_fn, [table], two_devices, ids=ids)
    assert isinstance(grad, tf.IndexedSlices)
    with tf.GradientTape() as tape:
        expected = tape.gradient(loss_fn(ids), table)
    np.testing.assert_allclose(tf.convert_to_tensor(grad).numpy(), tf.convert_to_tensor(expected).numpy(),
                               rtol=1e-14)


@pytest.mark.parametrize("call, error, match", [
    (lambda rc, d: rc.make_parallel(lambda x: x, [], x=X), ValueError, "make_parallel: devices is empty"),
    (lambda rc, d: rc.make_parallel(lambda x: x, d), ValueError, "batched inputs as keyword arguments"),
    (lambda rc, d: rc.make_parallel(lambda x, y: x, d, x=X, y=Y[:6]), ValueError,
     "inputs have different batch sizes"),
    (lambda rc, d: rc.make_parallel(lambda x: x, d, x=X[:7]), ValueError,
     "batch size 7 of 'x' does not split evenly over 2 devices"),
    (lambda rc, d: rc.make_parallel(lambda x: x, d, x=1.0), ValueError, "'x' is a scalar"),
    (lambda rc, d: rc.tower_gradients(lambda x: x, [], d, x=X), ValueError,
     r"loss_fn must return a scalar, got shape \(4, 3\)"),
])
def test_bad_arguments(rc, two_devices, call, error, match):
    with pytest.raises(error, match=match):
        call(rc, two_devices)
