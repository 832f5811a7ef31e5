"""The package surface: exports, the rule each op names, and no TensorFlow for the linter."""
import pathlib
import subprocess
import sys

import pytest

RULES = {
    "softmax": ["TFE401"], "log_softmax": ["TFE402"], "softmax_cross_entropy": ["TFE403"],
    "reduce_sum": ["TFE101"], "reduce_mean": ["TFE101"], "reduce_max": ["TFE101"],
    "reduce_min": ["TFE101"], "assert_same_rank": ["TFE101"], "get_shape": ["TFE201", "TFE103"],
    "reshape": ["TFE103"], "batch_gather": ["TFE201"], "with_assertions": ["TFE311"],
    "make_parallel": ["TFE501", "TFE502"], "tower_gradients": ["TFE501", "TFE502"],
    "merge": ["tile+concat"], "Merge": ["tile+concat"], "softmax_entropy": ["TFE406"],
    "weighted_logsumexp": ["TFE405"], "train_op_with_updates": ["TFE602"], "with_update_ops": ["TFE602"],
    "finalized_graph": ["TFE601"],
}


def test_importing_the_linter_does_not_import_tensorflow():
    code = "import sys, tflint_effective; sys.exit('tensorflow' in sys.modules)"
    root = pathlib.Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0


def test_exports(tf):
    from tflint_effective import runtime_checks
    for name in runtime_checks.__all__:
        assert callable(getattr(runtime_checks, name)), name
    assert set(RULES) <= set(runtime_checks.__all__)


@pytest.mark.parametrize("name", sorted(RULES))
def test_docstring_names_the_rule_that_points_here(tf, name):
    from tflint_effective import runtime_checks
    doc = getattr(runtime_checks, name).__doc__
    assert all(rule in doc for rule in RULES[name]), doc
