"""Bad inputs: each is reported in one clear line, and the run goes on with the other files.

Every test lints (or fixes) a directory holding the bad input and ``other.py``,
whose finding (or fix) shows that the other files were still processed.
"""
import base64
import io
import os
import random
import sys

import pytest

from tflint_effective.frontends import cli, files, one_file

OTHER = "import tensorflow as tf\ny = tf.reduce_sum(x, 1, keep_dims=True)\n"
OTHER_FIXED = OTHER.replace("keep_dims", "keepdims")
KEEP_DIMS = "TFE102 [warning] `keep_dims=` is deprecated (a TypeError in TF2); use `keepdims=`"
NOT_UTF8 = ("TFE000 [error] cannot decode as Python source: byte 0xff on line 2 is not valid utf-8; "
            "declare the file's encoding with a `# -*- coding: NAME -*-` comment")


def run(capsys, *argv):
    """(exit status, stdout lines, stderr lines) of the CLI."""
    status = cli.main([argv[0], "--isolated", "-q", *argv[1:]])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "other.py").write_text(OTHER)
    return tmp_path


UNREADABLE = {  # name: (content, what is reported)
    "syntax_error": (b"import tensorflow as tf\nx = (1,\n", "2:5: TFE000 [error] syntax error: '(' was never closed"),
    "not_utf8": (b"x = 1\ns = '\xff'\n", "1:1: " + NOT_UTF8),
    "wrong_cookie": (b"# coding: ascii\ns = 'caf\xc3\xa9'\n",
                     "1:1: TFE000 [error] cannot decode as Python source: byte 0xc3 on line 2 is not valid ascii"),
    "unknown_cookie": (b"# -*- coding: klingon -*-\nx = 1\n",
                       "1:1: TFE000 [error] cannot decode as Python source: unknown encoding: klingon"),
    "binary": (bytes(range(256)) * 4, "1:1: TFE000 [error] binary file (contains NUL bytes), not Python source"),
    "too_many_parentheses": (b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n",
                             "1:205: TFE000 [error] syntax error: too many nested parentheses"),
    "too_deeply_nested": (b"x = " + b"-" * 50000 + b"1\n",
                          "1:1: TFE000 [error] cannot analyse this file: expressions nested too deeply"),
}


@pytest.mark.parametrize("name", UNREADABLE)
def test_check_reports_the_bad_file_and_checks_the_others(tree, capsys, name):
    content, reported = UNREADABLE[name]
    bad = tree / "bad.py"
    bad.write_bytes(content)
    status, out, _ = run(capsys, "check", str(tree))
    assert (status, out) == (2, [f"{bad}:{reported}", f"{tree / 'other.py'}:2:25: {KEEP_DIMS}"])


@pytest.mark.parametrize("name", UNREADABLE)
def test_fix_leaves_the_bad_file_alone_and_fixes_the_others(tree, capsys, name):
    content, reported = UNREADABLE[name]
    bad = tree / "bad.py"
    bad.write_bytes(content)
    status, out, _ = run(capsys, "fix", str(tree))
    assert (status, out) == (2, [f"{bad}:{reported}"])
    assert bad.read_bytes() == content
    assert (tree / "other.py").read_text() == OTHER_FIXED


@pytest.mark.parametrize("content", [
    pytest.param(b"", id="empty"),
    pytest.param(b"\n\n   \n", id="blank"),
    pytest.param(b"\xef\xbb\xbf", id="bom_only"),
    pytest.param(b"\x0c", id="form_feed"),
    pytest.param(b"# comment without a newline", id="no_final_newline"),
])
def test_empty_files_are_clean(tree, capsys, content):
    (tree / "empty.py").write_bytes(content)
    status, out, _ = run(capsys, "check", str(tree))
    assert (status, out) == (1, [f"{tree / 'other.py'}:2:25: {KEEP_DIMS}"])
    assert run(capsys, "fix", str(tree))[:2] == (1, [])
    assert (tree / "empty.py").read_bytes() == content


@pytest.mark.parametrize("content", [
    pytest.param(b"\xef\xbb\xbf" + OTHER.encode(), id="bom"),
    pytest.param(OTHER.replace("\n", "\r\n").encode(), id="crlf"),
    pytest.param(OTHER.replace("\n", "\r").encode(), id="cr"),
    pytest.param(OTHER.replace("\n", "\r\n", 1).encode(), id="mixed"),
])
def test_bom_and_line_endings_do_not_move_findings(tmp_path, capsys, content):
    path = tmp_path / "m.py"
    path.write_bytes(content)
    assert run(capsys, "check", str(path))[:2] == (1, [f"{path}:2:25: {KEEP_DIMS}"])


