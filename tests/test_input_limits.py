"""Inputs that must not stall a run: FIFOs, devices and sockets (skipped, never opened),
files over the size cap and what the guard refuses (one TFE000 each)."""
import json
import os
import socket
import subprocess
import sys

import pytest

from tflint_effective.engine import parse
from tflint_effective.engine.lint import lint_source
from tflint_effective.frontends import cli, files

SQUEEZE = "import tensorflow as tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\n"
posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")


def _run(cwd, *args, timeout=60):
    done = subprocess.run([sys.executable, "-m", "tflint_effective", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "TFLINT_EFFECTIVE_CACHE_DIR": str(cwd / "c")})
    return done.returncode, done.stdout, done.stderr


@posix_only
@pytest.mark.parametrize("command", ["check", "fix"])
def test_fifos_devices_and_sockets_are_skipped_with_a_warning(tmp_path, command):
    """Run in a process of its own: opening the FIFO would block this one for ever."""
    (tmp_path / "src").mkdir()
    os.mkfifo(tmp_path / "src" / "pipe.py")
    (tmp_path / "src" / "zero.py").symlink_to("/dev/zero")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "src" / "sock.py"))
    (tmp_path / "src" / "real.py").write_text(SQUEEZE)
    try:
        status, out, err = _run(tmp_path, command, "-q", "--isolated", "--format", "json", "src")
    finally:
        server.close()
    assert status == 1
    assert [(f["path"], f["code"]) for f in json.loads(out)["findings"]] == [("src/real.py", "TFE103")]
    assert err == ("tflint-effective: warning: src/pipe.py: a FIFO, not a regular file: skipped\n"
                   "tflint-effective: warning: src/sock.py: a socket, not a regular file: skipped\n"
                   "tflint-effective: warning: src/zero.py: a symbolic link to /dev/zero, a character "
                   "device, not a regular file: skipped\n")


@posix_only
def test_a_fifo_is_never_opened(tmp_path, monkeypatch):
    os.mkfifo(tmp_path / "pipe.py")

    def refuse(*args, **kwargs):
        raise AssertionError("opened")

    monkeypatch.setattr(files.os, "open", refuse)
    with pytest.raises(files.NotRegularFile, match=r"pipe.py: a FIFO, not a regular file: skipped$"):
        files.read_bytes(tmp_path / "pipe.py")


def test_a_file_over_the_size_cap_is_one_tfe000_naming_the_cap(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "big.py").write_text(SQUEEZE + ("#" * 99 + "\n") * 24_000)  # 2.4 MB, few tokens
    (tmp_path / "small.py").write_text(SQUEEZE)
    assert cli.main(["check", "-q", "-j1", "--isolated", "--format", "json", "big.py", "small.py"]) == 2
    found = [(f["path"], f["line"], f["column"], f["code"], f["message"])
             for f in json.loads(capsys.readouterr().out)["findings"]]
    assert found == [
        ("big.py", 1, 1, "TFE000", "not analysed: 2,400,068 bytes is over the max-file-size of 2 MB "
                                   "(raise max-file-size in the configuration, or pass --max-file-size, "
                                   "to analyse it)"),
        ("small.py", 2, 5, "TFE103", found[1][4])]
    assert cli.main(["check", "-q", "-j1", "--isolated", "--max-file-size", "3MB", "big.py"]) == 1
    assert cli.main(["check", "-q", "-j1", "--isolated", "--max-file-size", "0", "big.py"]) == 1
    capsys.readouterr()


def test_max_file_size_in_the_configuration(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(SQUEEZE)
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-effective]\nmax-file-size = "20 bytes"\n')
    assert cli.main(["check", "-q", "-j1", "m.py"]) == 2
    assert capsys.readouterr().out == (
        "m.py:1:1: TFE000 [error] not analysed: 68 bytes is over the max-file-size of 20 bytes (raise "
        "max-file-size in the configuration, or pass --max-file-size, to analyse it)\n")
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-effective]\nmax-file-size = "1 kB"\n')
    assert cli.main(["check", "-q", "-j1", "m.py"]) == 1
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-effective]\nmax-file-size = "big"\n')
    assert cli.main(["check", "-q", "-j1", "m.py"]) == 2
    assert capsys.readouterr().err == (
        "tflint-effective: pyproject.toml: [tool.tflint-effective] max-file-size: expected a size such "
        "as 2000000, \"500 kB\" or \"2 MB\", got 'big'\n")


def test_standard_input_over_the_size_cap(capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SQUEEZE.encode())))
    assert cli.main(["check", "-q", "--isolated", "--max-file-size", "10", "-"]) == 2
    assert capsys.readouterr().out.startswith("-:1:1: TFE000 [error] not analysed: 11 bytes is over ")


def test_what_the_guard_refuses_is_one_tfe000_with_its_reason(monkeypatch):
    monkeypatch.setattr(parse, "refusal", lambda source: "line 2: too long for libcst" if "a +" in source else None)
    [d] = lint_source("import tensorflow as tf\nx = a + a\n", "m.py")
    assert (d.line, d.col, d.code, d.message) == (
        1, 0, "TFE000", "cannot analyse this file: line 2: too long for libcst")
    assert [d.code for d in lint_source(SQUEEZE, "m.py")] == ["TFE103"]


def test_a_flat_chain_of_ten_thousand_operators_is_refused_quickly():
    """Without the guard, libcst's parser spends minutes on this valid 40 KB file."""
    if parse.refusal is None:
        pytest.skip("engine/guard.py is not there")
    import time

    source = "import tensorflow as tf\nx = " + " + ".join(["a"] * 10_000) + "\n"
    started = time.process_time()
    [d] = lint_source(source, "m.py")
    assert time.process_time() - started < 5
    assert (d.line, d.code) == (1, "TFE000") and d.message.startswith("cannot analyse this file: ")


def _notebook(code, output=""):
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": code,
            "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"image/png": output}}]}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_notebook_is_capped_by_its_code_and_may_be_larger_for_its_outputs(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plots.ipynb").write_text(_notebook(SQUEEZE, "A" * 3_000))  # 3 kB of image, 68 bytes of code
    (tmp_path / "code.ipynb").write_text(_notebook(SQUEEZE + "#" * 999 + "\n"))
    (tmp_path / "huge.ipynb").write_text(_notebook(SQUEEZE, "A" * 60_000))
    args = ["check", "-q", "-j1", "--isolated", "--format", "json", "--max-file-size", "1 kB"]
    assert cli.main([*args, "plots.ipynb", "code.ipynb", "huge.ipynb"]) == 2
    found = [(f["path"], f["code"], f["message"]) for f in json.loads(capsys.readouterr().out)["findings"]]
    assert found == [  # the code cells' size counts the marker line each cell is linted after
        ("plots.ipynb", "TFE103", found[0][2]),
        ("code.ipynb", "TFE000", "not analysed: 1,096 bytes of code cells is over the max-file-size of 1 kB (raise "
                                 "max-file-size in the configuration, or pass --max-file-size, to analyse it)"),
        ("huge.ipynb", "TFE000", "not analysed: 60,297 bytes is over 50 times the max-file-size of 1 kB (raise "
                                 "max-file-size in the configuration, or pass --max-file-size, to analyse it)")]
