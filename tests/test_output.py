"""Report formats: exact text, grouped, JSON and GitHub output; SARIF checked against its schema."""
import io
import json
import sys

import pytest

from tfe_testing import ROOT
from tflint_effective import __version__
from tflint_effective.frontends import docs
from tflint_effective.frontends.cli import main
from tflint_effective.registry import all_rules, rule_by_code
from tflint_effective.frontends.output import Finding, Run, render
from tflint_effective.frontends.output.summary import Progress, summary_line

SCHEMA = json.loads((ROOT / "tests" / "resources" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
M101 = rule_by_code("TFE101").MESSAGE
M102 = rule_by_code("TFE102").MESSAGE.format(old="reduction_indices", new="axis")
BAD = ("import tensorflow as tf\n"
       "\n"
       "m = tf.reduce_mean(x, reduction_indices=[1])\n"
       "s = tf.reduce_sum(tf.ones([2, 1]) * tf.ones([2]))  # noqa\n"
       "t = tf.reduce_sum(tf.ones([2, 1]) * tf.ones([2]))\n")
DIFF_102 = ("--- a/bad.py\n+++ b/bad.py\n@@ -1,5 +1,5 @@\n import tensorflow as tf\n \n"
            "-m = tf.reduce_mean(x, reduction_indices=[1])\n+m = tf.reduce_mean(x, axis=[1])\n"
            " s = tf.reduce_sum(tf.ones([2, 1]) * tf.ones([2]))  # noqa\n t = tf.reduce_sum(tf.ones([2, 1]) * tf.ones([2]))\n")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    (tmp_path / "bad.py").write_text(BAD)
    return tmp_path


def check(capsys, *argv):
    status = main(["check", "bad.py", "--select", "TFE1", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def validate_sarif(document):
    jsonschema = pytest.importorskip("jsonschema", reason="pip install '.[test]' to validate SARIF")
    validator = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
    errors = sorted(validator.iter_errors(document), key=str)
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


# -- JSON -------------------------------------------------------------------------------
def test_json_one_object_per_finding_with_the_fix_as_a_diff(workdir, capsys):
    status, out, _ = check(capsys, "--format", "json", "--show-suppressed")
    assert status == 1
    assert json.loads(out) == {
        "schema_version": 1,
        "findings": [
            {"path": "bad.py", "cell": None, "line": 3, "column": 23, "end_line": 3, "end_column": 44,
             "code": "TFE102", "rule": "deprecated_reduction_keywords", "severity": "warning",
             "message": M102, "fix": {"safety": "safe", "diff": DIFF_102}, "suppressed": None},
            {"path": "bad.py", "cell": None, "line": 4, "column": 5, "end_line": 4, "end_column": 50,
             "code": "TFE101", "rule": "reduction_without_axis", "severity": "warning",
             "message": M101, "fix": None, "suppressed": "noqa"},
            {"path": "bad.py", "cell": None, "line": 5, "column": 5, "end_line": 5, "end_column": 50,
             "code": "TFE101", "rule": "reduction_without_axis", "severity": "warning",
             "message": M101, "fix": None, "suppressed": None},
        ],
        "summary": {"findings": 2, "fixable": 1, "files_with_findings": 1, "files_checked": 1},
    }


def test_json_statistics(workdir, capsys):
    status, out, _ = check(capsys, "--format", "json", "--statistics")
    assert json.loads(out) == [
        {"code": "TFE101", "rule": "reduction_without_axis", "count": 1, "fixable": 0},
        {"code": "TFE102", "rule": "deprecated_reduction_keywords", "count": 1, "fixable": 1}]


# -- SARIF ---------------------------------------------------------------------------------
def test_sarif_is_valid_and_carries_rules_results_fixes_and_suppressions(workdir, capsys):
    status, out, _ = check(capsys, "--format", "sarif", "--show-suppressed")
    document = json.loads(out)
    validate_sarif(document)
    assert document["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert document["version"] == "2.1.0"
    [run] = document["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("tflint-effective", __version__)
    assert [r["id"] for r in driver["rules"]] == [r.CODE for r in all_rules()] + ["TFE000"]
    rule = rule_by_code("TFE102")
    assert driver["rules"][[r.CODE for r in all_rules()].index("TFE102")] == {
        "id": "TFE102",
        "name": "deprecated_reduction_keywords",
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": docs.title(rule)},
        "help": {"text": docs.rule_text(rule), "markdown": docs.rule_markdown(rule)},
        "defaultConfiguration": {"level": "warning"},
        "properties": {"precision": "high", "tags": ["tensorflow"], "fix-safety": "safe"},
    }
    index = {r["id"]: i for i, r in enumerate(driver["rules"])}
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["results"] == [
        {"ruleId": "TFE102", "ruleIndex": index["TFE102"], "level": "warning", "message": {"text": M102},
         "locations": [{"physicalLocation": {
             "artifactLocation": {"uri": "bad.py"},
             "region": {"startLine": 3, "startColumn": 23, "endLine": 3, "endColumn": 44}}}],
         "fixes": [{"description": {"text": "safe fix"}, "artifactChanges": [{
             "artifactLocation": {"uri": "bad.py"},
             "replacements": [{"deletedRegion": {"charOffset": 25, "charLength": 45},
                               "insertedContent": {"text": "m = tf.reduce_mean(x, axis=[1])\n"}}]}]}]},
        {"ruleId": "TFE101", "ruleIndex": index["TFE101"], "level": "warning", "message": {"text": M101},
         "locations": [{"physicalLocation": {
             "artifactLocation": {"uri": "bad.py"},
             "region": {"startLine": 4, "startColumn": 5, "endLine": 4, "endColumn": 50}}}],
         "suppressions": [{"kind": "inSource", "justification": "# noqa"}]},
        {"ruleId": "TFE101", "ruleIndex": index["TFE101"], "level": "warning", "message": {"text": M101},
         "locations": [{"physicalLocation": {
             "artifactLocation": {"uri": "bad.py"},
             "region": {"startLine": 5, "startColumn": 5, "endLine": 5, "endColumn": 50}}}]},
    ]
    # The replacement really is the fix: applying it gives the fixed file.
    [edit] = run["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"]
    start, length = edit["deletedRegion"]["charOffset"], edit["deletedRegion"]["charLength"]
    assert BAD[:start] + edit["insertedContent"]["text"] + BAD[start + length:] == BAD.replace(
        "reduction_indices=", "axis=")


def test_sarif_severity_maps_to_level_and_parse_errors_are_results(workdir, capsys):
    (workdir / "broken.py").write_text("x = = 1\n")
    main(["check", "broken.py", "--format", "sarif"])
    document = json.loads(capsys.readouterr().out)
    validate_sarif(document)
    [result] = document["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("TFE000", "error")
    descriptors = document["runs"][0]["tool"]["driver"]["rules"]
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in descriptors}
    expected = {"error": "error", "warning": "warning", "info": "note"}
    assert all(levels[r.CODE] == expected[r.default_severity()] for r in all_rules())


def test_the_schema_rejects_what_is_not_sarif():
    jsonschema = pytest.importorskip("jsonschema", reason="pip install '.[test]' to validate SARIF")
    validator = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                            "results": [{"message": {"text": "m"}, "level": "fatal"}]}]}
    assert not validator.is_valid(broken)


# -- GitHub, grouped, text ------------------------------------------------------------------
def test_github_workflow_commands(workdir, capsys):
    status, out, _ = check(capsys, "--format", "github")
    assert out == (
        f"::warning file=bad.py,line=3,col=23,endLine=3,endColumn=44,"
        f"title=TFE102 deprecated_reduction_keywords::{M102}\n"
        f"::warning file=bad.py,line=5,col=5,endLine=5,endColumn=50,"
        f"title=TFE101 reduction_without_axis::{M101}\n")


def test_github_escapes_and_levels():
    run = Run([Finding("a,b:c.py", 2, 1, 2, 5, "TFE999", "50%\nmore", "error"),
               Finding("nb.ipynb", 3, 9, 3, 12, "TFE998", "note", "info", cell=4)])
    assert render("github", run) == (
        "::error file=a%2Cb%3Ac.py,line=2,col=1,endLine=2,endColumn=5,title=TFE999::50%25%0Amore\n"
        "::notice file=nb.ipynb,title=TFE998 (cell 4%2C line 3)::note\n")


def test_grouped_format(workdir, capsys):
    status, out, _ = check(capsys, "--format", "grouped")
    assert out == f"bad.py:\n  3:23  TFE102 [warning] {M102}\n  5:5  TFE101 [warning] {M101}\n"


def test_grouped_separates_files_and_shows_cells():
    run = Run([Finding("a.py", 1, 1, 1, 2, "TFE101", "m", "warning"),
               Finding("nb.ipynb", 3, 9, 3, 12, "TFE102", "n", "warning", cell=2)])
    assert render("grouped", run) == "a.py:\n  1:1  TFE101 [warning] m\n\nnb.ipynb:\n  cell 2:3:9  TFE102 [warning] n\n"


def test_text_colour_when_forced_or_on_a_terminal_and_not_in_a_file(workdir, capsys, monkeypatch):
    status, out, _ = check(capsys, "--color", "always", "--select", "TFE102")
    assert out == f"\x1b[1mbad.py\x1b[0m:3:23: \x1b[1;33mTFE102\x1b[0m \x1b[33m[warning]\x1b[0m {M102}\n"
    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    assert main(["check", "bad.py", "--select", "TFE102", "--output", "report.txt"]) == 1
    assert (workdir / "report.txt").read_text() == f"bad.py:3:23: TFE102 [warning] {M102}\n"
    assert main(["check", "bad.py", "--select", "TFE102"]) == 1
    assert terminal.getvalue() == f"\x1b[1mbad.py\x1b[0m:3:23: \x1b[1;33mTFE102\x1b[0m \x1b[33m[warning]\x1b[0m {M102}\n"
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr("sys.stdout", Terminal())
    assert main(["check", "bad.py", "--select", "TFE102"]) == 1
    assert sys.stdout.getvalue() == f"bad.py:3:23: TFE102 [warning] {M102}\n"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_colour_auto_follows_the_terminal_and_no_color(monkeypatch):
    from tflint_effective.frontends.output import colour

    assert colour.wanted(Terminal(), "auto", environ={}) is True
    assert colour.wanted(Terminal(), "auto", environ={"NO_COLOR": "1"}) is False
    assert colour.wanted(Terminal(), "auto", environ={"NO_COLOR": ""}) is True
    assert colour.wanted(io.StringIO(), "auto", environ={}) is False
    assert colour.wanted(io.StringIO(), "always", environ={"NO_COLOR": "1"}) is True


def test_error_and_info_colours():
    run = Run([Finding("a.py", 1, 1, 1, 2, "TFE401", "e", "error"),
               Finding("a.py", 2, 1, 2, 2, "TFE999", "i", "info")])
    assert render("text", run, colour=True) == ("\x1b[1ma.py\x1b[0m:1:1: \x1b[1;31mTFE401\x1b[0m \x1b[31m[error]\x1b[0m e\n"
                                                "\x1b[1ma.py\x1b[0m:2:1: \x1b[1;34mTFE999\x1b[0m \x1b[34m[info]\x1b[0m i\n")


# -- summary and progress ---------------------------------------------------------------------
def finding(path, code="TFE101", fix=None, suppressed=None):
    return Finding(path, 1, 1, 1, 2, code, "m", "warning", fix_safety=fix, suppressed=suppressed)


@pytest.mark.parametrize("findings, files, unsafe_fixes, line", [
    ([], 0, False, "No findings (0 files checked)."),
    ([], 1, False, "No findings (1 file checked)."),
    ([finding("a.py", fix="safe")], 3, False, "1 finding (1 fixable) in 1 file"),
    ([finding("a.py", fix="safe"), finding("b.py"), finding("b.py", fix="unsafe")], 3, False,
     "3 findings (1 fixable, 1 more with --unsafe-fixes) in 2 files"),
    ([finding("a.py", fix="unsafe")], 1, True, "1 finding (1 fixable) in 1 file"),
    ([finding("a.py"), finding("a.py", suppressed="noqa")], 1, False,
     "1 finding (0 fixable) in 1 file; 1 suppressed"),
])
def test_summary_line(findings, files, unsafe_fixes, line):
    assert summary_line(Run(findings, files, unsafe_fixes)) == line


def test_progress_only_on_a_terminal_after_the_delay():
    ticks = iter([0.0, 0.5, 1.2, 1.25, 1.5])
    stream = Terminal()
    progress = Progress(4, stream, delay=1.0, clock=lambda: next(ticks))
    for path in ("a.py", "b.py", "c.py", "d.py"):
        progress.step(path)
    progress.close()
    # 0.5 s: too early; 1.2 s: shown; 1.25 s: throttled; 1.5 s: shown; then cleared.
    assert stream.getvalue() == "\r\x1b[K[2/4] b.py\r\x1b[K[4/4] d.py\r\x1b[K"
    plain = io.StringIO()
    quiet = Progress(4, plain, delay=0.0)
    quiet.step("a.py")
    quiet.close()
    assert plain.getvalue() == ""