def test_a_coding_cookie_is_honoured(tmp_path, capsys):
    path = tmp_path / "m.py"
    path.write_bytes("# -*- coding: latin-1 -*-\nimport tensorflow as tf\n"
                     "s = 'é'; y = tf.reduce_sum(x, 1, keep_dims=True)\n".encode("latin-1"))
    assert run(capsys, "check", str(path))[:2] == (1, [f"{path}:3:34: {KEEP_DIMS}"])


@pytest.mark.slow
def test_a_5_mb_generated_file(tmp_path, capsys):
    """A generated module with an embedded resource: 5 MB, 65,000 lines."""
    blob = base64.b64encode(random.Random(0).randbytes(3_800_000)).decode()
    lines = "\n".join(blob[i:i + 76] for i in range(0, len(blob), 76))
    text = f'{OTHER}DATA = """\n{lines}\n"""\nz = tf.reduce_sum(y, 0, keep_dims=True)\n'
    path = tmp_path / "generated.py"
    path.write_text(text)
    assert path.stat().st_size > 5_000_000
    last = text.count("\n")
    status, out, _ = run(capsys, "check", "--max-file-size", "6 MB", str(path))  # default: 2 MB
    assert (status, out) == (1, [f"{path}:2:25: {KEEP_DIMS}", f"{path}:{last}:25: {KEEP_DIMS}"])
    assert run(capsys, "fix", "--max-file-size", "0", str(path))[:2] == (1, [])
    assert path.read_text() == text.replace("keep_dims", "keepdims")


def test_an_unreadable_file(tree, capsys, monkeypatch):
    bad = tree / "bad.py"
    bad.write_text(OTHER)
    bad.chmod(0)
    if os.geteuid() == 0:  # root reads it anyway: make the read fail as it would for a user
        open_ = files.os.open

        def denied(path, *args, **kwargs):
            if os.fspath(path) == str(bad):
                raise PermissionError(13, "Permission denied", str(path))
            return open_(path, *args, **kwargs)

        monkeypatch.setattr(files.os, "open", denied)
    for command in ("check", "fix"):
        status, out, _ = run(capsys, command, str(tree))
        assert status == 2 and out[0] == f"{bad}:1:1: TFE000 [error] cannot read: permission denied"
    assert (tree / "other.py").read_text() == OTHER_FIXED


def test_a_broken_symlink(tree, capsys):
    (tree / "bad.py").symlink_to("gone.py")
    status, out, _ = run(capsys, "check", str(tree))
    assert (status, out) == (2, [
        f"{tree / 'bad.py'}:1:1: TFE000 [error] broken symbolic link (its target gone.py does not exist)",
        f"{tree / 'other.py'}:2:25: {KEEP_DIMS}"])


def test_a_directory_named_like_a_python_file_is_walked(tree, capsys):
    (tree / "pkg.py").mkdir()
    (tree / "pkg.py" / "inner.py").write_text(OTHER)
    expected = [f"{tree / 'other.py'}:2:25: {KEEP_DIMS}", f"{tree / 'pkg.py' / 'inner.py'}:2:25: {KEEP_DIMS}"]
    assert run(capsys, "check", str(tree))[:2] == (1, expected)
    assert run(capsys, "check", str(tree / "other.py"), str(tree / "pkg.py"))[:2] == (1, expected)


def test_a_path_that_does_not_exist(tree, capsys):
    missing = tree / "missing.py"
    complaint = [f"tflint-effective: {missing}: no such file or directory"]
    checked = [f"{tree / 'other.py'}:2:25: {KEEP_DIMS}"]
    assert run(capsys, "check", str(missing), str(tree)) == (2, checked, complaint)
    assert run(capsys, "fix", str(missing), str(tree)) == (2, [], complaint)
    assert (tree / "other.py").read_text() == OTHER_FIXED


def test_a_file_that_cannot_be_written(tree, capsys, monkeypatch):
    (tree / "a.py").write_text(OTHER)

    def disk_full(source, target):
        if str(target).endswith("a.py"):
            raise OSError(28, "No space left on device")
        os.rename(source, target)

    monkeypatch.setattr(files.os, "replace", disk_full)
    status, out, err = run(capsys, "fix", str(tree))
    assert status == 2
    assert out == [f"{tree / 'a.py'}:2:25: {KEEP_DIMS}"]  # still there, reported
    assert err == [f"{tree / 'a.py'}: error: cannot write the fixed file: No space left on device; "
                   "file left unchanged"]
    assert (tree / "a.py").read_text() == OTHER and (tree / "other.py").read_text() == OTHER_FIXED
    assert sorted(os.listdir(tree)) == ["a.py", "other.py"]  # no temporary file left


NOTEBOOK = '{"cells": [%s], "metadata": %s, "nbformat": 4, "nbformat_minor": 5}'


