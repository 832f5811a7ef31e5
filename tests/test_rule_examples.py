"""Every rule's BAD example (after its import header) reports the rule; its GOOD example is clean.

``explain`` and docs/rules.md show these examples, so they must do what they say.
"""
import textwrap

import pytest

from tflint_effective.engine.lint import lint_source
from tflint_effective.levels import MODES
from tflint_effective.registry import all_rules
from tflint_effective.rule import Rule, per_mode


def _example(rule, code):
    return rule.EXAMPLE_HEADER + textwrap.dedent(code)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.CODE)
def test_bad_example_reports_the_rule(rule):
    assert rule.BAD.strip(), f"{rule.CODE} has no BAD example"
    assert rule.CODE in [d.code for d in lint_source(_example(rule, rule.BAD))]


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.CODE)
def test_good_example_is_clean(rule):
    assert rule.GOOD.strip(), f"{rule.CODE} has no GOOD example"
    assert lint_source(_example(rule, rule.GOOD)) == []


def test_per_mode_fills_every_mode_and_rejects_unknown_ones():
    assert dict(per_mode("warning", G=None)) == {"G": None, "F": "warning", "F0": "warning", "E": "warning"}
    assert dict(per_mode(per_mode("error"), E="info")) == {**dict.fromkeys(MODES, "error"), "E": "info"}
    with pytest.raises(ValueError, match="unknown execution modes"):
        per_mode("warning", TF1=None)
    with pytest.raises(ValueError, match="unknown severity"):
        per_mode("fatal")


def test_a_rule_with_a_malformed_severity_is_refused_when_defined():
    with pytest.raises(TypeError, match="SEVERITY"):
        type("Partial", (Rule,), {"CODE": "TFE999", "SEVERITY": {"G": "error"}})
    with pytest.raises(ValueError, match="unknown severity"):
        type("Loud", (Rule,), {"CODE": "TFE999", "SEVERITY": "fatal"})
