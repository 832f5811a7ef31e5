import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import findings

TF = "import tensorflow as tf\n"
CASES = [
    ("import tensorflow as tf\ny = tf.reduce_sum(x)\n", [(2, 5, "TFE101")]),
    ("import tensorflow as tf\ny = tf.math.reduce_euclidean_norm(x)\n", [(2, 5, "TFE101")]),
    ("import tensorflow.compat.v1 as tf\ny = tf.reduce_logsumexp(x)\n", [(2, 5, "TFE101")]),
    ("import tensorflow\ny = tensorflow.math.reduce_variance(x)\n", [(2, 5, "TFE101")]),
    ("from tensorflow import math as tm\nflag = tm.reduce_any(x)\n", [(2, 8, "TFE101")]),
    ("from tensorflow.math import reduce_all\nz = [reduce_all(v) for v in xs]\n", [(2, 6, "TFE101")]),
    ("import tensorflow as tf\ny = tf.compat.v1.count_nonzero(x)\n", [(2, 5, "TFE101")]),
    ("import tensorflow as tf\ntotal = tf.math.reduce_sum\ny = total(x)\n", [(3, 5, "TFE101")]),
    # Keras's reductions: the backend's (tf.keras, Keras 2, tf_keras) and Keras 3's keras.ops
    ("import tensorflow as tf\nfrom tensorflow.keras import backend as K\ny = K.mean(x, keepdims=True)\n",
     [(3, 5, "TFE101")]),
    ("import tensorflow as tf\ny = tf.keras.backend.sum(x)\n", [(2, 5, "TFE101")]),
    ("import keras.backend as K\nimport tensorflow as tf\n"
     "y = K.max(x) + K.mean(x, -1) + K.sum(x, axis=1) + K.maximum(x, 0)\n", [(3, 5, "TFE101")]),
    ("import tensorflow as tf\nfrom keras.backend import mean\ny = mean(x)\n", [(3, 5, "TFE101")]),
    ("import tensorflow as tf\nfrom keras import ops\ny = ops.mean(x) + ops.count_nonzero(x, 0)\n", [(3, 5, "TFE101")]),
    ("import tensorflow as tf\nfrom myproj import ops, backend\ny = ops.mean(x) + backend.sum(x)\n", []),
    # functools.partial: reported where the partial is called, unless one of them gives the axis
    ("import functools\nimport tensorflow as tf\ns = functools.partial(tf.reduce_sum, keepdims=True)\n"
     "y = s(x) + s(x, 1) + s(x, axis=0)\n", [(4, 5, "TFE101")]),
    ("from functools import partial\nimport tensorflow as tf\ns = partial(tf.reduce_max, x)\ny = s()\n",
     [(4, 5, "TFE101")]),
    ("from functools import partial\nimport tensorflow as tf\ns = partial(tf.reduce_max, x, 0)\n"
     "m = partial(tf.reduce_mean, axis=-1)\ny = s() + m(x) + s(*a)\n", []),
    ("from functools import partial\nimport tensorflow as tf\ns = partial(tf.reduce_max, input_tensor=x)\n"
     "y = s(keepdims=True) + s(axis=1)\n", [(4, 5, "TFE101")]),
    # a shape or a scalar: no other axis to mean
    ("import tensorflow as tf\nn = tf.reduce_prod(tf.shape(x)[1:]) + tf.reduce_prod(x.shape)\n", []),
    ("import tensorflow as tf\ns = tf.shape(x)\nn = tf.reduce_prod(input_tensor=s[:-1])\n", []),
    ("import tensorflow as tf\nfrom tensorflow_probability.python.internal import prefer_static as ps\n"
     "n = tf.reduce_prod(ps.shape(y)[:-3])\n", []),
    ("import tensorflow as tf\nn = tf.reduce_prod(dist.batch_shape_tensor()) + tf.reduce_prod(shape(y))\n",
     [(2, 5, "TFE101"), (2, 49, "TFE101")]),
    ("import tensorflow as tf\nt = tf.reduce_sum(x, axis=None)\ny = tf.reduce_mean(t)\n", []),
    ("import tensorflow as tf\ny = tf.reduce_max([n - k, 0]) + tf.reduce_min((a, -1.0, b))\n", []),
    ("import tensorflow as tf\nt = tf.reduce_sum(x, axis=None)\ny = tf.reduce_all([a, t > 0])\n", []),
    ("import tensorflow as tf\ny = tf.reduce_max([a, b]) + tf.reduce_max((a, a + 1))\n", [(2, 5, "TFE101"), (2, 29, "TFE101")]),
    ("import tensorflow as tf\ns = tf.shape(x)\ns = s * 2\ny = tf.reduce_prod(s)\n", [(4, 5, "TFE101")]),
    # near misses
    ("import tensorflow as tf\ny = tf.reduce_sum(x, 0)\n", []),
    ("import tensorflow as tf\ny = tf.reduce_sum(x, axis=None)\n", []),
    ("import tensorflow as tf\ny = tf.reduce_sum(input_tensor=x, axis=[0, 1])\n", []),
    ("import tensorflow.compat.v1 as tf\ny = tf.reduce_sum(x, reduction_indices=1)\n", [(2, 22, "TFE102")]),
    ("import tensorflow as tf\ny = tf.reduce_sum(*args)\n", []),
    ("import numpy as np\ny = np.sum(x)\n", []),
    ("import tensorflow as tf\ndef f(tf):\n    return tf.reduce_sum(x)\n", []),
    ("from keras import ops\ny = ops.sum(x)\n", []),
    ("def reduce_sum(x):\n    return x\ny = reduce_sum(3)\n", []),
]


