"""The command line: exact reports, exit codes, fixing, suppressions, explain and docs."""
import io
import sys

import libcst as cst
import pytest

from tfe_testing import ROOT
from tflint_effective import registry
from tflint_effective.frontends import docs
from tflint_effective.frontends.cli import main
from tflint_effective.registry import all_rules, rule_by_code
from tflint_effective.rule import UNSAFE, WARNING, Fix, Rule

M101 = rule_by_code("TFE101").MESSAGE
M102 = rule_by_code("TFE102").MESSAGE.format(old="reduction_indices", new="axis")
BAD = ("import tensorflow as tf\n"
       "\n"
       "m = tf.reduce_mean(x, reduction_indices=[1])\n"
       "s = tf.reduce_sum(tf.ones([2, 1]) * tf.ones([2]))\n")
FIXED = BAD.replace("reduction_indices=", "axis=")
CLEAN = "import tensorflow as tf\n\ns = tf.reduce_sum(x, axis=0)\n"
LINE_102 = f"bad.py:3:23: TFE102 [warning] {M102}"
LINE_101 = f"bad.py:4:5: TFE101 [warning] {M101}"


def run(capsys, *argv, stdin=None):
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        status = main(list(argv))
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    (tmp_path / "bad.py").write_text(BAD)
    return tmp_path


# -- check ------------------------------------------------------------------------
def test_check_prints_flake8_lines_and_a_summary_and_exits_1(workdir, capsys):
    assert run(capsys, "check", "bad.py", "--select", "TFE1") == (
        1, f"{LINE_102}\n{LINE_101}\n", "2 findings (1 fixable) in 1 file\n")


def test_check_clean_file_exits_0(workdir, capsys):
    (workdir / "ok.py").write_text(CLEAN)
    assert run(capsys, "check", "ok.py") == (0, "", "No findings (1 file checked).\n")


def test_check_walks_directories_and_skips_excluded(workdir, capsys):
    (workdir / "pkg").mkdir()
    (workdir / "pkg" / "a.py").write_text(BAD)
    (workdir / "pkg" / "skip_me.py").write_text(BAD)
    status, out, err = run(capsys, "check", "pkg", "--select", "TFE102", "--exclude", "skip_*")
    assert (status, out) == (1, f"pkg/a.py:3:23: TFE102 [warning] {M102}\n")
    assert err == "1 finding (1 fixable) in 1 file\n"


def test_unparseable_file_is_tfe000_and_exit_2_while_others_are_still_checked(workdir, capsys):
    (workdir / "broken.py").write_text("import tensorflow as tf\nx = = 1\n")
    status, out, _ = run(capsys, "check", "broken.py", "bad.py", "--select", "TFE102")
    lines = out.splitlines()
    assert status == 2
    assert lines[0] == "broken.py:2:5: TFE000 [error] syntax error: invalid syntax"
    assert lines[1:] == [LINE_102]


def test_missing_path_is_an_error(workdir, capsys):
    assert run(capsys, "check", "nope.py") == (
        2, "", "tflint-effective: nope.py: no such file or directory\nNo findings (0 files checked).\n")


def test_select_ignore_and_exit_zero(workdir, capsys):
    assert run(capsys, "check", "bad.py", "--ignore", "TFE101")[:2] == (1, f"{LINE_102}\n")
    assert run(capsys, "check", "bad.py", "--select", "TFE101")[:2] == (1, f"{LINE_101}\n")
    assert run(capsys, "check", "bad.py", "--select", "TFE1", "--exit-zero")[:2] == (
        0, f"{LINE_102}\n{LINE_101}\n")


def test_minimum_severity_drops_findings_below_it(workdir, capsys):
    assert run(capsys, "check", "bad.py", "--severity", "error") == (
        0, "", "No findings (1 file checked).\n")


@pytest.mark.parametrize("argv, message", [
    (["--select", "E501"], "argument --select: E501 is not a rule code or prefix "
                           "(TFE followed by up to three digits)"),
    (["--severity", "fatal"], "argument --severity: expected one of info, warning, error, got 'fatal'"),
    (["--format", "xml"], "argument --output-format/--format: invalid choice: 'xml'"),
])
def test_bad_options_are_usage_errors(workdir, capsys, argv, message):
    status, out, err = run(capsys, "check", "bad.py", *argv)
    assert (status, out) == (2, "")
    assert err.splitlines()[-1].startswith(f"tflint-effective check: error: {message}")


