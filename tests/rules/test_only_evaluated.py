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
