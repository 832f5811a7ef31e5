"""``Rule.NEEDS`` / ``may_report_in``: a rule is not run on a file that lacks what all its findings
need, and that never changes a finding."""
import textwrap
from pathlib import Path

import pytest

from tflint_effective.engine.lint import lint_source
from tflint_effective.registry import all_rules
from tflint_effective.rules.batch_norm_updates_not_run import BatchNormUpdatesNotRun
from tflint_effective.rules.dropout_keep_prob_as_rate import DropoutKeepProbAsRate
from tflint_effective.rules.function_retraced import FunctionRetraced

FIXTURES = sorted((Path(__file__).resolve().parent.parent / "fixtures").glob("*/*.py"))
EXAMPLES = [rule.EXAMPLE_HEADER + textwrap.dedent(code) for rule in all_rules() for code in (rule.BAD, rule.GOOD)]


def _findings(source):
    return [(d.line, d.col, d.code, d.severity, d.message) for d in lint_source(source, noqa=False)]


@pytest.fixture
def ungated(monkeypatch):
    """Every rule runs on every file."""
    def ungate():
        for rule in all_rules():
            monkeypatch.setattr(rule, "may_report_in", classmethod(lambda cls, source: True))
    return ungate


@pytest.mark.parametrize("source", [p.read_text(encoding="utf-8") for p in FIXTURES] + EXAMPLES,
                         ids=[f"{p.parent.name}/{p.name}" for p in FIXTURES] + [f"example{i}" for i in range(len(EXAMPLES))])
def test_skipping_rules_changes_no_finding(source, ungated):
    gated = _findings(source)
    ungated()
    assert gated == _findings(source)


def test_a_rule_whose_needs_are_missing_is_not_run(monkeypatch):
    runs = []
    setup = FunctionRetraced.setup
    monkeypatch.setattr(FunctionRetraced, "setup", lambda self: (runs.append(1), setup(self)))
    program = ("import tensorflow as tf\n\n@tf.function\ndef scale(x, factor):\n    return x * factor\n\n"
               "for step in range(100):\n    y = scale(tf.ones([3]), step)\n")
    assert [(d.line, d.col, d.code) for d in lint_source(program)] == [(8, 28, "TFE703")]
    assert runs == [1]
    assert lint_source(program.replace("@tf.function\n", "")) == []
    assert runs == [1]  # not even set up for that file


@pytest.mark.parametrize("text, spelled", [
    ("@tf.function\n", True),
    ("f = tf.compat.v2 . function(g)\n", True),
    ("x = (tf.\n     function)\n", True),
    ("from tensorflow import function\n", True),
    ("from tensorflow import (\n    keras,  # the layers\n    function as compiled,\n)\n", True),
    ("from tensorflow import keras, \\\n    function\n", True),
    ('"""This function is a helper."""\nimport os\n', False),
    ("def function(x):\n    return x\n", False),
    ("y = tf.functional_ops.scan\n", False),
])
def test_function_retraced_needs_tf_function_spelled_as_an_attribute_or_an_import(text, spelled):
    assert FunctionRetraced.may_report_in(text) is spelled


def test_needs_that_combine_two_conditions():
    assert not BatchNormUpdatesNotRun.may_report_in("h = tf.layers.batch_normalization(x)\n")
    assert BatchNormUpdatesNotRun.may_report_in("h = slim.batch_norm(x)\nop = opt.minimize(loss)\n")
    assert not DropoutKeepProbAsRate.may_report_in("h = tf.nn.dropout(x, rate)\n")
    assert DropoutKeepProbAsRate.may_report_in("h = tf.nn.dropout(x, FLAGS.KEEP_PROB)\n")
