"""TFE402-TFE404 in module-level code of a module that trains nothing: info, with a note and the same fix."""
import pytest

from tfe_testing import dedent, fixed, lint_source

NOTE = "(only evaluated: nothing in this module differentiates it, so only its value can be inf)"

EVALUATED = {
    "TFE402": """
        import tensorflow as tf
        log_p = tf.log(tf.nn.softmax(logits))
        print(tf.Session().run(log_p))
    """,
    "TFE403": """
        import tensorflow as tf
        p = tf.nn.softmax(logits)
        loss = -tf.reduce_sum(labels * tf.log(p), axis=1)
        with tf.Session() as sess:
            print(sess.run(loss))
    """,
    "TFE404": """
        import tensorflow as tf
        h = tf.sigmoid(tf.matmul(x, w))
        cost = -tf.reduce_mean(y * tf.log(h) + (1 - y) * tf.log(1 - h))
        w_update = w.assign(w - 0.1 * tf.matmul(tf.transpose(x), h - y))  # hand-written gradient
    """,
}


@pytest.mark.parametrize("code", sorted(EVALUATED))
def test_an_only_evaluated_formula_is_info_with_a_note(code):
    found = lint_source(dedent(EVALUATED[code]), select=[code])
    assert found and all(d.severity == "info" and d.message.endswith(NOTE) for d in found)


def test_the_fix_stays():
    assert fixed(EVALUATED["TFE402"], "TFE402") == dedent("""
        import tensorflow as tf
        log_p = tf.nn.log_softmax(logits)
        print(tf.Session().run(log_p))
    """)


@pytest.mark.parametrize("training", [
    "step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)",  # TF1, after the formula
    "opt = tf.train.AdamOptimizer(1e-3)",  # an optimizer only
    "grads = tf.gradients(loss, [w])",
    "grads = gradients(loss, [w])",  # from tensorflow import gradients
    "with tf.GradientTape() as tape:\n    pass",
    "model.compile('adam', 'mse')",
    "model.fit(x, y)",
    "spec = tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)",
    "def train():\n    return opt.minimize(loss)",  # anywhere in the module
])
def test_a_module_that_trains_keeps_the_error(training):
    source = dedent(EVALUATED["TFE403"]) + training + "\n"
    assert [d.severity for d in lint_source(source, select=["TFE403"])] == ["error"]


@pytest.mark.parametrize("source", [
    # a loss built in a function may be returned to a trainer in another module
    "import tensorflow as tf\ndef loss(logits, labels):\n"
    "    return -tf.reduce_sum(labels * tf.log(tf.nn.softmax(logits)), axis=1)\n",
    "import tensorflow as tf\nclass Model:\n    p = tf.nn.softmax(logits)\n"
    "    loss = -tf.reduce_sum(labels * tf.log(p), axis=1)\n",
    "import tensorflow as tf\nloss_fn = lambda z, y: -tf.reduce_sum(y * tf.log(tf.nn.softmax(z)), axis=1)\n",
])
def test_a_formula_inside_a_definition_keeps_the_error(source):
    assert [d.severity for d in lint_source(source, select=["TFE403"])] == ["error"]


NEVER_RUN = "(never run: nothing this script runs, evaluates or hands on is built from it)"
SCRIPT = """
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    y = tf.nn.softmax(tf.matmul(x, w) + b)
    cross_entropy = -tf.reduce_sum(y_ * tf.log(y), axis=1)
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1)), tf.float32))
    sess = tf.Session()
"""


@pytest.mark.parametrize("runs", [
    "print(sess.run(accuracy, {x: xs, y_: ys}))",  # a restore script: only the accuracy
    "# for i in range(1000):\n#     sess.run(train_step, {x: xs, y_: ys})",  # the training loop commented out
    "",  # a tutorial step that builds the graph and stops
])
def test_a_loss_no_run_can_reach_is_info_with_a_note(runs):
    [found] = lint_source(dedent(SCRIPT) + runs + "\n", select=["TFE403"])
    assert (found.line, found.severity) == (6, "info") and found.message.endswith(NEVER_RUN)


