import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import findings

CASES = [
    ("import tensorflow as tf\ny = tf.squeeze(x)\n", [(2, 5, "TFE103")]),
    ("import tensorflow.compat.v1 as tf\ny = tf.squeeze(x, name='s')\n", [(2, 5, "TFE103")]),
    ("from tensorflow import squeeze\ny = squeeze(x)\n", [(2, 5, "TFE103")]),
    ("import tensorflow as tf\ny = tf.squeeze(x, 1)\n", []),
    ("import tensorflow as tf\ny = tf.squeeze(x, axis=[1, 2])\n", []),
    ("import tensorflow.compat.v1 as tf\ny = tf.squeeze(x, squeeze_dims=[1])\n", []),
    ("import numpy as np\ny = np.squeeze(x)\n", []),
    ("import tensorflow as tf\ny = x.squeeze()\n", []),
]


@pytest.mark.parametrize("source, expected", CASES)
def test_findings(source, expected):
    assert findings(source) == expected


def test_fixture_loses_the_batch_dimension(tf):
    bad = load_module(FIXTURES / "squeeze_without_axis" / "bad.py").main()
    good = load_module(FIXTURES / "squeeze_without_axis" / "good.py").main()
    assert bad["batch_of_two"].shape == (2,)
    assert bad["batch_of_one"].shape == ()  # the batch dimension is gone
    assert good["batch_of_one"].shape == (1,)
