import numpy as np
import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import dedent, findings, fixed, lint_source

TFE404 = ["TFE404"]


@pytest.mark.parametrize("source, expected", [
    ("import tensorflow as tf\ny = tf.math.log(tf.sigmoid(x))\n",
     "import tensorflow as tf\ny = tf.math.log_sigmoid(x)\n"),
    ("import tensorflow as tf\ny = tf.math.log(1 - tf.nn.sigmoid(x))\n",
     "import tensorflow as tf\ny = tf.math.log_sigmoid(-x)\n"),
    ("import tensorflow as tf\ny = tf.math.log(1.0 - tf.math.sigmoid(a + b))\n",
     "import tensorflow as tf\ny = tf.math.log_sigmoid(-(a + b))\n"),
    ("import tensorflow as tf\ny = tf.math.log(1 - tf.sigmoid(-x))\n",
     "import tensorflow as tf\ny = tf.math.log_sigmoid(x)\n"),
    ("import tensorflow.compat.v1 as tf1\ny = tf1.log(tf1.sigmoid(x))\n",
     "import tensorflow.compat.v1 as tf1\ny = tf1.math.log_sigmoid(x)\n"),
    ("from tensorflow import math as tm\ny = tm.log(tm.sigmoid(x))\n",
     "from tensorflow import math as tm\ny = tm.log_sigmoid(x)\n"),
])
def test_log_of_sigmoid_becomes_log_sigmoid(source, expected):
    assert findings(source, TFE404) == [(2, 5, "TFE404")]
    assert fixed(source, TFE404) == expected


def test_binary_cross_entropy_through_names():
    source = dedent("""\
        import tensorflow as tf
        def bce(y, z):
            p = tf.sigmoid(z)
            q = 1 - p
            return -(y * tf.math.log(p) + (1 - y) * tf.math.log(q))
    """)
    assert findings(source, TFE404) == [(5, 18, "TFE404"), (5, 45, "TFE404")]
    assert fixed(source, TFE404) == source.replace(
        "tf.math.log(p)", "tf.math.log_sigmoid(z)").replace("tf.math.log(q)", "tf.math.log_sigmoid(-z)")


def test_the_name_of_the_op_stays_with_the_sigmoid():
    source = dedent("""\
        import tensorflow as tf
        def bce(y, z):
            p = tf.sigmoid(z, name="p")
            return -(y * tf.math.log(p) + (1 - y) * tf.math.log(1 - p))
    """)
    assert fixed(source, TFE404) == source.replace("tf.math.log(p)", "tf.math.log_sigmoid(z)").replace(
        "tf.math.log(1 - p)", "tf.math.log_sigmoid(-z)")


def test_through_a_chained_assignment():
    source = dedent("""\
        import tensorflow as tf
        def loss(z):
            p = q = tf.sigmoid(z)
            return -tf.math.log(p) - tf.math.log(1 - q)
        def rebound(z):
            p = q = tf.sigmoid(z)
            q = tf.clip_by_value(q, 0.01, 0.99)
            return tf.math.log(q)  # the clipped sigmoid before it: a guarded log, no fix
    """)
    assert findings(source, TFE404) == [(4, 13, "TFE404"), (4, 30, "TFE404"), (8, 12, "TFE404")]
    assert fixed(source, TFE404) == source.replace(
        "tf.math.log(p) - tf.math.log(1 - q)", "tf.math.log_sigmoid(z) - tf.math.log_sigmoid(-z)")


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\ny = tf.math.log(tf.sigmoid(x) + 1e-7)\n",
    "import tensorflow as tf\ny = tf.math.log(1 - tf.sigmoid(x) + 1e-7)\n",
    "import tensorflow as tf\ny = tf.math.log(tf.clip_by_value(tf.sigmoid(x), 1e-7, 1.0))\n",
    "from tensorflow import nn\nfrom tensorflow.math import log\ny = log(nn.sigmoid(x))\n",  # no tf.math alias
    "import tensorflow as tf\ndef f(layer, h):\n    p = tf.sigmoid(layer(h))\n    return tf.math.log(p)\n",
    # the op named `p` would hold log-probabilities: a fetch of `p:0` would change meaning
    "import tensorflow.compat.v1 as tf1\ny = tf1.log(tf1.sigmoid(x, name='p'))\n",
])
def test_reported_without_a_fix(source):
    assert len(findings(source, TFE404)) == 1
    assert fixed(source, TFE404) == dedent(source)


