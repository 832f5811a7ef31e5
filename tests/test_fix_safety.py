"""``fix`` never writes what it should not, and a crash is exit status 2 with every other
file's findings still reported."""
import json
import os
import stat

import pytest

from tflint_effective.engine import fix as engine_fix
from tflint_effective.frontends import cli, one_file

BAD = "import tensorflow as tf\ny = tf.reduce_sum(x, 1, keep_dims=True)\n"
GOOD = BAD.replace("keep_dims", "keepdims")
SQUEEZE = "import tensorflow as tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\n"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fix(capsys, *args):
    status = cli.main(["fix", "-q", "-j1", "--isolated", *args])
    out, err = capsys.readouterr()
    return status, err


def test_a_read_only_file_is_left_unchanged_with_a_warning(workdir, capsys):
    path = workdir / "m.py"
    path.write_text(BAD)
    path.chmod(0o444)
    try:
        assert fix(capsys, "m.py") == (1, "m.py: warning: not fixed: read-only file (mode 0444); "
                                          "`chmod u+w m.py` to include it; file left unchanged\n")
        assert path.read_text() == BAD and stat.S_IMODE(path.stat().st_mode) == 0o444
        assert sorted(os.listdir(workdir)) == ["m.py"]
        path.chmod(0o644)
        assert fix(capsys, "m.py") == (1, "") and path.read_text() == GOOD
    finally:
        path.chmod(0o644)


def test_a_read_only_file_is_still_shown_by_diff(workdir, capsys):
    path = workdir / "m.py"
    path.write_text(BAD)
    path.chmod(0o444)
    try:
        assert cli.main(["fix", "-q", "-j1", "--isolated", "--diff", "m.py"]) == 1
        assert "+y = tf.reduce_sum(x, 1, keepdims=True)\n" in capsys.readouterr().out
    finally:
        path.chmod(0o644)


def test_a_file_saved_between_reading_and_writing_is_not_overwritten(workdir, capsys, monkeypatch):
    path = workdir / "m.py"
    path.write_text(BAD)
    saved = BAD + "z = 1  # typed in the editor meanwhile\n"
    fix_source = engine_fix.fix_source

    def saved_meanwhile(*args, **kwargs):
        result = fix_source(*args, **kwargs)
        path.write_text(saved)
        return result

    monkeypatch.setattr(engine_fix, "fix_source", saved_meanwhile)
    assert fix(capsys, "m.py") == (1, "m.py: warning: not fixed: changed on disk since it was read "
                                      "(saved meanwhile?); run fix again; file left unchanged\n")
    assert path.read_text() == saved
    assert sorted(os.listdir(workdir)) == ["m.py"]


NOTEBOOK = (
    '{\r\n'
    '   "cells": [\r\n'
    '      {"cell_type": "markdown", "metadata": {}, "source": ["# Caf\u00e9 \u2615\\n", "notes"]},\r\n'
    '      {\r\n'
    '         "cell_type": "code",\r\n'
    '         "execution_count": 1.50,\r\n'
    '         "metadata": {"scale": 1e3, "scale": 2E+0},\r\n'
    '         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["\\u00e9\\n"]}],\r\n'
    '         "source": [\r\n'
    '            "import tensorflow as tf\\n",\r\n'
    '            "y = tf.reduce_sum(x, 1, keep_dims=True)\\n",\r\n'
    '            "%time z = 1"\r\n'
    '         ]\r\n'
    '      },\r\n'
    '      {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],\r\n'
    '       "source": "w = tf.reduce_sum(x, 1, keep_dims=True)"}\r\n'
    '   ],\r\n'
    '   "metadata": {"kernelspec": {"language": "python", "name": "python3"}},\r\n'
    '   "nbformat": 4, "nbformat_minor": 5\r\n'
    '}'
)


def test_a_notebook_fix_changes_only_the_bytes_of_the_fixed_cells(workdir, capsys):
    path = workdir / "nb.ipynb"
    path.write_bytes(NOTEBOOK.encode())
    assert fix(capsys, "nb.ipynb") == (1, "")  # 1: a file was fixed
    assert path.read_bytes() == NOTEBOOK.replace("keep_dims", "keepdims").encode()


