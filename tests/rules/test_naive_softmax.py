import numpy as np
import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import dedent, findings, fixed

TFE401 = ["TFE401"]


@pytest.mark.parametrize("col, source, expected", [
    (5, "import tensorflow as tf\ny = tf.exp(x) / tf.reduce_sum(tf.exp(x), -1, keepdims=True)\n",
     "import tensorflow as tf\ny = tf.nn.softmax(x, axis=-1)\n"),
    (20, "import tensorflow.compat.v1 as tf\ny = tf.div(1, 2) + tf.truediv(tf.exp(x), tf.reduce_sum(tf.exp(x), [1], True))\n",
     "import tensorflow.compat.v1 as tf\ny = tf.div(1, 2) + tf.nn.softmax(x, axis=1)\n"),
    (5, "from tensorflow import nn, math as tm\ny = tm.divide(tm.exp(h[0]), tm.reduce_sum(tm.exp(h[0]), axis=(0,), keepdims=True))\n",
     "from tensorflow import nn, math as tm\ny = nn.softmax(h[0], axis=0)\n"),
    (5, "import tensorflow as tf\ny = tf.exp(x) / tf.reduce_sum(input_tensor=tf.exp(x), keepdims=True, axis=2)\n",
     "import tensorflow as tf\ny = tf.nn.softmax(x, axis=2)\n"),
])
def test_sum_over_one_axis_with_keepdims_becomes_softmax(col, source, expected):
    assert findings(source, TFE401) == [(2, col, "TFE401")]
    assert fixed(source, TFE401) == expected


def test_exp_bound_to_a_name_and_the_sum_too():
    source = dedent("""\
        import tensorflow as tf
        def probabilities(logits):
            e = tf.exp(logits)
            total = tf.reduce_sum(e, axis=-1, keepdims=True)
            return e / total
    """)
    assert findings(source, TFE401) == [(5, 12, "TFE401")]
    assert fixed(source, TFE401) == source.replace("e / total", "tf.nn.softmax(logits, axis=-1)")


def test_sum_over_every_element_becomes_runtime_checks_softmax_with_its_import():
    source = dedent("""\
        import tensorflow.compat.v1 as tf

        def unstable_softmax(logits):
            exp = tf.exp(logits)
            return exp / tf.reduce_sum(exp)
    """)
    assert findings(source, TFE401) == [(5, 12, "TFE401")]
    assert fixed(source, TFE401) == dedent("""\
        import tensorflow.compat.v1 as tf
        from tflint_effective.runtime_checks import softmax

        def unstable_softmax(logits):
            exp = tf.exp(logits)
            return softmax(logits, axis=None)
    """)


def test_an_existing_import_of_the_cure_is_reused():
    source = dedent("""\
        import tensorflow as tf
        from tflint_effective.runtime_checks import softmax
        p = tf.exp(x) / tf.reduce_sum(tf.exp(x))
    """)
    assert fixed(source, TFE401) == source.replace(
        "tf.exp(x) / tf.reduce_sum(tf.exp(x))", "softmax(x, axis=None)")


@pytest.mark.parametrize("source", [
    # without keepdims the quotient broadcasts against the wrong axis unless the rank is 1
    "import tensorflow as tf\ny = tf.exp(x) / tf.reduce_sum(tf.exp(x), axis=-1)\n",
    # several axes, or an axis held in a variable
    "import tensorflow as tf\ny = tf.exp(x) / tf.reduce_sum(tf.exp(x), axis=[1, 2], keepdims=True)\n",
    "import tensorflow as tf\ny = tf.exp(x) / tf.reduce_sum(tf.exp(x), axis=k, keepdims=True)\n",
    # the name `softmax` already means something else: the import would clash
    "import tensorflow as tf\ndef softmax(x):\n    e = tf.exp(x)\n    return e / tf.reduce_sum(e, axis=None)\n",
    # a star import may bind `softmax` too
    "from helpers import *\nimport tensorflow as tf\ne = tf.exp(x)\ny = e / tf.reduce_sum(e, axis=None)\n",
    # x would be evaluated at the division instead of at the assignment, and x changes
    "import tensorflow as tf\ndef f(x):\n    e = tf.exp(x)\n    x = x + 1\n    return e / tf.reduce_sum(e, 1, True)\n",
    "import tensorflow as tf\ndef f(layer, h):\n    e = tf.exp(layer(h))\n    return e / tf.reduce_sum(e, 1, True)\n",
    # no alias of tensorflow.nn is in reach
    "from tensorflow import exp, reduce_sum\ny = exp(x) / reduce_sum(exp(x), 1, keepdims=True)\n",
])
def test_reported_without_a_fix(source):
    assert len(findings(source, TFE401)) == 1
    assert fixed(source, TFE401) == dedent(source)