@pytest.mark.parametrize("source, expected", CASES)
def test_findings(source, expected):
    assert findings(source) == expected


def test_fixture_shows_the_silent_broadcast(tf):
    bad = load_module(FIXTURES / "reduction_without_axis" / "bad.py").main()
    good = load_module(FIXTURES / "reduction_without_axis" / "good.py").main()
    assert float(bad["total"]) == 12.0  # the broadcast [2, 2] matrix summed
    assert float(good["total"]) == 6.0  # what was meant
    assert good["exposed"].shape == (2,)  # an axis turns the mistake into a wrong rank
    assert bad["per_row"].numpy().tolist() == [5.0, 7.0]


@pytest.mark.parametrize("source, expected", [
    # two inputs only the callers shape, meeting in a broadcasting operator: warning
    ("import tensorflow as tf\ndef f(x: tf.Tensor, y: tf.Tensor):\n    return tf.reduce_sum(x + y)\n", "warning"),
    (TF + "def f(labels: tf.Tensor, p: tf.Tensor):\n    return -tf.reduce_mean(labels * tf.math.log(p))\n", "warning"),
    (TF + "def _f(a, b):\n    d = a - b\n    return tf.reduce_max(d)\n"
          "m = _f(tf.ones([3]), tf.zeros([3]))\n", "warning"),
    # static shapes that both grow: [2, 1] against [2] is [2, 2]
    ("import tensorflow as tf\nx = tf.constant([[1.], [2.]])\ny = tf.constant([1., 2.])\nt = tf.reduce_sum(x + y)\n",
     "warning"),
    # one value, a value scaled by a number, or operands whose shapes the analysis cannot compare: info
    ("import tensorflow as tf\ntotal = tf.reduce_sum(x + y)\n", "info"),
    ("import tensorflow as tf\ntotal = tf.reduce_sum(x)\n", "info"),
    ("import tensorflow as tf\ntotal = tf.reduce_sum(2.0 * x)\n", "info"),
    ("import tensorflow as tf\ntotal = tf.reduce_mean(tf.square(x - 1))\n", "info"),
    ("import tensorflow as tf\nx = tf.constant([[1., 2.]])\ny = tf.constant([1., 2.])\nt = tf.reduce_sum(x + y)\n",
     "info"),  # [1, 2] against [2]: only one grows
])
def test_severity_warning_only_where_operands_broadcast(source, expected):
    from tflint_effective.engine.lint import lint_source

    assert [d.severity for d in lint_source(source, select=["TFE101"])] == [expected]


