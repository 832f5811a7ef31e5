import numpy as np
import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import dedent, findings, fixed, lint_source

TFE402 = ["TFE402"]


@pytest.mark.parametrize("source, expected", [
    ("import tensorflow as tf\ny = tf.math.log(tf.nn.softmax(x, axis=1))\n",
     "import tensorflow as tf\ny = tf.nn.log_softmax(x, axis=1)\n"),
    ("import tensorflow.compat.v1 as tf1\ny = tf1.log(tf1.nn.softmax(x, 0))\n",
     "import tensorflow.compat.v1 as tf1\ny = tf1.nn.log_softmax(x, 0)\n"),
    ("import tensorflow as tf\ny = tf.math.log(tf.compat.v1.nn.softmax(x, dim=0))\n",
     "import tensorflow as tf\ny = tf.compat.v1.nn.log_softmax(x, dim=0)\n"),
    ("from tensorflow import nn, math\ny = math.log(nn.softmax(x))\n",
     "from tensorflow import nn, math\ny = nn.log_softmax(x)\n"),
    ("from tensorflow import math as tm\ny = tm.log(tm.softmax(x))\n",
     "from tensorflow import math as tm\ny = tm.log_softmax(x)\n"),
    ("import tensorflow as tf\nfrom tensorflow.nn import softmax\ny = tf.math.log(softmax(x))\n",
     "import tensorflow as tf\nfrom tensorflow.nn import softmax\ny = tf.nn.log_softmax(x)\n"),
])
def test_log_of_softmax_becomes_log_softmax_in_the_users_spelling(source, expected):
    line = source.count("\n")
    assert findings(source, TFE402) == [(line, 5, "TFE402")]
    assert fixed(source, TFE402) == expected


def test_through_a_name():
    source = dedent("""\
        import tensorflow as tf
        def f(logits):
            p = tf.nn.softmax(logits, axis=-1)
            return tf.math.log(p), p
    """)
    assert findings(source, TFE402) == [(4, 12, "TFE402")]
    assert fixed(source, TFE402) == source.replace("tf.math.log(p)", "tf.nn.log_softmax(logits, axis=-1)")


def test_nested_forms_converge():
    source = "import tensorflow as tf\ny = tf.math.log(tf.nn.softmax(tf.math.log(tf.nn.softmax(x))))\n"
    assert findings(source, TFE402) == [(2, 5, "TFE402"), (2, 31, "TFE402")]
    assert fixed(source, TFE402) == "import tensorflow as tf\ny = tf.nn.log_softmax(tf.nn.log_softmax(x))\n"


@pytest.mark.parametrize("source", [
    # guarded: the cure changes the (floored) values
    "import tensorflow as tf\ny = tf.math.log(tf.nn.softmax(x) + 1e-9)\n",
    "import tensorflow as tf\ny = tf.math.log(1e-9 + tf.nn.softmax(x))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.clip_by_value(tf.nn.softmax(x), 1e-9, 1.0))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.maximum(tf.nn.softmax(x), 1e-9))\n",
    "import tensorflow as tf\ndef f(x, eps):\n    return tf.math.log(tf.maximum(eps, tf.nn.softmax(x)))\n",
    # no alias of tensorflow.nn / math in the file
    "from tensorflow.nn import softmax\nfrom tensorflow.math import log\ny = log(softmax(x))\n",
    # the softmax's argument changes between the assignment and the log
    "import tensorflow as tf\ndef f(x):\n    p = tf.nn.softmax(x)\n    x = x * 2\n    return tf.math.log(p)\n",
])
def test_reported_without_a_fix(source):
    assert len(findings(source, TFE402)) == 1
    assert fixed(source, TFE402) == dedent(source)


