import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import findings

PX = ("import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.float32, [None, 1])\n"
      "y = tf.placeholder(tf.float32, [None])\n")
CASES = [
    ("import tensorflow as tf\ny = tf.squeeze(x)\n", [(2, 5, "TFE103")]),
    ("import tensorflow.compat.v1 as tf\ny = tf.squeeze(x, name='s')\n", [(2, 5, "TFE103")]),
    ("from tensorflow import squeeze\ny = squeeze(x)\n", [(2, 5, "TFE103")]),
    ("import tensorflow as tf\ny = tf.squeeze(x, 1)\n", []),
    ("import tensorflow as tf\ny = tf.squeeze(x, axis=[1, 2])\n", []),
    ("import tensorflow.compat.v1 as tf\ny = tf.squeeze(x, squeeze_dims=[1])\n", []),
    ("import numpy as np\ny = np.squeeze(x)\n", []),
    ("import tensorflow as tf\ny = x.squeeze()\n", []),
    # a static shape spelled out has no dimension to lose by surprise
    ("import tensorflow as tf\ny = tf.squeeze(tf.constant([[1.0]]))\n", []),
    ("import tensorflow as tf\nv = tf.Variable([1.0])\ny = tf.squeeze(v)\n", []),
]


@pytest.mark.parametrize("source, expected", [
    ("import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.float32, [None, 1])\ny = tf.squeeze(x)\n", "warning"),
    ("import tensorflow.compat.v1 as tf\nv = tf.layers.dense(h, 1)\ny = tf.squeeze(tf.sigmoid(v) * 2)\n", "warning"),
    ("import tensorflow as tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(h))\n", "warning"),
    # no batch dimension in sight: a parameter, an attribute
    ("import tensorflow as tf\ny = tf.squeeze(x)\n", "info"),
    ("import tensorflow as tf\ny = tf.squeeze(self.variance)\n", "info"),
    ("import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.float32, [1, None])\ny = tf.squeeze(x)\n", "info"),
    # into a full reduction or a histogram through element-wise ops: a lost size-1 dimension only
    # broadcasts there
    (PX + "a = tf.reduce_mean(tf.cast(tf.equal(tf.squeeze(x), y), tf.float32))\n", "info"),
    (PX + "a = tf.reduce_sum(-tf.math.log(tf.squeeze(x)) * 2.0)\n", "info"),
    (PX + "tf.summary.histogram('h', tf.squeeze(x))\n", "info"),
    # ... and so does a name bound once to it, read only there
    (PX + "a = tf.squeeze(x)\nb = tf.reduce_mean(a)\n", "info"),
    (PX + "def f():\n    a = tf.sigmoid(tf.squeeze(x))\n    return tf.reduce_sum(a * 2.0), tf.reduce_mean(-a)\n",
     "info"),
    # ... or a function's local never read: a dead value loses nothing
    (PX + "def f():\n    a = tf.squeeze(x)\n", "info"),
    # near misses: a reduction along an axis, a concatenation, a product; a name also read elsewhere,
    # bound twice, never read at module level (another module may import it), read in a nested function,
    # or passed on through another name
    (PX + "a = tf.reduce_sum(tf.squeeze(x), axis=0)\n", "warning"),
    (PX + "a = tf.reduce_mean(tf.concat([tf.squeeze(x), y], 0))\n", "warning"),
    (PX + "a = tf.reduce_sum(tf.squeeze(x) @ w)\n", "warning"),
    (PX + "a = tf.squeeze(x)\nb = tf.reduce_mean(a)\nc = a + y\n", "warning"),
    (PX + "def f():\n    a = tf.squeeze(x)\n    print(tf.reduce_mean(a))\n    return a\n", "warning"),
    (PX + "a = tf.squeeze(x)\nb = tf.reduce_mean(a)\na = y\n", "warning"),
    (PX + "a = tf.squeeze(x)\n", "warning"),
    (PX + "def f():\n    a = tf.squeeze(x)\n    a = y\n", "warning"),
    (PX + "def f():\n    a = tf.squeeze(x)\n    g = lambda: a\n    return tf.reduce_mean(a)\n", "warning"),
    (PX + "def f():\n    a = tf.squeeze(x)\n    b = a\n    return tf.reduce_mean(a)\n", "warning"),
    (PX + "a = tf.squeeze(x)\nb = tf.reduce_mean(a, axis=0)\n", "warning"),
])
def test_warning_only_where_a_batch_dimension_shows(source, expected):
    from tflint_effective.engine.lint import lint_source

    assert [d.severity for d in lint_source(source, select=["TFE103"])] == [expected]


@pytest.mark.parametrize("source, expected", CASES)
def test_findings(source, expected):
    assert findings(source) == expected


def test_fixture_loses_the_batch_dimension(tf):
    bad = load_module(FIXTURES / "squeeze_without_axis" / "bad.py").main()
    good = load_module(FIXTURES / "squeeze_without_axis" / "good.py").main()
    assert bad["batch_of_two"].shape == (2,)
    assert bad["batch_of_one"].shape == ()  # the batch dimension is gone
    assert good["batch_of_one"].shape == (1,)
