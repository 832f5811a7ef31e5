"""TFE602's fixtures executed: `tf.compat.v1.layers.batch_normalization` needs legacy Keras.

This folder runs only with TF_USE_LEGACY_KERAS=1 set before TensorFlow is imported, in a pytest
process of its own (tests/test_legacy_keras.py starts it; tests/conftest.py leaves the folder out
of the main run).
"""
import os

import pytest

from tfe_testing import FIXTURES, load_module

if os.environ.get("TF_USE_LEGACY_KERAS") != "1":
    pytest.skip("needs TF_USE_LEGACY_KERAS=1 before TensorFlow is imported", allow_module_level=True)
pytest.importorskip("tf_keras", reason="legacy Keras is not installed (pip install '.[test,tensorflow]')")

FOLDER = FIXTURES / "batch_norm_updates_not_run"


def test_this_process_uses_legacy_keras(tf):
    assert tf.keras.__name__.startswith("tf_keras")


def test_update_ops_that_no_train_op_runs_leave_the_moving_statistics_untrained(tf):
    bad = load_module(FOLDER / "bad.py").main()
    assert bad["moving_mean"].tolist() == [0.0, 0.0, 0.0]  # the data's mean is 5: never updated
    assert bad["training_loss"] < 1e-3  # training looks fine (batch statistics)...
    assert bad["inference_loss"] > 100.0  # ...inference normalises with mean 0, variance 1


def test_a_train_op_that_runs_the_update_ops_learns_the_moving_statistics(tf):
    good = load_module(FOLDER / "good.py").main()
    assert all(abs(m - 5.0) < 0.5 for m in good["moving_mean"].tolist())
    assert good["training_loss"] < 1e-3 and good["inference_loss"] < 1e-3
