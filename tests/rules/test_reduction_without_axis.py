import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import findings

CASES = [
    ("import tensorflow as tf\ny = tf.reduce_sum(x)\n", [(2, 5, "TFE101")]),
    ("import tensorflow as tf\ny = tf.math.reduce_euclidean_norm(x)\n", [(2, 5, "TFE101")]),
    ("import tensorflow.compat.v1 as tf\ny = tf.reduce_logsumexp(x)\n", [(2, 5, "TFE101")]),
    ("import tensorflow\ny = tensorflow.math.reduce_variance(x)\n", [(2, 5, "TFE101")]),
    ("from tensorflow import math as tm\nflag = tm.reduce_any(x)\n", [(2, 8, "TFE101")]),
    ("from tensorflow.math import reduce_all\nz = [reduce_all(v) for v in xs]\n", [(2, 6, "TFE101")]),
    ("import tensorflow as tf\ny = tf.compat.v1.count_nonzero(x)\n", [(2, 5, "TFE101")]),
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