def test_a_notebook_cell_written_as_a_list_keeps_its_layout_when_lines_are_added(workdir, capsys):
    text = NOTEBOOK.replace('"y = tf.reduce_sum(x, 1, keep_dims=True)\\n"', '"y = tf.squeeze(tf.keras.layers.Dense(1)(x))\\n"')
    before = '"y = tf.squeeze(tf.keras.layers.Dense(1)(x))\\n",\r\n'
    assert before in text
    notebook = one_file.Notebook(text)
    fixed = notebook.source.replace("y = tf.squeeze(tf.keras.layers.Dense(1)(x))\n", "y = tf.squeeze(\n    x)\n")
    assert notebook.rewrite(fixed) == text.replace(
        before, '"y = tf.squeeze(\\n",\r\n            "    x)\\n",\r\n')


def crashing_on(name, monkeypatch):
    lint = one_file._lint

    def crashes(display, document, options):
        if display.endswith(name):
            raise RuntimeError("boom")
        return lint(display, document, options)

    monkeypatch.setattr(one_file, "_lint", crashes)


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("fmt", ["text", "grouped", "json", "sarif", "github"])
def test_an_internal_error_is_tfe000_exit_2_and_the_other_files_are_reported(
        workdir, capsys, monkeypatch, fmt, jobs):
    for name in ("a.py", "b.py", "c.py", "d.py", "e.py", "f.py"):
        (workdir / name).write_text(SQUEEZE)
    crashing_on("c.py", monkeypatch)
    status = cli.main(["check", "-q", "--isolated", "--no-cache", "-j", jobs, "--format", fmt, "."])
    out = capsys.readouterr().out
    assert status == 2
    message = "internal error in tflint-effective, please report: RuntimeError: boom"
    if fmt == "json":
        found = [(f["path"], f["line"], f["code"], f["message"]) for f in json.loads(out)["findings"]]
        assert [f[:3] for f in found] == [(n, 2, "TFE103") if n != "c.py" else ("c.py", 1, "TFE000")
                                          for n in ("a.py", "b.py", "c.py", "d.py", "e.py", "f.py")]
        assert found[2][3] == message
    elif fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        assert [r["ruleId"] for r in results] == ["TFE103", "TFE103", "TFE000", "TFE103", "TFE103", "TFE103"]
    else:
        assert out.count("TFE103") == 5 and out.count("TFE000") == 1 and message in out


def test_an_internal_error_wins_over_findings_and_over_exit_zero(workdir, capsys, monkeypatch):
    (workdir / "a.py").write_text(SQUEEZE)
    (workdir / "b.py").write_text(SQUEEZE)
    crashing_on("b.py", monkeypatch)
    assert cli.main(["check", "-q", "-j1", "--isolated", "--no-cache", "--exit-zero", "a.py", "b.py"]) == 2
    assert cli.main(["fix", "-q", "-j1", "--isolated", "a.py", "b.py"]) == 2


def test_a_crash_outside_the_files_is_exit_2_not_1(workdir, capsys, monkeypatch):
    (workdir / "a.py").write_text(SQUEEZE)

    def broken(*args):
        raise ValueError("report broke")

    monkeypatch.setattr(cli, "_report", broken)
    assert cli.main(["check", "-q", "-j1", "--isolated", "a.py"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("tflint-effective: internal error, please report: ValueError: report broke\n")
    assert err.startswith("Traceback (most recent call last):\n")


def test_a_worker_that_dies_costs_only_its_file(workdir, capsys, monkeypatch):
    names = [f"m{i:02}.py" for i in range(12)]
    for number, name in enumerate(names):
        (workdir / name).write_text(SQUEEZE + f"# {number}\n")
    lint = one_file._lint

    def dies(display, document, options):
        if display == "m05.py":
            os._exit(3)  # as a crash in native code would
        return lint(display, document, options)

    monkeypatch.setattr(one_file, "_lint", dies)
    status = cli.main(["check", "-q", "--isolated", "--no-cache", "-j", "2", "--format", "json", "."])
    found = [(f["path"], f["code"], f["message"]) for f in json.loads(capsys.readouterr().out)["findings"]]
    assert status == 2
    assert [(path, code) for path, code, _ in found] == [
        (name, "TFE000" if name == "m05.py" else "TFE103") for name in names]
    assert found[5][2] == ("internal error: the worker process checking this file stopped "
                           "(BrokenProcessPool); run with --jobs 1 to see more")
