"""The tests that need legacy Keras pass, in one pytest process of their own.

TensorFlow 2.16+ reads TF_USE_LEGACY_KERAS once, when it is first imported.
`tf.compat.v1.layers` (TFE602's batch norm fixtures) needs it set and the
tf-keras package installed; every other test runs with Keras 3 in the main
process.  tests/conftest.py leaves tests/legacy_keras out of the main run;
this test runs that folder in a subprocess with the variable set.
"""
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.tensorflow
def test_legacy_keras_tests_pass_in_their_own_process():
    if os.environ.get("TF_USE_LEGACY_KERAS") == "1":
        pytest.skip("TF_USE_LEGACY_KERAS=1 is set: tests/legacy_keras is collected in this process")
    for module in ("tensorflow", "tf_keras"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (pip install '.[test,tensorflow]')")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", "tests/legacy_keras"],
        cwd=ROOT, env={**os.environ, "TF_USE_LEGACY_KERAS": "1"}, capture_output=True, text=True, timeout=600)
    lines = result.stdout.strip().splitlines()
    summary = lines[-1] if lines else ""
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert re.search(r"\b\d+ passed\b", summary) and "skipped" not in summary, summary
