"""Severity in the text format, ``--show-source`` and ruff's ``--output-format`` names."""
import pytest

from tflint_effective.engine.lint import lint_source
from tflint_effective.frontends.cli import main
from tflint_effective.frontends.output import Finding, Run, render
from tflint_effective.registry import rule_by_code

M102 = rule_by_code("TFE102").MESSAGE.format(old="reduction_indices", new="axis")
M103 = rule_by_code("TFE103").MESSAGE
SOURCE = ("import tensorflow as tf\n"
          "m = tf.reduce_mean(x, reduction_indices=[1])\n"
          "if x:\n"
          "\tt = '日本😀' + tf.squeeze(\n"
          "\t    x)\n")
SEVERITY = {d.code: d.severity for d in lint_source(SOURCE)}  # the rules' business, not tested here
FULL = (f"m.py:2:23: TFE102 [{SEVERITY['TFE102']}] {M102}\n"
        "2 | m = tf.reduce_mean(x, reduction_indices=[1])\n"
        "  |                       ^^^^^^^^^^^^^^^^^^^^^\n"
        f"m.py:4:14: TFE103 [{SEVERITY['TFE103']}] {M103}\n"
        "4 | \tt = '日本😀' + tf.squeeze(\n"
        "  | \t               ^^^^^^^^^^^\n")  # wide characters take two columns


def test_text_shows_the_severity_after_the_code():
    run = Run([Finding("a.py", 1, 2, 1, 3, "TFE401", "e", "error"), Finding("a.py", 2, 1, 2, 2, "TFE101", "i", "info")])
    assert render("text", run) == "a.py:1:2: TFE401 [error] e\na.py:2:1: TFE101 [info] i\n"
    assert render("concise", run) == render("text", run)


def test_source_lines_with_carets_under_the_code():
    run = Run([Finding("a.py", 3, 5, 3, 9, "TFE101", "m", "info", source_line="    y = f(x)\n"),
               Finding("b.py", 12, 1, 14, 2, "TFE101", "m", "info", source_line="z = g(  \r\n"),
               Finding("c.py", 1, 1, 1, 1, "TFE000", "syntax error", "error")])  # no line known
    assert render("full", run) == (
        "a.py:3:5: TFE101 [info] m\n3 |     y = f(x)\n  |     ^^^^\n"
        "b.py:12:1: TFE101 [info] m\n12 | z = g(\n   | ^^^^^^\n"
        "c.py:1:1: TFE000 [error] syntax error\n")
    assert render("text", run, show_source=True) == render("full", run)


@pytest.mark.parametrize("options", [["--show-source"], ["--output-format", "full"],
                                     ["--format", "full"], ["--output-format", "text", "--show-source"]])
def test_show_source_from_the_command_line(tmp_path, monkeypatch, capsys, options):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(SOURCE)
    for cache in ("--no-cache", "--jobs=1", "--jobs=1"):  # fills the cache, then served from it
        assert main(["check", "--isolated", "-q", "--severity", "info", cache, *options, "m.py"]) == 1
        assert capsys.readouterr().out == FULL


def test_output_format_concise_is_the_text_format(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(SOURCE)
    main(["check", "--isolated", "-q", "--severity", "info", "--output-format", "concise", "m.py"])
    assert capsys.readouterr().out == "".join(line + "\n" for line in FULL.splitlines() if line.startswith("m.py"))
    main(["check", "--isolated", "-q", "--severity", "info", "--output-format", "json", "--show-source", "m.py"])
    assert capsys.readouterr().out.startswith('{\n  "schema_version": 1')  # only the text format shows source