def test_standard_input_with_a_name(workdir, capsys):
    assert run(capsys, "check", "-", "--stdin-filename", "src/m.py", "--select", "TFE102", stdin=BAD) == (
        1, f"src/m.py:3:23: TFE102 [warning] {M102}\n", "1 finding (1 fixable) in 1 file\n")


def test_output_file(workdir, capsys):
    assert run(capsys, "check", "bad.py", "--select", "TFE1", "--output", "report.txt") == (
        1, "", "2 findings (1 fixable) in 1 file\n")
    assert (workdir / "report.txt").read_text() == f"{LINE_102}\n{LINE_101}\n"


def test_statistics_count_per_code(workdir, capsys):
    (workdir / "more.py").write_text(BAD)
    status, out, _ = run(capsys, "check", "bad.py", "more.py", "--select", "TFE1", "--statistics")
    assert (status, out) == (1, "2  TFE101  reduction_without_axis\n"
                                "2  TFE102  deprecated_reduction_keywords  (2 fixable)\n")


# -- suppression ----------------------------------------------------------------------
SUPPRESSED = ("import tensorflow as tf\n"
              "# tflint-effective: disable=TFE102\n"
              "m = tf.reduce_mean(x, reduction_indices=[1])\n"
              "s = tf.reduce_sum(tf.ones([2, 1]) * tf.ones([2]))  # noqa: TFE101\n"
              "t = tf.reduce_sum(tf.ones([2, 1]) * tf.ones([2]))  # noqa\n"
              "u = tf.reduce_sum(tf.ones([2, 1]) * tf.ones([2]))  # noqa: TFE103\n")


def test_noqa_and_file_level_disable(workdir, capsys):
    (workdir / "s.py").write_text(SUPPRESSED)
    assert run(capsys, "check", "s.py", "--select", "TFE1") == (
        1, f"s.py:6:5: TFE101 [warning] {M101}\n", "1 finding (0 fixable) in 1 file\n")


def test_show_suppressed_lists_what_was_silenced_and_why(workdir, capsys):
    (workdir / "s.py").write_text(SUPPRESSED)
    assert run(capsys, "check", "s.py", "--select", "TFE1", "--show-suppressed") == (1, (
        f"s.py:3:23: TFE102 [warning] {M102} [suppressed by # tflint-effective: disable]\n"
        f"s.py:4:5: TFE101 [warning] {M101} [suppressed by # noqa]\n"
        f"s.py:5:5: TFE101 [warning] {M101} [suppressed by # noqa]\n"
        f"s.py:6:5: TFE101 [warning] {M101}\n"), "1 finding (0 fixable) in 1 file; 3 suppressed\n")


def test_unknown_codes_in_suppressions_are_warned_about(workdir, capsys):
    (workdir / "s.py").write_text("import tensorflow as tf\n"
                                  "# tflint-effective: disable=TFE99\n"
                                  "s = tf.reduce_sum(tf.ones([2, 1]) * tf.ones([2]))  # noqa: TFE999, E501\n")
    assert run(capsys, "check", "s.py") == (1, f"s.py:3:5: TFE101 [warning] {M101}\n", (
        "s.py:2: warning: TFE99 in a suppression comment is not a rule code\n"
        "s.py:3: warning: TFE999 in a suppression comment is not a rule code\n"
        "1 finding (0 fixable) in 1 file\n"))


def test_fix_leaves_suppressed_findings_alone(workdir, capsys):
    source = "import tensorflow as tf\nm = tf.reduce_mean(x, reduction_indices=[1])  # noqa\n"
    (workdir / "s.py").write_text(source)
    assert run(capsys, "fix", "s.py")[0] == 0
    assert (workdir / "s.py").read_text() == source