@pytest.mark.parametrize("runs", [
    "sess.run(train_step, {x: xs, y_: ys})",
    "train_step.run({x: xs, y_: ys})",  # the op's own run: its first argument is the feed
    "_, l = sess.run([train_step, cross_entropy], feed_dict={x: xs, y_: ys})",
    "print(cross_entropy.eval({x: xs, y_: ys}, session=sess))",
    "tf.summary.scalar('loss', cross_entropy)\nsess.run(tf.summary.merge_all())",  # collected, run unnamed
    "fit(sess, train_step)",  # handed to a function: it may run it
    "sess.run(build(), {x: xs})",  # what a call builds is not followed: unknown
    "costs.append(cross_entropy)\nsess.run(tf.add_n(costs))",
])
def test_a_loss_a_run_may_reach_keeps_the_error(runs):
    assert [d.severity for d in lint_source(dedent(SCRIPT) + runs + "\n", select=["TFE403"])] == ["error"]


def test_a_module_without_a_session_builds_a_graph_for_others():
    """``model.py`` builds the graph at import; ``train.py`` runs it."""
    source = dedent(SCRIPT).replace("sess = tf.Session()\n", "")
    assert [d.severity for d in lint_source(source, select=["TFE403"])] == ["error"]


TOY_DATA = "(toy data: this script feeds only a few data points written in it, so its outputs stay far from " \
           "saturation here; the formula still fails on real data)"
XOR = """
    import numpy as np
    import tensorflow as tf
    x_data = [[0, 0], [0, 1], [1, 0], [1, 1]]
    y_data = [[0], [1], [1], [0]]
    X = tf.placeholder(tf.float32, [None, 2])
    Y = tf.placeholder(tf.float32, [None, 1])
    h = tf.sigmoid(tf.matmul(X, w) + b)
    cost = -tf.reduce_mean(Y * tf.log(h) + (1 - Y) * tf.log(1 - h))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
    sess = tf.Session()
"""


@pytest.mark.parametrize("feeds", [
    "sess.run(train, feed_dict={X: x_data, Y: y_data})",
    "sess.run(train, {X: x_data, Y: y_data})",
    "train.run({X: x_data, Y: y_data}, session=sess)",
    "feed = {X: x_data, Y: y_data}\nsess.run(train, feed)",
    "x_data = np.array(x_data, dtype=np.float32)\nsess.run(train, {X: x_data, Y: y_data})",  # the same points
    "sess.run(train, {X: np.array([[0, 0], [1, 1]], np.float32), Y: [[0], [1]], keep: 0.5, mode: True})",
    "sess.run(train, {X: x_data, Y: y_data})\nprint(sess.run(h, {X: [[1, 1]]}))",
])
def test_a_script_fed_only_literal_data_is_info_with_a_note(feeds):
    found = lint_source(dedent(XOR) + feeds + "\n", select=["TFE404"])
    assert [(d.line, d.severity) for d in found] == [(9, "info"), (9, "info")]
    assert all(d.message.endswith(TOY_DATA) for d in found)


@pytest.mark.parametrize("feeds", [
    "xs, ys = mnist.train.next_batch(100)\nsess.run(train, {X: xs, Y: ys})",  # data read elsewhere
    "sess.run(train, {X: x_data, Y: labels})",  # one feed unknown
    "sess.run(train, {X: x_data, Y: y_data})\nsess.run(train, {X: np.loadtxt('x.csv'), Y: y_data})",
    "if big:\n    x_data = np.loadtxt('x.csv')\nsess.run(train, {X: x_data, Y: y_data})",  # bound otherwise too
    "sess.run(train, feed_dict=make_feed())",  # a feed dict the script does not spell
    "sess.run(train, {X: x_data[:2], Y: y_data[:2]})",  # not followed: unknown
    "sess.run(train, {keep: 0.5})",  # no data fed at all
    "sess.run(train)",  # nothing fed
])
def test_a_script_fed_other_data_keeps_the_error(feeds):
    found = lint_source(dedent(XOR) + feeds + "\n", select=["TFE404"])
    assert [(d.line, d.severity) for d in found] == [(9, "error"), (9, "error")]