@pytest.mark.parametrize("source, severity", [
    ("import tensorflow as tf\ndef f(x):\n    return tf.math.log(tf.sigmoid(x))\n", "error"),
    ("import tensorflow as tf\ndef f(x):\n    return tf.math.log(1 - tf.sigmoid(x))\n", "error"),
    ("import tensorflow as tf\ny = tf.math.log(tf.sigmoid(x) + 1e-7)\n", "info"),
    ("import tensorflow as tf\ny = tf.math.log(1 - tf.sigmoid(x) + 1e-7)\n", "info"),
    ("import tensorflow as tf\ny = tf.math.log(tf.maximum(tf.sigmoid(x), 1e-7))\n", "info"),
    ("import tensorflow as tf\ny = tf.math.log(tf.clip_by_value(tf.sigmoid(x), 1e-7, 1.0))\n", "info"),
    ("import tensorflow as tf\ndef f(x, eps):\n    p = tf.sigmoid(x)\n    return tf.math.log(p + eps)\n", "info"),
])
def test_a_guarded_log_is_info(source, severity):
    assert [d.severity for d in lint_source(source, select=TFE404)] == [severity]


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\ny = tf.math.log_sigmoid(x)\n",
    "import tensorflow as tf\ny = tf.math.log(2.0 - tf.sigmoid(x))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.sigmoid(x) * 0.5 + 0.5)\n",
    "import tensorflow as tf\ny = tf.math.log(1 + tf.exp(x))\n",
    "import numpy as np\ny = np.log(1 / (1 + np.exp(-x)))\n",
    "import tensorflow as tf\ndef sigmoid(x):\n    return x\ny = tf.math.log(sigmoid(x))\n",
    # an argument bounded by construction (at most 7.5 from zero): nothing can underflow
    "import tensorflow as tf\ns = tf.sigmoid(x)\ny = tf.math.log(1 - tf.sigmoid(s - 0.5))\n",
    "import tensorflow as tf\nclass M:\n    def score(self, x):\n        return tf.sigmoid(x)\n"
    "    def loss(self, a, b):\n        return -tf.math.log(tf.sigmoid(self.score(a) - self.score(b)))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.sigmoid(tf.clip_by_value(z, -5.0, 5.0)))\n",
    "import tensorflow as tf\ns = tf.sigmoid(x)\ny = tf.math.log(1 - tf.sigmoid(s - tf.reduce_mean(tf.divide(s + s, 2), -1)))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.sigmoid(tf.math.reduce_max(tf.tanh(h)) / 0.5))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.sigmoid(tf.clip_by_value(z, clip_value_min=-5.0, clip_value_max=5.0)))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.sigmoid(tf.tanh(h) / 1" + "0" * 400 + "))\n",
])
def test_near_misses(source):
    assert findings(source, TFE404) == []


def test_fixture_log_of_sigmoid_is_minus_inf_where_log_sigmoid_is_exact(tf):
    bad = load_module(FIXTURES / "log_of_sigmoid" / "bad.py").main()
    good = load_module(FIXTURES / "log_of_sigmoid" / "good.py").main()
    assert bad["log_p"].numpy()[0] == -np.inf and np.isnan(bad["d_log_p"].numpy()[0])
    assert bad["log_not_p"].numpy()[3] == -np.inf and np.isnan(bad["d_log_not_p"].numpy()[3])
    np.testing.assert_allclose(good["log_p"].numpy()[0], -200.0)
    np.testing.assert_allclose(good["log_not_p"].numpy()[3], -20.0, rtol=1e-6)
    np.testing.assert_allclose(bad["guarded"].numpy()[0], np.log(1e-7), rtol=1e-3)
    for name in good:
        assert np.isfinite(good[name].numpy()).all(), name