@pytest.mark.parametrize("source, severity", [
    ("import tensorflow as tf\ndef f(x):\n    return tf.math.log(tf.nn.softmax(x))\n", "error"),
    ("import tensorflow as tf\ny = tf.math.log(tf.nn.softmax(x) + 1e-9)\n", "info"),
    ("import tensorflow as tf\ndef entropy(x):\n    p = tf.nn.softmax(x)\n"
     "    return -p * tf.math.log(p + 1e-8)\n", "info"),
    ("import tensorflow as tf\ny = tf.math.log(tf.clip_by_value(tf.nn.softmax(x), 1e-9, 1.0))\n", "info"),
])
def test_a_guarded_log_is_info(source, severity):
    assert [d.severity for d in lint_source(source, select=["TFE402"])] == [severity]


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\ny = tf.nn.log_softmax(x)\n",
    "import tensorflow as tf\ny = tf.math.log(tf.nn.relu(x) + 1.0)\n",
    # a sum of two distributions is not an epsilon guard
    "import tensorflow as tf\ny = tf.math.log(tf.nn.softmax(x) + tf.nn.softmax(w))\n",
    "import tensorflow as tf\nq = tf.nn.softmax(w)\ny = tf.math.log(tf.maximum(tf.nn.softmax(x), q))\n",
    "import tensorflow as tf\np = tf.nn.softmax(x)\np = 0.9 * p + 0.01\ny = tf.math.log(p)\n",
    "import numpy as np\ny = np.log(np.exp(x) / np.exp(x).sum())\n",
    "import tensorflow as tf\nimport numpy as np\ny = np.log(tf.nn.softmax(x))\n",
    "import tensorflow as tf\ndef softmax(x):\n    return x\ny = tf.math.log(softmax(x))\n",
    # the log factor of a cross-entropy is TFE403's
    "import tensorflow as tf\ny = -tf.reduce_sum(labels * tf.math.log(tf.nn.softmax(x)), -1)\n",
    # logits written out as numbers at most 15 apart (a demo on constants): nothing underflows
    "import tensorflow as tf\nz = tf.constant([[1.0, 2.0, 3.0], [-2, 0, 12.5]])\ny = tf.math.log(tf.nn.softmax(z))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.nn.softmax([0.5, 1.5]))\n",
    "import numpy as np\nimport tensorflow as tf\noutput = np.array([[1.0, 2.0, 3.0]])\n"
    "z = tf.convert_to_tensor(output, dtype=tf.float32)\ny = tf.math.log(tf.nn.softmax(z))\n",
    # logits bounded by construction (at most 7.5 from zero): attention over softmax weights, tanh
    "import tensorflow as tf\na = tf.nn.softmax(e)\ny = tf.math.log(tf.nn.softmax(a * 2.0 - 1))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.nn.softmax(tf.tanh(h) + tf.nn.tanh(g)))\n",
    "import tensorflow as tf\ny = -tf.reduce_sum(labels * tf.math.log(tf.nn.softmax(tf.tanh(x))), -1)\n",
    # only sampled from: a sampler takes log-probabilities, -inf is a zero weight, no gradient flows
    "import tensorflow as tf\ny = tf.random.categorical(tf.math.log(tf.nn.softmax(x)), 1)\n",
    "import tensorflow.compat.v1 as tf\ndef step(o):\n    log_p = tf.log(tf.nn.softmax(o))\n"
    "    return tf.cast(tf.multinomial(log_p, 1), tf.int32), tf.multinomial(logits=log_p, num_samples=2)\n",
    # only its largest entry's index is read: -inf never holds it
    "import tensorflow as tf\ny = tf.argmax(tf.math.log(tf.nn.softmax(x)), axis=-1)\n",
    "import tensorflow.compat.v1 as tf\ndef step(o):\n    log_p = tf.log(tf.nn.softmax(o))\n"
    "    print(tf.argmax(log_p[:5], axis=-1), tf.arg_max(log_p, 1))\n    return tf.multinomial(logits=log_p, num_samples=1)\n",
    # a beam search step keeps the k largest log-probabilities: -inf is not among them
    "import tensorflow.compat.v1 as tf\nbest, ids = tf.nn.top_k(tf.log(tf.nn.softmax(x)), beam * 2)\n",
    "import tensorflow as tf\nlog_p = tf.math.log(tf.nn.softmax(x))\nbest = tf.math.top_k(input=log_p, k=4)\n",
])
def test_near_misses(source):
    assert findings(source, TFE402) == []