@pytest.mark.parametrize("source", [
    # already stable: the maximum is subtracted first (also through names, or stop_gradient)
    "import tensorflow as tf\ns = tf.exp(x - tf.reduce_max(x, -1, keepdims=True))\ny = s / tf.reduce_sum(s, -1, keepdims=True)\n",
    "import tensorflow as tf\nm = tf.stop_gradient(tf.reduce_max(x))\nz = x - m\ny = tf.exp(z) / tf.reduce_sum(tf.exp(z))\n",
    # the maximum wrapped, or bound again to the same name (tensorflow-probability's logsumexp)
    "import tensorflow as tf\nm = tf.reduce_max(x, -1, keepdims=True)\nm = tf.where(tf.math.is_finite(m), m, 0)\ny = tf.exp(x - m) / tf.reduce_sum(tf.exp(x - m), -1, keepdims=True)\n",
    "import tensorflow as tf\ny = tf.exp(x - tf.reduce_logsumexp(x)) / tf.reduce_sum(tf.exp(x - tf.reduce_logsumexp(x)))\n",
    # an exponent that is never positive cannot overflow (a Gaussian kernel)
    "import tensorflow as tf\nk = tf.exp(-0.5 * (x / s) ** 2)\ny = k / tf.reduce_sum(k)\n",
    "import tensorflow as tf\ny = tf.exp(-tf.square(x)) / tf.reduce_sum(tf.exp(-tf.square(x)), 0, True)\n",
    "import tensorflow as tf\nz = -tf.abs(x) / 2.0\ny = tf.exp(z) / tf.reduce_sum(tf.exp(z), 0, True)\n",
    "import tensorflow as tf\ng = tf.math.exp(-(tf.math.pow(x, 2) / (2 * tf.pow(s, 2))))\ng = g / tf.reduce_sum(g)\n",
    # logits written out whose exponentials, all summed, stay below float16's largest value (a lesson's demo)
    "import tensorflow as tf\nz = tf.constant([[1, 0.5, -1], [4, 2, 1]], tf.float32)\n"
    "y = tf.exp(z) / tf.reduce_sum(tf.exp(z), 1, keep_dims=True)\n",
    "import numpy as np\nimport tensorflow as tf\nz = np.array([3.0, 1.0, 0.2])\ne = tf.exp(z)\ny = e / tf.reduce_sum(e)\n",
    # shifted by the maximum in a rebinding of the parameter (GPT-2's softmax)
    "import tensorflow as tf\ndef softmax(x, axis=-1):\n    x = x - tf.reduce_max(x, axis=axis, keepdims=True)\n"
    "    ex = tf.exp(x)\n    return ex / tf.reduce_sum(ex, axis=axis, keepdims=True)\n",
    # ... or in an augmented assignment (magenta's rl_tuner)
    "import tensorflow as tf\ndef softmax(x):\n    x -= tf.reduce_max(x, axis=-1, keepdims=True)\n"
    "    ex = tf.exp(x)\n    return ex / tf.reduce_sum(ex, axis=-1, keepdims=True)\n",
    # shifted by the maximum through tf.subtract
    "import tensorflow as tf\nz = tf.subtract(x, tf.reduce_max(x, -1, True))\n"
    "y = tf.exp(z) / tf.reduce_sum(tf.exp(z), -1, True)\n",
    # divided by something other than its own sum
    "import tensorflow as tf\ny = tf.exp(x) / tf.reduce_sum(tf.exp(w), -1, keepdims=True)\n",
    "import tensorflow as tf\ny = tf.exp(x) / tf.reduce_max(tf.exp(x), -1, keepdims=True)\n",
    "import tensorflow as tf\ny = tf.exp(x) / tf.reduce_sum(x, -1, keepdims=True)\n",
    "import tensorflow as tf\ne = tf.exp(x)\nf = tf.exp(x)\ny = e / tf.reduce_sum(f, -1, keepdims=True)\n",
    # the two exponentials are different random draws
    "import tensorflow as tf\ny = tf.exp(tf.random.normal([3])) / tf.reduce_sum(tf.exp(tf.random.normal([3])), 0, True)\n",
    # the name holds something else at the division
    "import tensorflow as tf\ne = tf.exp(x)\ne = e * 2\ny = e / tf.reduce_sum(e, -1, keepdims=True)\n",
    # not TensorFlow
    "import numpy as np\ny = np.exp(x) / np.sum(np.exp(x))\n",
    "import tensorflow as tf\ndef f(tf):\n    return tf.exp(x) / tf.reduce_sum(tf.exp(x), 0, True)\n",
])
def test_near_misses(source):
    assert findings(source, TFE401) == []