@pytest.mark.parametrize("content, reported", [
    (NOTEBOOK % ('{"cell_type": "code", "source": 7}', "{}"), "cell 1 has no text `source`"),
    (NOTEBOOK % ('{"cell_type": "code", "source": ["x = 1\\n", 5]}', "{}"), "cell 1 has no text `source`"),
    (NOTEBOOK % ('{"cell_type": "markdown", "source": "x"}, null', "{}"), "cell 2 has no text `source`"),
    ("[]", "no `cells` list (nbformat 4 is supported)"),
    ("{", "invalid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
], ids=["source_number", "source_list_of_numbers", "cell_null", "not_an_object", "invalid_json"])
def test_malformed_notebooks(tree, capsys, content, reported):
    """These raised TypeError / AttributeError out of notebooks.py and stopped the run."""
    bad = tree / "bad.ipynb"
    bad.write_text(content)
    assert run(capsys, "check", str(tree))[:2] == (2, [
        f"{bad}:1:1: TFE000 [error] cannot parse this notebook: {reported}", f"{tree / 'other.py'}:2:25: {KEEP_DIMS}"])


@pytest.mark.parametrize("content", [
    NOTEBOOK % ('{"cell_type": "code", "source": "import tensorflow as tf\\ny = tf.squeeze(tf.keras.layers.Dense(1)(h))"}',
                '{"kernelspec": 3, "language_info": []}'),
    NOTEBOOK % ('{"cell_type": "code", "source": "import tensorflow as tf\\ny = tf.squeeze(tf.keras.layers.Dense(1)(h))"}', "7"),
], ids=["odd_kernelspec", "metadata_not_an_object"])
def test_notebooks_with_odd_metadata_are_linted(tmp_path, capsys, content):
    path = tmp_path / "n.ipynb"
    path.write_text(content)
    status, out, _ = run(capsys, "check", str(path))
    assert status == 1 and out[0].startswith(f"{path}:cell 1:2:5: TFE103 ")


def test_a_crash_on_one_file_is_reported_and_the_run_goes_on(tree, capsys, monkeypatch):
    (tree / "bad.py").write_text(OTHER)
    lint = one_file._lint

    def crashes_on_bad(name, document, options):
        if name.endswith("bad.py"):
            raise RuntimeError("boom")
        return lint(name, document, options)

    monkeypatch.setattr(one_file, "_lint", crashes_on_bad)
    status, out, _ = run(capsys, "check", str(tree))
    assert (status, out) == (2, [
        f"{tree / 'bad.py'}:1:1: TFE000 [error] internal error in tflint-effective, please report: RuntimeError: boom",
        f"{tree / 'other.py'}:2:25: {KEEP_DIMS}"])


def test_binary_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x = 1\x00\x01")))
    assert run(capsys, "check", "--stdin-filename", "in.py", "-")[:2] == (
        2, ["in.py:1:1: TFE000 [error] binary file (contains NUL bytes), not Python source"])


def test_an_analysis_over_its_cpu_budget_costs_one_file(tree, capsys, monkeypatch):
    """A case the analysis is pathologically slow on (here: one that never ends) is stopped
    after ``CPU_BUDGET`` seconds of CPU time and reported; the other files are still checked."""
    from tflint_effective.engine import analyse, threads

    real = analyse.lint_parsed

    def slow_on_bad(module, source, path, *args, **kwargs):
        while path.endswith("bad.py"):
            pass
        return real(module, source, path, *args, **kwargs)

    monkeypatch.setattr(analyse, "lint_parsed", slow_on_bad)
    monkeypatch.setattr(threads, "CPU_BUDGET", 0.5)
    bad = tree / "bad.py"
    bad.write_text("import tensorflow as tf\n")
    status, out, _ = run(capsys, "check", "--no-cache", str(tree))
    assert (status, out) == (2, [f"{bad}:1:1: TFE000 [error] cannot analyse this file: the analysis used more "
                                 "than 0.5 s of CPU time (please report it)", f"{tree / 'other.py'}:2:25: {KEEP_DIMS}"])


def test_rebinding_a_name_many_times_costs_linear_resolution():
    """``x = x.attr`` rebound many times: resolving a name once per binding, not once per path
    through the bindings (which never ended for 40 of them)."""
    from tflint_effective.engine import threads
    from tflint_effective.engine.lint import lint_source

    source = "import tensorflow as tf\nx = tf.ones([2])\n" + "".join(f"x = x.attr{i}\n" for i in range(60))
    assert threads.CPU_BUDGET >= 5
    assert [(d.line, d.code) for d in lint_source(source + "y = tf.reduce_sum(x)\n")] == [(63, "TFE101")]
