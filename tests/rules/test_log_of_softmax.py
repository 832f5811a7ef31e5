import numpy as np
import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import dedent, findings, fixed

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
])
def test_near_misses(source):
    assert findings(source, TFE402) == []


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


def test_a_naive_softmax_under_a_log_converges_to_log_softmax():
    source = "import tensorflow as tf\ny = tf.math.log(tf.exp(x) / tf.reduce_sum(tf.exp(x), -1, keepdims=True))\n"
    assert findings(source, ["TFE401", "TFE402"]) == [(2, 17, "TFE401")]
    assert fixed(source, ["TFE401", "TFE402"]) == "import tensorflow as tf\ny = tf.nn.log_softmax(x, axis=-1)\n"