@pytest.mark.parametrize("uses", ["return tf.multinomial(log_p, 1), tf.reduce_sum(log_p)",
                                  "return tf.multinomial(tf.ones([1, 2]), log_p)", "return log_p",
                                  "return tf.argmin(log_p, 1)", "return tf.argmax(log_p[i] + noise, 1)",
                                  "return tf.argmax(log_p, 1), log_p[0]", "return tf.argmax(o, log_p)",
                                  "return tf.nn.top_k(log_p, 2), tf.reduce_mean(log_p)"])
def test_a_log_also_used_otherwise_than_sampled_from_is_reported(uses):
    source = f"import tensorflow.compat.v1 as tf\ndef step(o):\n    log_p = tf.log(tf.nn.softmax(o))\n    {uses}\n"
    assert findings(source, TFE402) == [(3, 13, "TFE402")]


@pytest.mark.parametrize("logits", ["tf.constant([0.0, 100.0])", "tf.constant([1.0, 2.0]) * w", "[1.0, x]",
                                    "tf.constant(np.array([[0.0, 100.0]]))", "tf.constant(np.zeros([2, 3]))"])
def test_constant_logits_far_apart_or_not_all_numbers_are_reported(logits):
    source = f"import numpy as np\nimport tensorflow as tf\ny = tf.math.log(tf.nn.softmax({logits}))\n"
    assert findings(source, TFE402) == [(3, 5, "TFE402")]


def test_fixture_log_of_softmax_is_minus_inf_with_nan_gradients(tf):
    bad = load_module(FIXTURES / "log_of_softmax" / "bad.py").main()
    good = load_module(FIXTURES / "log_of_softmax" / "good.py").main()
    assert bad["log_probabilities"].numpy()[0].tolist() == [0.0, -np.inf, -np.inf]
    assert np.isnan(bad["d_log_probabilities"].numpy()[0]).all()
    np.testing.assert_allclose(good["log_probabilities"].numpy()[0], [0.0, -200.0, -205.0])
    # The guard keeps values finite but wrong: floored at log(1e-9) instead of -200.
    np.testing.assert_allclose(bad["guarded"].numpy()[0, 1], np.log(1e-9), rtol=1e-3)
    for name in good:
        assert np.isfinite(good[name].numpy()).all(), name


def test_the_k_largest_log_probabilities_stay_finite_where_others_underflow(tf):
    log_p = tf.math.log(tf.nn.softmax(tf.constant([[200.0, 150.0, 0.0, -5.0]])))
    assert np.isneginf(log_p.numpy()).sum() == 2
    values, ids = tf.nn.top_k(log_p, 2)
    np.testing.assert_allclose(values.numpy(), [[0.0, -50.0]], atol=1e-4)
    assert ids.numpy().tolist() == [[0, 1]]


def test_a_naive_softmax_under_a_log_converges_to_log_softmax():
    source = "import tensorflow as tf\ny = tf.math.log(tf.exp(x) / tf.reduce_sum(tf.exp(x), -1, keepdims=True))\n"
    assert findings(source, ["TFE401", "TFE402"]) == [(2, 17, "TFE401")]
    assert fixed(source, ["TFE401", "TFE402"]) == "import tensorflow as tf\ny = tf.nn.log_softmax(x, axis=-1)\n"


# -- softmax activations of layers, and softmaxes held in attributes (reported, never fixed) --
KERAS = "import tensorflow as tf\nimport keras\n"


