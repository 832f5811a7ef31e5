"""TFE901's premise for TF 1.x's `tf.layers.dropout`: it takes the drop rate, as Keras' `Dropout` does.

`tf.compat.v1.layers` needs legacy Keras: this folder runs with TF_USE_LEGACY_KERAS=1 (see
tests/test_legacy_keras.py).
"""
import os

import pytest

if os.environ.get("TF_USE_LEGACY_KERAS") != "1":
    pytest.skip("needs TF_USE_LEGACY_KERAS=1 before TensorFlow is imported", allow_module_level=True)
pytest.importorskip("tf_keras", reason="legacy Keras is not installed (pip install '.[test,tensorflow]')")


def test_tf1_layers_dropout_drops_its_second_argument(tf):
    tf.random.set_seed(0)
    x = tf.ones([20000])

    def kept(y):
        return float(tf.reduce_mean(tf.cast(tf.not_equal(y, 0.0), tf.float32)))
    assert abs(kept(tf.compat.v1.layers.dropout(x, 0.9, training=True)) - 0.1) < 0.02
    assert abs(kept(tf.compat.v1.layers.Dropout(0.9)(x, training=True)) - 0.1) < 0.02