@pytest.mark.parametrize("source, column", [
    ("import tensorflow as tf\ny = tf.log(tf.compat.v1.layers.dense(x, 1, activation=tf.sigmoid))\n", 5),
    ("import tensorflow as tf\ny = tf.log(1 - tf.layers.dense(x, 1, activation=tf.math.sigmoid))\n", 5),
    ("import tensorflow as tf\np = tf.keras.layers.Dense(1, activation='sigmoid')(x)\ny = tf.math.log(p)\n", 5),
    ("import tensorflow as tf\nimport keras\ny = tf.math.log(keras.layers.Dense(1, activation=keras.activations.sigmoid)(x))\n", 5),
    ("import tensorflow as tf\ny = tf.math.log(tf.keras.layers.Activation(tf.nn.sigmoid)(x) + 1e-7)\n", 5),
    ("import tensorflow as tf\nclass M:\n    def __init__(self, x):\n        self.p = tf.sigmoid(x)\n"
     "m = M(x)\ny = tf.math.log(1.0 - m.p)\n", 5),
])
def test_sigmoid_activations_and_attributes_are_reported_without_a_fix(source, column):
    line = source.count("\n")
    assert findings(source, ["TFE404"]) == [(line, column, "TFE404")]
    assert fixed(source, ["TFE404"]) == source


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\ny = tf.math.log(tf.keras.layers.Dense(1, activation='relu')(x))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.keras.layers.Dense(1, activation=None)(x))\n",
    "import tensorflow as tf\ndef f(x, act):\n    return tf.math.log(tf.keras.layers.Dense(1, activation=act)(x))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.keras.layers.Dense(1, activation='softmax')(x))\n",
    "import tensorflow as tf\nd = tf.keras.layers.Dense(1, activation='sigmoid')\ny = tf.math.log(2.0 - d(x))\n",
])
def test_sigmoid_activation_near_misses(source):
    assert findings(source, ["TFE404"]) == []


def test_fixture_sigmoid_layers_are_minus_inf_where_log_sigmoid_is_exact(tf):
    bad = load_module(FIXTURES / "log_of_sigmoid" / "bad.py").main()
    good = load_module(FIXTURES / "log_of_sigmoid" / "good.py")
    layers = bad["layers"]
    assert layers["log_p"].numpy()[0, 0] == -np.inf and np.isnan(bad["d_layers"].numpy()[0])
    assert layers["log_not_p"].numpy()[3, 0] == -np.inf
    assert layers["activation"].numpy()[0] == -np.inf
    assert np.isfinite(layers["linear"].numpy()).all() and np.isfinite(layers["relu"].numpy()).all()
    corrected = good.keras_layers(tf.constant(good.LOGITS))
    np.testing.assert_allclose(corrected["log_p"].numpy()[0, 0], -200.0)
    np.testing.assert_allclose(corrected["log_not_p"].numpy()[3, 0], -20.0, rtol=1e-6)


def test_a_sigmoid_an_inherited_method_returns():
    source = dedent("""\
        import tensorflow as tf
        class Base(object):
            def probs(self):
                return tf.sigmoid(self.logits)
        class Model(Base):
            def loss(self, y):
                return -(y * tf.math.log(self.probs()) + (1 - y) * tf.math.log(1 - self.probs()))
    """)
    assert findings(source, TFE404) == [(7, 22, "TFE404"), (7, 60, "TFE404")]
    assert fixed(source, TFE404) == source