@pytest.mark.parametrize("source, column", [
    ("import tensorflow as tf\nh = tf.layers.dense(x, 10, activation=tf.nn.softmax)\ny = tf.log(h)\n", 5),
    ("import tensorflow as tf\ny = tf.log(tf.layers.dense(x, 10, tf.nn.softmax))\n", 5),
    ("import tensorflow as tf\ny = tf.math.log(tf.compat.v1.layers.conv2d(x, 3, 1, activation=tf.math.softmax))\n", 5),
    (KERAS + "probs = tf.keras.layers.Dense(10, activation='softmax')(x)\ny = tf.math.log(probs)\n", 5),
    (KERAS + "y = tf.math.log(tf.keras.layers.Dense(10, tf.nn.softmax)(x))\n", 5),
    (KERAS + "y = tf.math.log(keras.layers.Dense(10, activation=keras.activations.softmax)(x))\n", 5),
    (KERAS + "y = tf.math.log(keras.layers.Dense(10, activation=tf.keras.activations.softmax, **kw)(x))\n", 5),
    (KERAS + "from keras.layers import Softmax\ny = tf.math.log(Softmax(axis=1)(x))\n", 5),
    (KERAS + "y = tf.math.log(tf.keras.layers.Activation('softmax')(x) + 1e-9)\n", 5),
    (KERAS + "layer = tf.keras.layers.Dense(10, activation='softmax')\ndef f(x):\n    return tf.math.log(layer(x))\n", 12),
    (KERAS + "class M(tf.keras.Model):\n    def __init__(self):\n        super().__init__()\n"
     "        self.out = tf.keras.layers.Dense(10, activation='softmax')\n"
     "    def call(self, x):\n        return tf.math.log(self.out(x))\n", 16),
])
def test_softmax_activations_are_reported_without_a_fix(source, column):
    line = source.count("\n")
    assert findings(source, TFE402) == [(line, column, "TFE402")]
    assert fixed(source, TFE402) == source


@pytest.mark.parametrize("source", [
    KERAS + "y = tf.math.log(tf.keras.layers.Dense(10, activation=tf.nn.relu)(x))\n",
    KERAS + "y = tf.math.log(tf.keras.layers.Dense(10, activation=None)(x))\n",
    KERAS + "y = tf.math.log(tf.keras.layers.Dense(10)(x))\n",
    KERAS + "def f(x, act):\n    return tf.math.log(tf.keras.layers.Dense(10, activation=act)(x))\n",
    KERAS + "y = tf.math.log(tf.keras.layers.Dense(10, *args)(x))\n",
    # the activation of an LSTM is not applied last
    KERAS + "y = tf.math.log(tf.keras.layers.LSTM(10, activation='softmax')(x))\n",
    KERAS + "layer = tf.keras.layers.Dense(10, activation='softmax')\ny = tf.math.log(0.9 * layer(x) + 0.01)\n",
    KERAS + "layer = tf.keras.layers.Dense(10, activation='softmax')\ny = tf.math.log(tf.nn.relu(layer(x)))\n",
    KERAS + "layer = tf.keras.layers.Dense(10, activation='softmax')\nlayer = other\ny = tf.math.log(layer(x))\n",
    "import tensorflow as tf\ny = tf.log(tf.layers.dense(x, 10, activation=tf.nn.sigmoid))\n",
    "import tensorflow as tf\nfrom mylayers import Dense\ny = tf.math.log(Dense(10, activation='softmax')(x))\n",
])
def test_activation_near_misses(source):
    assert findings(source, TFE402) == []


MODEL = """\
import tensorflow as tf
class Model:
    def __init__(self, x):
        self.p = tf.nn.softmax(x)
"""


@pytest.mark.parametrize("use, line, column", [
    ("    def log_p(self):\n        return tf.math.log(self.p)\n", 6, 16),
    ("model = Model(tf.ones([3]))\ny = tf.math.log(model.p)\n", 6, 5),
    ("model = Model(tf.ones([3]))\ndef f():\n    return tf.math.log(model.p + 1e-9)\n", 7, 12),
    ("def f(x):\n    model = Model(x)\n    return tf.math.log(model.p)\n", 7, 12),
])
def test_a_softmax_held_in_an_attribute(use, line, column):
    source = MODEL + use
    assert findings(source, TFE402) == [(line, column, "TFE402")]
    assert fixed(source, TFE402) == source


