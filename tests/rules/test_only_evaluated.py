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
