"""Every rule's fixture pair: exact markers, clean good.py, and fixes that execute like good.py."""
import pytest

from tfe_testing import load_module
from tfe_testing import assert_same_values, expected_markers, fixture_dirs
from tflint_effective.engine.fix import MAX_FIX_PASSES, fix_source
from tflint_effective.engine.lint import lint_source
from tflint_effective.levels import UNSAFE
from tflint_effective.registry import all_rules

DIRS = fixture_dirs()
RULES_BY_NAME = {rule.name(): rule for rule in all_rules()}
FIXABLE = [d for d in DIRS if d.name in RULES_BY_NAME and RULES_BY_NAME[d.name].fixable()]


def ids(dirs):
    return [d.name for d in dirs]


def unsafe(folder):
    """A rule whose fixes are unsafe is checked with them applied (``--unsafe-fixes``)."""
    return RULES_BY_NAME[folder.name].FIX_SAFETY == UNSAFE


def test_every_rule_has_a_fixture_and_every_fixture_a_rule():
    assert sorted(RULES_BY_NAME) == sorted(d.name for d in DIRS)


@pytest.mark.parametrize("folder", DIRS, ids=ids(DIRS))
def test_bad_is_flagged_exactly_on_the_marked_lines(folder):
    text = (folder / "bad.py").read_text()
    found = sorted((d.line, d.code) for d in lint_source(text, str(folder / "bad.py")))
    assert found == expected_markers(text)


@pytest.mark.parametrize("folder", DIRS, ids=ids(DIRS))
def test_good_is_clean(folder):
    assert lint_source((folder / "good.py").read_text(), str(folder / "good.py")) == []


@pytest.mark.parametrize("folder", FIXABLE, ids=ids(FIXABLE))
def test_fix_converges_is_idempotent_and_leaves_only_unfixable(folder):
    text = (folder / "bad.py").read_text()
    code = RULES_BY_NAME[folder.name].CODE
    before = lint_source(text)
    result = fix_source(text, unsafe_fixes=unsafe(folder))
    assert result.converged and result.passes <= MAX_FIX_PASSES
    assert result.source != text
    compile(result.source, "fixed.py", "exec")
    again = fix_source(result.source, unsafe_fixes=unsafe(folder))
    assert again.source == result.source and again.applied == 0
    unfixable = sorted(d.code for d in before if d.fix is None and d.code == code)
    assert sorted(d.code for d in lint_source(result.source) if d.code == code) == unfixable


@pytest.mark.parametrize("folder", FIXABLE, ids=ids(FIXABLE))
def test_fixed_bad_executes_like_good(folder, tf, tmp_path):
    fixed = tmp_path / f"{folder.name}_fixed.py"
    fixed.write_text(fix_source((folder / "bad.py").read_text(), unsafe_fixes=unsafe(folder)).source)
    good = load_module(folder / "good.py").main()
    actual = load_module(fixed, f"fixed_{folder.name}").main()
    common = {k: actual[k] for k in good} if isinstance(good, dict) else actual
    assert_same_values(common, good)
