"""Update ops tied to the train op (TFE602) and a finalized graph around a session loop (TFE601).

The update op is a hand-built moving average in the UPDATE_OPS collection, the
way batch normalization registers its own (the real layer needs legacy Keras).
"""
import pytest


@pytest.fixture
def rc(tf):
    from tflint_effective import runtime_checks
    return runtime_checks


def model(tf):
    """w, a moving average of x's mean registered as an update op, and a loss (w - 3)^2."""
    w = tf.compat.v1.get_variable("w", initializer=0.0)
    moving = tf.compat.v1.get_variable("moving", initializer=0.0, trainable=False)
    x = tf.constant([1.0, 3.0])
    update = moving.assign(0.5 * moving + 0.5 * tf.reduce_mean(x, axis=0))
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, update)
    return w, moving, tf.square(w - 3.0)


def ancestors(op):
    seen, stack = set(), [op]
    while stack:
        node = stack.pop()
        for parent in list(node.control_inputs) + [t.op for t in node.inputs]:
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return seen


def test_plain_minimize_never_runs_the_updates(tf):
    """The bug TFE602 reports: the moving statistics stay at their initial value."""
    with tf.Graph().as_default():
        w, moving, loss = model(tf)
        step = tf.compat.v1.train.GradientDescentOptimizer(0.25).minimize(loss)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(step)
            assert session.run([w, moving]) == [1.5, 0.0]


def test_train_op_with_updates_runs_them_before_the_step(rc, tf):
    with tf.Graph().as_default():
        w, moving, loss = model(tf)
        update = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)[0]
        step = rc.train_op_with_updates(tf.compat.v1.train.GradientDescentOptimizer(0.25), loss, var_list=[w],
                                        global_step=tf.compat.v1.train.get_or_create_global_step())
        assert update.op in ancestors(step)
        gradient_ops = [op for op in tf.compat.v1.get_default_graph().get_operations() if "gradients" in op.name]
        assert gradient_ops and all(update.op in ancestors(op) for op in gradient_ops)  # after the update
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            for _ in range(2):
                session.run(step)
            assert session.run([w, moving]) == [2.25, 1.5]  # 0 -> 1.5 -> 2.25; 0 -> 1 -> 1.5
            assert session.run(tf.compat.v1.train.get_global_step()) == 2


def test_with_update_ops_groups_them(rc, tf):
    with tf.Graph().as_default():
        w, moving, loss = model(tf)
        step = rc.with_update_ops(tf.compat.v1.train.GradientDescentOptimizer(0.25).minimize(loss),
                                  name="step")
        assert step.name == "step"
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(step)
            assert session.run([w, moving]) == [1.5, 1.0]


def test_explicit_update_ops_and_nothing_to_add(rc, tf):
    with tf.Graph().as_default():
        w = tf.compat.v1.get_variable("w", initializer=0.0)
        counter = tf.compat.v1.get_variable("counter", initializer=0, trainable=False)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.25)
        step = optimizer.minimize(tf.square(w - 3.0))
        assert rc.with_update_ops(step) is step  # empty collection: the train op itself
        tick = counter.assign_add(1)
        step = rc.train_op_with_updates(optimizer, tf.square(w - 3.0), update_ops=[tick])
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(step)
            assert session.run([w, counter]) == [1.5, 1]
        with pytest.raises(TypeError, match="update ops must be operations or tensors"):
            rc.with_update_ops(step, update_ops=["moving_mean"])


def test_eager_is_plain_minimize(rc, tf):
    w = tf.Variable(0.0)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.25)
    rc.train_op_with_updates(optimizer, lambda: tf.square(w - 3.0), var_list=[w])
    assert w.numpy() == 1.5
    assert rc.with_update_ops("step") == "step"


def test_tf_function_runs_the_graphs_update_ops(rc, tf):
    w, counter = tf.Variable(0.0), tf.Variable(0)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.25)

    @tf.function
    def train():
        tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, counter.assign_add(1))
        rc.train_op_with_updates(optimizer, lambda: tf.square(w - 3.0), var_list=[w])

    train()
    train()
    assert (w.numpy(), counter.numpy()) == (2.25, 2)


def test_finalized_graph_makes_graph_growth_raise_at_once(rc, tf):
    with tf.Graph().as_default() as graph:
        x = tf.compat.v1.placeholder(tf.float32, [])
        doubled = 2 * x
        with tf.compat.v1.Session() as session:
            with rc.finalized_graph() as final:
                assert final is graph and graph.finalized
                assert session.run(doubled, {x: 2.0}) == 4.0  # running what was built works
                with pytest.raises(RuntimeError, match="Graph is finalized"):
                    for step in range(3):
                        session.run(doubled + step, {x: 1.0})  # TFE601: a new op per iteration
            assert not graph.finalized  # reopened on leaving the block
            assert session.run(doubled + 1, {x: 1.0}) == 3.0


def test_finalized_graph_can_stay_final(rc, tf):
    graph = tf.Graph()
    with rc.finalized_graph(graph, reopen=False):
        pass
    assert graph.finalized
    with rc.finalized_graph(graph):  # already final on entry: stays final
        pass
    assert graph.finalized


def test_finalized_graph_refuses_eager_and_tf_function(rc, tf):
    with pytest.raises(RuntimeError, match="eager mode builds no graph"):
        with rc.finalized_graph():
            pass

    @tf.function
    def traced():
        with rc.finalized_graph():
            return tf.constant(1.0)

    with pytest.raises(RuntimeError, match="tf.function graph is being traced"):
        traced()