@pytest.mark.parametrize("source", [
    # the sign of the exponent is not known, or it is positive
    "import tensorflow as tf\ny = tf.exp(-x) / tf.reduce_sum(tf.exp(-x), 0, True)\n",
    "import tensorflow as tf\nk = tf.exp(0.5 * x ** 2)\ny = k / tf.reduce_sum(k, 0, True)\n",
    "import tensorflow as tf\nk = tf.exp(-(x ** 3))\ny = k / tf.reduce_sum(k, 0, True)\n",
    "import tensorflow as tf\nk = tf.exp(-tf.pow(x, 3))\ny = k / tf.reduce_sum(k, 0, True)\n",
    # an augmented assignment by something else than a maximum
    "import tensorflow as tf\ndef f(x):\n    x *= 2.0\n    k = tf.exp(x)\n    return k / tf.reduce_sum(k, 0, True)\n",
    # a name assigned again, in order: the exp before the division
    "import tensorflow as tf\nk = x * 2\nk = tf.exp(k)\ny = k / tf.reduce_sum(k, 0, True)\n",
    "import tensorflow as tf\nk = tf.exp(-tf.square(x) * y)\ny = k / tf.reduce_sum(k, 0, True)\n",
    # logits written out, but large enough for an exponential (or their sum) to overflow in float16
    "import tensorflow as tf\nz = tf.constant([[100.0, 0.0]])\ny = tf.exp(z) / tf.reduce_sum(tf.exp(z), 1, True)\n",
    "import numpy as np\nimport tensorflow as tf\nz = np.array([11.0, 0.0])\ne = tf.exp(z)\ny = e / tf.reduce_sum(e)\n",
    # a maximum of something else, computed in another scope, is no shift
    "import tensorflow as tf\ndef f(x, m):\n    return tf.exp(x - m) / tf.reduce_sum(tf.exp(x - m), 0, True)\n",
])
def test_exponents_that_may_be_large_are_reported(source):
    assert [code for _, _, code in findings(source, TFE401)] == ["TFE401"]


def test_small_written_out_logits_stay_finite_even_in_float16(tf):
    z = tf.constant([[1, 0.5, -1], [4, 2, 1]], tf.float16)
    naive = tf.exp(z) / tf.reduce_sum(tf.exp(z), 1, keepdims=True)
    np.testing.assert_allclose(naive.numpy(), tf.nn.softmax(z).numpy(), atol=1e-3)
    big = tf.constant([[11.0, 0.0, 11.0]], tf.float16)  # two exponentials of 11 sum beyond 65504: 0, not 0.5
    assert (tf.exp(big) / tf.reduce_sum(tf.exp(big), 1, keepdims=True)).numpy().tolist() == [[0.0, 0.0, 0.0]]
    bigger = tf.constant([[12.0, 0.0]], tf.float16)  # an exponential beyond 65504 itself: inf / inf
    assert np.isnan((tf.exp(bigger) / tf.reduce_sum(tf.exp(bigger), 1, keepdims=True)).numpy()[0, 0])


def test_fixture_naive_softmax_is_nan_where_softmax_is_exact(tf):
    bad = load_module(FIXTURES / "naive_softmax" / "bad.py").main()
    good = load_module(FIXTURES / "naive_softmax" / "good.py").main()
    assert np.isnan(bad["rows"].numpy()[0, 0]) and np.isnan(bad["d_rows"].numpy()[0]).all()
    np.testing.assert_allclose(good["rows"].numpy()[0], [1.0, np.exp(-200.0), np.exp(-205.0)], atol=1e-7)
    assert np.isnan(bad["every_element"].numpy()).any()
    np.testing.assert_allclose(good["every_element"].numpy().sum(), 1.0, rtol=1e-6)
    for name in good:
        assert np.isfinite(good[name].numpy()).all(), name