@pytest.mark.parametrize("source, expected", [
    # two different tensors with possibly different shapes, each a parameter: warning
    (TF + "def f(labels, logits):\n    \"\"\"Args:\n      labels: a `Tensor`.\n      logits: a `Tensor`.\n"
          "    \"\"\"\n    return tf.reduce_mean(labels - logits)\n", "warning"),
    ("import tensorflow as tf\nt = tf.ones([3])\nu = tf.zeros([3, 1])\ny = tf.reduce_sum(t - u)\n", "warning"),
    (TF + "def f(p: tf.Tensor, q: tf.Tensor):\n    return tf.reduce_sum(p * tf.math.log(q))\n", "warning"),
    (TF + "def f(g: tf.Tensor, h: tf.Tensor, lr=0.1):\n    return tf.reduce_sum(g * h * (lr * lr))\n", "warning"),
    # one operand computed from both, or held in an attribute: the shapes may well be tied, info
    ("import tensorflow as tf\ndef f(p, q):\n    return tf.reduce_sum(p * tf.math.log(p + q))\n", "info"),
    ("import tensorflow as tf\nclass A:\n    def __init__(self, x):\n        self.p = tf.nn.softmax(x)\n"
     "    def f(self, y):\n        return tf.reduce_sum(y * self.p)\n", "info"),
    # a Python number read from a dict or an attribute is no tensor operand: info
    ("import tensorflow as tf\ndef f(x, cfg):\n    return tf.reduce_sum(x * cfg['eps'])\n", "info"),
    ("import tensorflow as tf\nclass L:\n    def __init__(self, eps=1e-8):\n        self.eps = eps\n"
     "    def f(self, loss):\n        return tf.reduce_mean(loss + self.eps)\n", "info"),
    ("import tensorflow as tf\nclass L:\n    def __init__(self):\n        self.eps = 1e-8\n"
     "    @tf.function\n    def f(self, loss):\n        return tf.reduce_mean(loss + self.eps)\n", "info"),
    ("import tensorflow as tf\ndef f(x, eps=1e-8):\n    return tf.reduce_sum(x * eps)\n", "info"),
    ("import tensorflow as tf\ndef f(x):\n    return tf.reduce_all(b'dog' == x)\n", "info"),
    # an element-wise function of the same tensor has its shape: info
    ("import tensorflow as tf\ndef f(p):\n    return -tf.reduce_sum(p * tf.math.log(p))\n", "info"),
    ("import tensorflow as tf\nEPS = 1e-8\ndef f(p):\n    return -tf.reduce_sum(p * tf.math.log(p + EPS))\n", "info"),
    ("import tensorflow as tf\ndef f(p, eps=1e-8):\n    return -tf.reduce_sum(p * tf.math.log(p + eps))\n", "info"),
    ("import tensorflow as tf\ndef f(p):\n    return tf.reduce_sum(-p * tf.math.log(1e-10 + p))\n", "info"),
    ("import tensorflow as tf\ndef f(p):\n    return tf.reduce_sum((1 - p) * tf.square(p))\n", "info"),
])
def test_severity_needs_two_tensors_of_possibly_different_shapes(source, expected):
    from tflint_effective.engine.lint import lint_source
    assert [d.severity for d in lint_source(source, select=["TFE101"])] == [expected]


def _severities(source):
    from tflint_effective.engine.lint import lint_source
    return [(d.line, d.col, d.severity) for d in lint_source(source, select=["TFE101"])]