def test_a_sigmoid_a_layer_helper_applies_for_its_caller():
    source = dedent("""\
        import tensorflow as tf
        def layer(x, act=None):
            if act:
                return act(tf.matmul(x, w))
            return tf.matmul(x, w)
        p = layer(h, act=tf.nn.sigmoid)
        q = layer(h)
        loss = -tf.reduce_mean(y * tf.math.log(p) + (1 - y) * tf.math.log(1 - q))
    """)
    assert findings(source, TFE404) == [(8, 28, "TFE404")]
    assert fixed(source, TFE404) == source


@pytest.mark.parametrize("argument", ["tf.tanh(h) * 8", "tf.tanh(h) * w", "s + x", "tf.clip_by_value(z, -50.0, 5.0)",
                                      "tf.clip_by_value(z, lo, 5.0)", "s / 0.1", "s / w", "tf.divide(s, w)",
                                      "tf.reduce_sum(s)", "tf.clip_by_value(z, -5.0)", "s / 1e-320", "s * 1" + "0" * 400])
def test_arguments_bounded_too_loosely_or_not_at_all_are_reported(argument):
    source = f"import tensorflow as tf\ns = tf.sigmoid(x)\ny = tf.math.log(tf.sigmoid({argument}))\n"
    assert findings(source, TFE404) == [(3, 5, "TFE404")]


def test_a_sigmoid_in_a_name_assigned_several_times_in_order():
    """Each section of a course script assigns the hypothesis again: each log reads the one before it."""
    section = ("H = tf.sigmoid(tf.matmul(X, W) + b)\n"
               "cost = -tf.reduce_mean(Y * tf.log(H) + (1 - Y) * tf.log(1 - H))\n")
    source = "import tensorflow as tf\n" + section + "H = tf.matmul(X, W) + b\nprint(tf.log(H))\n" + section
    assert findings(source, TFE404) == [(3, 28, "TFE404"), (3, 50, "TFE404"), (7, 28, "TFE404"), (7, 50, "TFE404")]


PARAMETER = """\
    import tensorflow as tf

    def _likelihood(p, y):
        return y * tf.math.log(p) + (1 - y) * tf.math.log(1 - p)

    def _focal(scores, y):
        scores = tf.sigmoid(scores)
        return y * tf.math.log(scores)

    def loss(z, y):
        return _likelihood(tf.sigmoid(z), y) + _focal({scores}, y)
"""


def test_a_parameter_every_call_passes_a_sigmoid_is_reported_without_a_fix():
    source = dedent(PARAMETER).format(scores="z")
    assert findings(source, TFE404) == [(4, 16, "TFE404"), (4, 43, "TFE404"), (8, 16, "TFE404")]
    assert fixed(source, TFE404) == source


def test_a_sigmoid_of_a_parameter_every_call_passes_a_softmax_is_bounded():
    source = dedent(PARAMETER).format(scores="tf.nn.softmax(z)")
    assert findings(source, TFE404) == [(4, 16, "TFE404"), (4, 43, "TFE404")]


GUARDED_ATTRIBUTE = """\
    import tensorflow as tf

    class VAE:
        def decoder(self, z):
            with tf.variable_scope("decoder"):
                out = tf.nn.sigmoid(tf.layers.dense(z, 784))
                return out

        def {method}(self):
            out = self.decoder(self.z)
            self.out = tf.clip_by_value(out, 1e-8, 1 - 1e-8)
            {read}ll = self.x * tf.math.log(self.out) + (1 - self.x) * tf.math.log(1 - self.out)
"""


def test_a_guard_held_by_an_attribute_of_the_same_function_and_inside_a_complement():
    source = dedent(GUARDED_ATTRIBUTE).format(method="build", read="")
    assert [(d.line, d.col, d.severity) for d in lint_source(source, select=TFE404)] == [
        (12, 22, "info"), (12, 61, "info")]


def test_a_guard_held_by_an_attribute_read_in_another_method_is_not_followed():
    source = dedent(GUARDED_ATTRIBUTE).format(method="build", read="\n    def loss(self):\n        ")
    assert findings(source, TFE404) == []