# -- fix --------------------------------------------------------------------------------
def test_fix_rewrites_reports_the_rest_and_exits_1_then_0(workdir, capsys):
    assert run(capsys, "fix", "bad.py", "--select", "TFE1") == (
        1, f"{LINE_101}\n", "Fixed 1 finding in 1 file.\n1 finding (0 fixable) in 1 file\n")
    assert (workdir / "bad.py").read_text() == FIXED
    assert run(capsys, "fix", "bad.py", "--select", "TFE102") == (0, "", "Fixed 0 findings in 0 files.\n")


def test_fix_diff_prints_the_diff_and_writes_nothing(workdir, capsys):
    status, out, err = run(capsys, "fix", "bad.py", "--diff", "--select", "TFE102")
    assert (status, err) == (1, "Would fix 1 finding in 1 file.\n")
    assert out == ("--- a/bad.py\n+++ b/bad.py\n@@ -1,4 +1,4 @@\n import tensorflow as tf\n \n"
                   "-m = tf.reduce_mean(x, reduction_indices=[1])\n"
                   "+m = tf.reduce_mean(x, axis=[1])\n s = tf.reduce_sum(tf.ones([2, 1]) * tf.ones([2]))\n")
    assert (workdir / "bad.py").read_text() == BAD


def test_fix_standard_input_prints_the_fixed_source_and_reports_on_stderr(workdir, capsys):
    assert run(capsys, "fix", "-", "--select", "TFE1", stdin=BAD) == (
        1, FIXED, f"-:4:5: TFE101 [warning] {M101}\nFixed 1 finding in 1 file.\n1 finding (0 fixable) in 1 file\n")


class _UnsafeAbs(Rule):
    """``tf.abs(x)`` -> ``tf.math.abs(x)``, marked unsafe for the test."""

    CODE = "TFE993"
    MESSAGE = "abs"
    SEVERITY = WARNING

    def visit_Call(self, node):
        if self.context.tf_call(node) is not None and self.context.tf_call(node).path == "abs":
            func = node.func.with_changes(value=cst.Attribute(node.func.value, cst.Name("math")))
            self.report(node, fix=Fix(node.with_changes(func=func), safety=UNSAFE))


def test_unsafe_fixes_only_with_the_flag_and_counted_when_hidden(workdir, capsys, monkeypatch):
    monkeypatch.setattr(registry, "selected_rules", lambda select=None, ignore=None: [_UnsafeAbs])
    (workdir / "u.py").write_text("import tensorflow as tf\ny = tf.abs(x)\n")
    assert run(capsys, "fix", "u.py") == (1, "u.py:2:5: TFE993 [warning] abs\n", (
        "Fixed 0 findings in 0 files.\n1 finding (0 fixable, 1 more with --unsafe-fixes) in 1 file\n"))
    assert run(capsys, "fix", "u.py", "--unsafe-fixes") == (1, "", "Fixed 1 finding in 1 file.\n")
    assert (workdir / "u.py").read_text() == "import tensorflow as tf\ny = tf.math.abs(x)\n"


# -- rules, explain, docs -------------------------------------------------------------------
def test_explain_prints_the_generated_rule_text(capsys):
    status, out, _ = run(capsys, "explain", "tfe102")
    assert status == 0 and out == docs.rule_text(rule_by_code("TFE102"))
    assert out.splitlines()[:3] == [
        "TFE102 deprecated_reduction_keywords: " + docs.title(rule_by_code("TFE102")),
        "", "Default severity: warning. Fix: safe."]
    assert ("\nExample:\n    import tensorflow as tf\n"
            "    mean = tf.reduce_mean(x, reduction_indices=[1], keep_dims=True)\n") in out


def test_explain_unknown_code_exits_2(capsys):
    status, out, err = run(capsys, "explain", "TFE999")
    assert (status, out) == (2, "") and err.startswith("tflint-effective: unknown rule code 'TFE999'")


def test_every_rule_page_section_is_present_in_order():
    for rule in all_rules():
        headings = [h for h, _, _ in docs.sections(rule)]
        assert headings[:6] == ["What it does", "Why is this bad", "Example", "Use instead",
                                "Fix safety", "Known problems"]
        assert headings[-1] == "Severity per execution mode"


def test_docs_rules_md_is_current():
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert page == docs.rules_page(), "run: python -m tflint_effective.frontends.docs"


def test_readme_links_to_the_rule_docs():
    assert "(docs/rules.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