@pytest.mark.parametrize("source, expected", [
    # a scalar operand: nothing to broadcast, info
    ("import tensorflow as tf\ndef f(x, y):\n    dim = tf.cast(tf.shape(x)[1], tf.float32)\n"
     "    return tf.reduce_sum(y / dim)\n", [(4, 11, "info")]),
    ("import tensorflow as tf\ndef f(x, y):\n    return tf.reduce_mean(x * tf.cast(tf.size(y), tf.float32))\n",
     [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(x, y):\n    return tf.reduce_mean(x / tf.norm(y))\n", [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(x, n):\n    return tf.reduce_mean(-x + tf.math.log(float(n)))\n",
     [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(scale, z, v):\n    return tf.reduce_sum(scale.get(z, 1.0) * v)\n",
     [(3, 11, "info")]),
    # shape-preserving functions of one tensor, or shapes the code fixes together: info
    ("import tensorflow as tf\ndef f(x):\n    return tf.reduce_sum(x * tf.ones_like(x))\n", [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(x, v):\n    m = tf.fill(tf.shape(x), v)\n    return tf.reduce_sum(x - m)\n",
     [(4, 11, "info")]),
    ("import tensorflow as tf\ndef f(a, b, s):\n    return tf.reduce_sum(tf.reshape(a, s) - tf.reshape(b, s))\n",
     [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(a, b):\n    return tf.reduce_sum(a - tf.reshape(b, tf.shape(a)))\n",
     [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(v):\n    x = tf.nn.relu(v)\n    return tf.reduce_mean(x[:, 1:] - x[:, :-1]) + tf.reduce_sum(x[:, :1] * x[:, -1:])\n",
     [(4, 11, "info"), (4, 50, "info")]),
    ("import tensorflow as tf\ndef f(v):\n    x = tf.nn.relu(v)\n    return tf.reduce_mean(x[:, 0:1] - tf.reduce_max(x, 1, keepdims=True))\n",
     [(4, 11, "info")]),
    ("import tensorflow as tf\ndef f(x, k):\n    mu = tf.nn.conv2d(x, k, [1, 1, 1, 1], 'SAME')\n"
     "    return tf.reduce_mean(tf.square(x - mu))\n", [(4, 11, "info")]),
    ("import tensorflow as tf\ndef f(x, y):\n    gx = tf.matmul(x, x, transpose_b=True)\n"
     "    gy = tf.matmul(y, y, transpose_b=True)\n    return tf.reduce_sum(tf.square(gx - gy))\n",
     [(5, 11, "info")]),
    ("import tensorflow as tf\ndef f(a, b):\n    return tf.reduce_sum(a * tf.tile(b, [1, 4]))\n", [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(c, a, p):\n    return tf.reduce_sum(c * (tf.expand_dims(a, 0) - tf.expand_dims(p, 1)))\n",
     [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(p, g):\n    return tf.reduce_mean(-tf.pow(1. - p, g) * tf.math.log(p))\n",
     [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(q, p, z):\n    r = q.log_prob(z) - p.log_prob(z)\n    return tf.reduce_sum(r)\n",
     [(4, 11, "info")]),
])
def test_severity_info_where_the_code_shows_one_shape(source, expected):
    assert _severities(source) == expected


@pytest.mark.parametrize("source, expected", [
    # the true kinds: independent inputs, a mask or weights the caller gives
    (TF + "def loss(y_true: tf.Tensor, y_pred: tf.Tensor):\n    return tf.reduce_mean((y_true - y_pred) ** 2)\n",
     [(3, 11, "warning")]),
    (TF + "def f(x: tf.Tensor, y: tf.Tensor):\n    return tf.reduce_sum(x * tf.ones_like(y))\n", [(3, 11, "warning")]),
    (TF + "def f(v: tf.Tensor, w: tf.Tensor):\n    x = tf.nn.relu(v)\n    y = tf.nn.sigmoid(w)\n"
          "    return tf.reduce_mean(x - y)\n",
     [(5, 11, "warning")]),
    (TF + "class L:\n    def f(self, loss: tf.Tensor, weights: tf.Tensor):\n"
          "        return tf.reduce_sum(loss * weights)\n",
     [(4, 15, "warning")]),
    (TF + "def f(a: tf.Tensor, b: tf.Tensor):\n    tf.debugging.assert_positive(a)\n    return tf.reduce_sum(a * b)\n",
     [(4, 11, "warning")]),
    (TF + "def f(a: tf.Tensor, b: tf.Tensor):\n    print(a.shape, b.shape)\n    return tf.reduce_sum(a * b)\n",
     [(4, 11, "warning")]),  # shapes printed, not checked
    # near misses: a parameter not known to be a tensor (a temperature may be a float), a check
    # that the two shapes agree, a parameter rebound, self
    ("import tensorflow as tf\ndef f(logits, temperature):\n    return tf.reduce_logsumexp(temperature * logits)\n",
     [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(w: tf.Tensor, scale):\n    return tf.reduce_sum(w * scale)\n", [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(a: tf.Tensor, b: tf.Tensor):\n    a.shape.assert_is_compatible_with(b.shape)\n"
     "    return tf.reduce_sum(a * b)\n", [(4, 11, "info")]),
    (TF + "def f(a: tf.Tensor, b: tf.Tensor):\n    tf.debugging.assert_shapes([(a, ('N',)), (b, ('N',))])\n"
     "    return tf.reduce_sum(a * b)\n", [(4, 11, "info")]),
    (TF + "def f(a: tf.Tensor, b: tf.Tensor):\n    a = tf.reshape(a, [-1])\n    return tf.reduce_sum(a * b)\n",
     [(4, 11, "info")]),
    ("import tensorflow as tf\nclass L:\n    def f(self, x):\n        return tf.reduce_sum(x * self)\n",
     [(4, 15, "info")]),
    # shapes not tied together, but not two inputs either: the analysis cannot tell, info
    ("import tensorflow as tf\ndef f(a, b, s, t):\n    return tf.reduce_sum(tf.reshape(a, s) - tf.reshape(b, t))\n",
     [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(v):\n    x = tf.nn.relu(v)\n    return tf.reduce_mean(x[:, 0:1] - x[:, 1:3])\n",
     [(4, 11, "info")]),
    ("import tensorflow as tf\ndef f(x, k):\n    mu = tf.nn.conv2d(x, k, 2, 'SAME')\n"
     "    return tf.reduce_mean(x - mu)\n", [(4, 11, "info")]),
    ("import tensorflow as tf\ndef f(q, p, z, w):\n    return tf.reduce_sum(q.log_prob(z) - p.log_prob(w))\n",
     [(3, 11, "info")]),
    ("import tensorflow as tf\ndef f(x, decoder):\n    x_hat = decoder(x)\n    return tf.reduce_mean(x - x_hat)\n",
     [(4, 11, "info")]),
    ("import tensorflow as tf\ndef f(pairs):\n    a = pairs[0]\n    b = pairs[1]\n    return tf.reduce_sum(a - b)\n",
     [(5, 11, "info")]),
])
def test_severity_warning_where_only_callers_tie_the_shapes(source, expected):
    assert _severities(source) == expected
