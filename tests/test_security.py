"""The linter never imports or executes the code it checks, and never evaluates configuration.

The checked files would leave a marker file and end the process if they ran;
a ``tensorflow.py`` beside them would do the same if anything imported TensorFlow
from the directory being checked.
"""
import json
import subprocess
import sys

import pytest

from tfe_testing import ROOT
from tflint_effective import fix_source, lint_source
from tflint_effective.frontends import cli

SQUEEZE = ("TFE103 [warning] `squeeze` without `axis` removes every size-1 dimension, including a batch of one; "
           "pass the axis to remove (`axis=[...]`)")


def hostile(marker):
    return (f"import os, sys\nimport tensorflow as tf\nopen({str(marker)!r}, 'w').write('executed')\n"
            "os._exit(3)\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\nsys.exit(4)\n")


@pytest.fixture
def project(tmp_path):
    """A directory of hostile files; the marker they would write is ``tmp_path / "marker"``."""
    marker = tmp_path / "marker"
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "hostile.py").write_text(hostile(marker))
    (folder / "tensorflow.py").write_text(f"open({str(marker)!r}, 'w').write('imported')\n")
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
            "source": hostile(marker).splitlines(keepends=True)}
    (folder / "hostile.ipynb").write_text(json.dumps(
        {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return folder, marker


def test_the_api_and_the_cli_lint_without_running_anything(project, capsys, monkeypatch):
    folder, marker = project
    monkeypatch.chdir(folder)
    source = (folder / "hostile.py").read_text()
    assert [(d.line, d.code) for d in lint_source(source)] == [(5, "TFE103")]
    assert fix_source(source).source == source
    assert cli.main(["check", "--isolated", "-q", "hostile.py", "hostile.ipynb"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"hostile.py:5:5: {SQUEEZE}", f"hostile.ipynb:cell 1:5:5: {SQUEEZE}"]
    assert cli.main(["fix", "--isolated", "-q", "hostile.py", "hostile.ipynb"]) == 1
    assert not marker.exists()


@pytest.mark.parametrize("command", [
    [sys.executable, "-m", "tflint_effective", "check", "--isolated", "-q", "."],
    [sys.executable, "-m", "tflint_effective", "fix", "--isolated", "-q", "--unsafe-fixes", "."],
    [sys.executable, "-m", "flake8", "--select", "TFE", "hostile.py"],
], ids=["check", "fix", "flake8"])
def test_a_process_started_in_the_checked_directory_runs_nothing(project, command):
    """``python -m`` puts the current directory first on sys.path: importing TensorFlow there
    would run the local tensorflow.py."""
    folder, marker = project
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr  # findings reported, not exit status 3 or 4
    assert "hostile.py:5:5: TFE103" in done.stdout
    assert not marker.exists()


@pytest.mark.parametrize("setting, message", [
    ('select = ["__import__(\'os\').system(\'touch MARKER\')"]',
     "is not a rule code or prefix"),
    ('severity = "__import__(\'os\').system(\'touch MARKER\') or \'info\'"',
     "expected one of info, warning, error"),
    ('exclude = ["$(touch MARKER)", "`touch MARKER`", "__import__(\'os\').system(\'touch MARKER\')"]', None),
    ('per-file-ignores = {"$(touch MARKER)" = ["TFE1"]}', None),
])
def test_configuration_values_are_never_evaluated(project, capsys, monkeypatch, setting, message):
    folder, marker = project
    (folder / "pyproject.toml").write_text(
        "[tool.tflint-effective]\n" + setting.replace("MARKER", str(marker)) + "\n")
    monkeypatch.chdir(folder)
    status = cli.main(["check", "-q", "hostile.py"])
    out, err = capsys.readouterr()
    if message is None:  # plain strings: used as globs, matching nothing here
        assert (status, out) == (1, f"hostile.py:5:5: {SQUEEZE}\n")
    else:
        assert status == 2 and message in err
    assert not marker.exists()
