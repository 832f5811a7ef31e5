import numpy as np
import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import dedent, findings, fixed

TFE405 = ["TFE405"]


@pytest.mark.parametrize("source, expected", [
    ("import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(tf.exp(x), axis=-1))\n",
     "import tensorflow as tf\ny = tf.reduce_logsumexp(x, axis=-1)\n"),
    ("import tensorflow as tf\ny = tf.math.log(tf.math.reduce_sum(tf.math.exp(x), [0, 1], keepdims=True))\n",
     "import tensorflow as tf\ny = tf.reduce_logsumexp(x, [0, 1], keepdims=True)\n"),
    ("import tensorflow.compat.v1 as tf1\ny = tf1.log(tf1.reduce_sum(tf1.exp(x)))\n",
     "import tensorflow.compat.v1 as tf1\ny = tf1.reduce_logsumexp(x)\n"),
    ("from tensorflow import math as tm\ny = tm.log(tm.reduce_sum(input_tensor=tm.exp(x), axis=1))\n",
     "from tensorflow import math as tm\ny = tm.reduce_logsumexp(input_tensor=x, axis=1)\n"),
])
def test_log_sum_exp_becomes_reduce_logsumexp_with_the_same_reduction(source, expected):
    assert [(line, code) for line, _, code in findings(source, TFE405)] == [(2, "TFE405")]
    assert fixed(source, TFE405) == expected


def test_through_names():
    source = dedent("""\
        import tensorflow as tf
        def log_partition(scores):
            e = tf.exp(scores)
            total = tf.reduce_sum(e, 1, True)
            return scores - tf.math.log(total)
    """)
    assert findings(source, TFE405) == [(5, 21, "TFE405")]
    assert fixed(source, TFE405) == source.replace(
        "tf.math.log(total)", "tf.reduce_logsumexp(scores, 1, True)")


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\ndef f(x, k):\n    e = tf.exp(x)\n    k = k + 1\n    return tf.math.log(tf.reduce_sum(e, k))\n",
    "from tensorflow import exp, reduce_sum\nfrom tensorflow.math import log\ny = log(reduce_sum(exp(x), 0))\n",
])
def test_reported_without_a_fix(source):
    assert len(findings(source, TFE405)) == 1
    assert fixed(source, TFE405) == dedent(source)


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\nm = tf.reduce_max(x, 1, keepdims=True)\ny = m + tf.math.log(tf.reduce_sum(tf.exp(x - m), 1, keepdims=True))\n",
    "import tensorflow as tf\ny = tf.reduce_logsumexp(x, 1)\n",
    "import tensorflow as tf\nm = tf.reduce_max(x, 1, keepdims=True)\nm = tf.where(tf.math.is_finite(m), m, 0)\ny = m + tf.math.log(tf.reduce_sum(tf.exp(x - m), 1, keepdims=True))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(tf.abs(x), 1))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.reduce_mean(tf.exp(x), 1))\n",
    "import numpy as np\ny = np.log(np.sum(np.exp(x)))\n",
    "import tensorflow as tf\nimport numpy as np\ny = np.log(tf.reduce_sum(tf.exp(x), 1))\n",
])
def test_near_misses(source):
    assert findings(source, TFE405) == []


def test_a_never_positive_exponent_still_underflows_to_log_zero():
    source = "import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(tf.exp(-tf.square(x)), 1))\n"
    assert findings(source, TFE405) == [(2, 5, "TFE405")]


def test_fixture_log_sum_exp_overflows_where_reduce_logsumexp_is_exact(tf):
    bad = load_module(FIXTURES / "log_of_sum_exp" / "bad.py").main()
    good = load_module(FIXTURES / "log_of_sum_exp" / "good.py").main()
    assert bad["log_partition"].numpy().tolist() == [np.inf, -np.inf]
    assert np.isnan(bad["d_log_partition"].numpy()).any()
    np.testing.assert_allclose(good["log_partition"].numpy(), [200.0, -200.0])
    np.testing.assert_allclose(good["d_log_partition"].numpy(), [[1.0, 0.0], [1.0, 0.0]], atol=1e-6)
    for name in good:
        assert np.isfinite(good[name].numpy()).all(), name
