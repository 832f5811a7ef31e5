import numpy as np
import pytest

from tfe_testing import FIXTURES, findings, load_module
from tflint_effective.engine.lint import lint_source

FOLDER = FIXTURES / "softmax_labels_in_cross_entropy"
TFE406 = ["TFE406"]
V1 = "import tensorflow.compat.v1 as tf\n"
TF = "import tensorflow as tf\n"
TF1_SCRIPT = TF + "sess = tf.Session()\n"  # tf.Session: TensorFlow 1.x only


def lint(source):
    return findings(source, select=TFE406)


@pytest.mark.parametrize("source, expected", [
    (V1 + "h = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x)\n", [(2, 5, "TFE406")]),
    (V1 + "h = tf.losses.softmax_cross_entropy(tf.nn.softmax(x), x)\n", [(2, 5, "TFE406")]),
    (V1 + "h = tf.losses.softmax_cross_entropy(logits=x, onehot_labels=tf.math.softmax(x))\n", [(2, 5, "TFE406")]),
    # through a name bound once, same axis
    (V1 + "def f(x):\n    p = tf.nn.softmax(x, axis=1)\n"
          "    return tf.nn.softmax_cross_entropy_with_logits(labels=p, logits=x, axis=1)\n", [(4, 12, "TFE406")]),
    (V1 + "h = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(a / t), logits=a / t)\n",
     [(2, 5, "TFE406")]),
    # compat.v1 spelled out in TF2 code: the TF1 op stops the gradient in every mode
    (TF + "h = tf.compat.v1.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x)\n",
     [(2, 5, "TFE406")]),
    (TF + "@tf.function\ndef f(x):\n    return tf.compat.v1.losses.softmax_cross_entropy(tf.nn.softmax(x), x)\n",
     [(4, 12, "TFE406")]),
    # plain tf.nn in TensorFlow 1.x code; plain tf.losses.softmax_cross_entropy exists in 1.x only
    (TF1_SCRIPT + "h = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x)\n",
     [(3, 5, "TFE406")]),
    (TF + "h = tf.losses.softmax_cross_entropy(tf.nn.softmax(x), x)\n", [(2, 5, "TFE406")]),
    ("from tensorflow.compat.v1.nn import softmax, softmax_cross_entropy_with_logits as xent\n"
     "h = xent(labels=softmax(x), logits=x)\n", [(2, 5, "TFE406")]),
])
def test_findings(source, expected):
    assert lint(source) == expected


@pytest.mark.parametrize("source", [
    # TF2 and Keras spellings back-propagate into the labels
    TF + "h = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x)\n",
    TF + "sess = tf.compat.v1.Session()\nh = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x)\n",
    TF1_SCRIPT + "@tf.function\ndef f(x):\n"
                 "    return tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x)\n",
    V1 + "h = tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.nn.softmax(x), logits=x)\n",
    V1 + "h = tf.compat.v2.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x)\n",
    TF + "h = tf.keras.losses.categorical_crossentropy(tf.nn.softmax(x), x, from_logits=True)\n",
    # not the entropy of its own logits, or the stop is explicit
    V1 + "h = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(teacher), logits=x)\n",
    V1 + "h = tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(tf.nn.softmax(x)), logits=x)\n",
    V1 + "h = tf.stop_gradient(tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x))\n",
    V1 + "h = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x, axis=0), logits=x)\n",
    V1 + "h = tf.losses.softmax_cross_entropy(tf.nn.softmax(x, 1), x)\n",
    V1 + "h = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(f(x)), logits=f(x))\n",
    V1 + "h = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(tf.nn.dropout(x, 0.5)), "
         "logits=tf.nn.dropout(x, 0.5))\n",
    V1 + "def f(x):\n    p = tf.nn.softmax(x)\n    x = x * 2\n"
         "    return tf.nn.softmax_cross_entropy_with_logits(labels=p, logits=x)\n",
    V1 + "h = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x)\n",
    V1 + "h = tf.nn.softmax_cross_entropy_with_logits(**kwargs)\n",
])
def test_near_misses(source):
    assert lint(source) == []


def test_error_in_every_mode_and_the_message_keeps_the_axis():
    source = TF + "h = tf.compat.v1.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(z, axis=0), " \
                  "logits=z, dim=0)\n"
    [diagnostic] = lint_source(source, select=TFE406)
    assert diagnostic.severity == "error" and diagnostic.fix is None
    assert "`tflint_effective.runtime_checks.softmax_entropy(z, axis=0)`" in diagnostic.message


def test_the_tf1_ops_stop_the_gradient_in_eager_mode_too(tf):
    x = tf.constant([[2.0, 1.0, 0.5, -1.0, 0.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        v1 = tf.compat.v1.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x)
        v2 = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x)
        true = -tf.reduce_sum(tf.nn.softmax(x) * tf.nn.log_softmax(x), axis=-1)
    np.testing.assert_allclose(tape.gradient(v1, x).numpy(), 0.0, atol=1e-6)
    np.testing.assert_allclose(tape.gradient(v2, x).numpy(), tape.gradient(true, x).numpy(), atol=1e-6)


def test_fixture_tf1_entropy_has_a_zero_gradient_and_does_not_train(tf):
    bad = load_module(FOLDER / "bad.py").main()
    good = load_module(FOLDER / "good.py").main()
    for name in ("entropy", "mean_entropy"):
        np.testing.assert_allclose(bad[name], good[name], rtol=1e-5)  # the value is right
        np.testing.assert_allclose(bad[f"d_{name}"], 0.0, atol=1e-6)  # the gradient is not
        assert np.abs(good[f"d_{name}"]).max() > 0.3
    np.testing.assert_allclose(bad["entropy_after_ascent"], bad["entropy"], rtol=1e-5)  # nothing moved
    np.testing.assert_allclose(good["entropy_after_ascent"], np.log(5.0), rtol=1e-3)  # uniform: maximum
    # the TF2 op and the Keras loss give the true entropy gradient (not reported)
    for name in ("near_tf2", "near_keras"):
        np.testing.assert_allclose(bad[f"d_{name}"], good["d_entropy"], atol=1e-6)
    # an entropy under stop_gradient: the right value, and no gradient wanted whatever the op
    np.testing.assert_allclose(bad["near_no_gradient_wanted"], good["entropy"], rtol=1e-5)
    np.testing.assert_allclose(bad["d_near_no_gradient_wanted"], 0.0, atol=0.0)