@pytest.mark.parametrize("use", [
    # the name is rebound
    "model = Model(tf.ones([3]))\nmodel = other\ny = tf.math.log(model.p)\n",
    "def f(model):\n    return tf.math.log(model.p)\n",
    # the attribute is also assigned a non-softmax, in the class or outside it
    "    def reset(self):\n        self.p = tf.ones([3])\nmodel = Model(x)\ny = tf.math.log(model.p)\n",
    "model = Model(x)\nmodel.p = tf.ones([3])\ny = tf.math.log(model.p)\n",
    "model = Model(x)\nother.p = 1.0\ny = tf.math.log(model.p)\n",
    "    p = None\nmodel = Model(x)\ny = tf.math.log(model.p)\n",
    # another class (a subclass may assign p), a class of another module, a decorated class
    "class Other:\n    pass\nmodel = Other()\ny = tf.math.log(model.p)\n",
    "from models import Model as Imported\nmodel = Imported(x)\ny = tf.math.log(model.p)\n",
    "model = Model(x)\ny = tf.math.log(model.q)\n",
])
def test_attribute_near_misses(use):
    assert findings(MODEL + use, TFE402) == []


def test_a_softmax_held_through_a_chained_assignment():
    source = MODEL.replace("self.p = tf.nn.softmax(x)", "self.p = p = tf.nn.softmax(x)") + (
        "    def log_p(self):\n        return tf.math.log(self.p)\n")
    assert findings(source, TFE402) == [(6, 16, "TFE402")]


def test_decorated_class_is_not_followed():
    source = MODEL.replace("class Model:", "@dataclass\nclass Model:") + "model = Model(x)\ny = tf.math.log(model.p)\n"
    assert findings(source, TFE402) == []


CONSTANT_LOGITS = """\
import tensorflow as tf
class Demo:
    def __init__(self):
        self.logits = LOGITS
        self.p = tf.nn.softmax(self.logits)

    def compare(self):
        return tf.math.log(self.p)
"""


def test_constant_logits_an_attribute_holds_are_a_demo():
    assert findings(CONSTANT_LOGITS.replace("LOGITS", "[[2, 0.5, 1], [0.1, 1, 3]]"), TFE402) == []


@pytest.mark.parametrize("logits", ["[[0.0, 100.0]]", "features"])
def test_attribute_logits_far_apart_or_unknown_are_reported(logits):
    assert findings(CONSTANT_LOGITS.replace("LOGITS", logits), TFE402) == [(8, 16, "TFE402")]


def test_constant_logits_of_an_attribute_also_assigned_elsewhere_are_reported():
    source = CONSTANT_LOGITS.replace("LOGITS", "[[2, 0.5, 1]]") + "    def load(self, x):\n        self.logits = x\n"
    assert findings(source, TFE402) == [(8, 16, "TFE402")]


def test_fixture_layers_and_attributes_are_minus_inf_where_log_softmax_is_exact(tf):
    bad = load_module(FIXTURES / "log_of_softmax" / "bad.py").main()
    good = load_module(FIXTURES / "log_of_softmax" / "good.py")
    for name in ("by_name", "by_op", "by_keras", "softmax_layer", "activation_layer"):
        assert bad["layers"][name].numpy()[0].tolist() == [0.0, -np.inf, -np.inf], name
    assert np.isnan(bad["d_layers"].numpy()[0]).all()
    for name in ("relu", "linear", "unknown", "smoothed"):
        assert np.isfinite(bad["layers"][name].numpy()).all(), name
    for name in ("from_attribute", "from_an_instance", "from_helper"):
        assert bad[name].numpy()[0].tolist() == [0.0, -np.inf, -np.inf], name
    corrected = good.keras_layers(tf.constant(good.LOGITS))["by_name"]
    np.testing.assert_allclose(corrected.numpy()[0], [0.0, -200.0, -205.0])


HELPERS = """\
import tensorflow as tf
def probs(x):
    return tf.nn.softmax(x)
class Base:
    def probs(self, x):
        p = tf.nn.softmax(x)
        return p
"""


@pytest.mark.parametrize("use, line, column", [
    ("y = tf.math.log(probs(x))\n", 8, 5),
    ("class Child(Base):\n    def log_p(self, x):\n        return tf.math.log(self.probs(x))\n", 10, 16),
    ("class Child(Base):\n    pass\nclass Grandchild(Child):\n    def log_p(self, x):\n"
     "        return tf.math.log(self.probs(x))\n", 12, 16),
    # a helper returning another helper's softmax, a method returning the attribute it sets
    ("def chained(x):\n    return probs(x)\ny = tf.math.log(chained(x))\n", 10, 5),
    ("class Net:\n    def net(self, x):\n        self.out = tf.nn.softmax(x)\n        return self.out\n"
     "    def loss(self, x):\n        self.p = self.net(x)\n        return tf.math.log(self.p)\n", 14, 16),
])
def test_a_softmax_a_function_of_the_module_returns(use, line, column):
    source = HELPERS + use
    assert findings(source, TFE402) == [(line, column, "TFE402")]
    assert fixed(source, TFE402) == source


@pytest.mark.parametrize("use", [
    # the subclass overrides the method, or has two bases; a helper of another module
    "class Child(Base):\n    def probs(self, x):\n        return x\n    def f(self, x):\n"
    "        return tf.math.log(self.probs(x))\n",
    "class Child(Base, Mixin):\n    def f(self, x):\n        return tf.math.log(self.probs(x))\n",
    "from helpers import probs as other\ny = tf.math.log(other(x))\n",
    "y = tf.math.log(probs(*x))\n",
    # a decorated helper, one that may return something else, a generator, a clipped softmax
    "@cached\ndef p2(x):\n    return tf.nn.softmax(x)\ny = tf.math.log(p2(x))\n",
    "def p2(x):\n    if x is None:\n        return 0.5\n    return tf.nn.softmax(x)\ny = tf.math.log(p2(x))\n",
    "def p2(x):\n    yield tf.nn.softmax(x)\n    return tf.nn.softmax(x)\ny = tf.math.log(p2(x))\n",
    "def p2(x):\n    return tf.clip_by_value(tf.nn.softmax(x), 1e-6, 1.0)\ny = tf.math.log(p2(x))\n",
])
def test_function_near_misses(use):
    assert findings(HELPERS + use, TFE402) == []


@pytest.mark.parametrize("logits", ["tf.tanh(h) * 10.0", "tf.tanh(h) * w", "a * 8", "a + x", "tf.nn.relu(a)"])
def test_logits_bounded_too_loosely_or_not_at_all_are_reported(logits):
    source = f"import tensorflow as tf\na = tf.nn.softmax(e)\ny = tf.math.log(tf.nn.softmax({logits}))\n"
    assert findings(source, TFE402) == [(3, 5, "TFE402")]


def test_a_name_assigned_several_times_in_order():
    """The assignment before the log decides (``y`` holds labels first, then the softmax)."""
    source = dedent("""\
        import tensorflow as tf
        logits = tf.layers.dense(x, 3)
        y = tf.placeholder(tf.float32, [None, 3])
        y = tf.nn.softmax(logits)
        log_p = tf.log(y)
        y = labels
        not_a_softmax = tf.log(y)
    """)
    assert findings(source, TFE402) == [(5, 9, "TFE402")]
    assert fixed(source, TFE402) == source.replace("tf.log(y)\ny = labels", "tf.nn.log_softmax(logits)\ny = labels")


@pytest.mark.parametrize("source", [
    # the softmax may not be what the name holds at the log
    "y = dense(x)\nif last:\n    y = tf.nn.softmax(y)\nlog_p = tf.log(y)\n",
    "y = tf.nn.softmax(x)\nfor layer in layers:\n    y = layer(y)\nlog_p = tf.log(y)\n",
    # assigned again before the log
    "y = tf.nn.softmax(x)\ny = dense(y)\nlog_p = tf.log(y)\n",
])
def test_a_name_assigned_several_times_near_misses(source):
    assert findings("import tensorflow as tf\n" + source, TFE402) == []
