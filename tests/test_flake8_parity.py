"""flake8 with the plugin and ``tflint-effective check`` report the same findings: on the
fixtures, on notebooks' code cells extracted to .py files, with the ``--tfe-`` options
(on the command line and in flake8's configuration), and for files that do not parse."""
import ast
import json
import re
import shutil
import subprocess
import sys

import pytest

from tfe_testing import FIXTURES
from tflint_effective.frontends.documents import Notebook
from tflint_effective.frontends.flake8_plugin import Plugin

pytest.importorskip("flake8", reason="pip install '.[test]' to compare with flake8")

SEVERITY = re.compile(r"^(.*?: TFE\d{3}) \[(?:info|warning|error)\] ")
CELLS = [
    {"cell_type": "markdown", "metadata": {}, "source": ["# Training\n"]},
    {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
     "source": ["%matplotlib inline\n", "import tensorflow as tf\n", "x = tf.ones([2, 3])"]},
    {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
     "source": ["!nvidia-smi\n", "y = tf.reduce_sum(x, reduction_indices=1)\n",
                "p = tf.nn.softmax(x)\n", "loss = -tf.reduce_sum(y * tf.math.log(p))"]},
    {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [],
     "source": ["for i in range(2):\n", "    z = tf.squeeze(x[i])\n", "    if tf.reduce_any(z > 0):\n",
                "        print(z)"]},
]
NOTEBOOK = json.dumps({"cells": CELLS, "nbformat": 4, "nbformat_minor": 5,
                       "metadata": {"kernelspec": {"language": "python", "name": "python3"}}}, indent=1)


def _run(*command, cwd, statuses=(0, 1)):
    done = subprocess.run([sys.executable, "-m", *command], cwd=cwd, capture_output=True, text=True)
    assert done.returncode in statuses, done.stderr
    return done.stdout.splitlines()


def flake8(*args, cwd):
    return sorted(line for line in _run("flake8", *args, cwd=cwd) if ": TFE" in line)


def check(*args, cwd):
    """The CLI's lines without the severity: flake8 prints ``path:line:col: CODE message``."""
    lines = _run("tflint_effective", "check", "-q", "--no-cache", *args, cwd=cwd)
    return sorted(SEVERITY.sub(r"\1 ", line) for line in lines)


@pytest.mark.slow
def test_same_findings_on_the_fixtures_at_every_minimum_severity(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    everything = check("--isolated", "--severity", "info", "fixtures", cwd=tmp_path)
    assert len(everything) > 40
    assert flake8("--isolated", "--select", "TFE", "--tfe-severity", "info", "fixtures", cwd=tmp_path) == everything
    warnings = check("--isolated", "fixtures", cwd=tmp_path)  # the default minimum: warning
    assert 0 < len(warnings) < len(everything)
    assert flake8("--isolated", "--select", "TFE", "fixtures", cwd=tmp_path) == warnings


@pytest.mark.slow
def test_same_findings_on_notebook_code_cells_extracted_to_python(tmp_path):
    (tmp_path / "nb.ipynb").write_text(NOTEBOOK)
    notebook = Notebook(NOTEBOOK)
    (tmp_path / "nb.py").write_text(notebook.source)
    by_flake8 = flake8("--isolated", "--select", "TFE", "--tfe-severity", "info", "nb.py", cwd=tmp_path)
    assert by_flake8 == check("--isolated", "--severity", "info", "nb.py", cwd=tmp_path)
    cells = []  # flake8's lines of the extracted module, put back into cells
    for line in by_flake8:
        number, column, rest = re.match(r"nb\.py:(\d+):(\d+): (.*)", line).groups()
        cell, within = notebook.locate(int(number))
        cells.append(f"nb.ipynb:cell {cell}:{within}:{column}: {rest}")
    assert sorted(cells) == check("--isolated", "--severity", "info", "nb.ipynb", cwd=tmp_path)
    assert [re.search(r": (TFE\d+) ", line).group(1) for line in sorted(cells)] == [
        "TFE102", "TFE101", "TFE403", "TFE103", "TFE101"]


@pytest.mark.slow
def test_tensorflow_modules_from_the_command_line_and_from_flake8_configuration(tmp_path):
    (tmp_path / "m.py").write_text("from myproject.compat import tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\n")
    assert flake8("--isolated", "--select", "TFE", "m.py", cwd=tmp_path) == []
    expected = check("--isolated", "m.py", cwd=tmp_path)
    assert expected == []
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-effective]\ntensorflow-modules = ["myproject.compat.tf"]\n')
    expected = check("m.py", cwd=tmp_path)
    assert [line.split(": ")[1].split()[0] for line in expected] == ["TFE103"]
    assert flake8("--isolated", "--select", "TFE", "--tfe-tensorflow-modules", "myproject.compat.tf", "m.py",
                  cwd=tmp_path) == expected
    (tmp_path / "setup.cfg").write_text("[flake8]\nselect = TFE\ntfe-tensorflow-modules =\n"
                                        "    other.module,\n    myproject.compat.tf\ntfe-severity = info\n")
    assert flake8("m.py", cwd=tmp_path) == expected
    (tmp_path / "setup.cfg").write_text("[flake8]\nselect = TFE\ntfe-tensorflow-modules = myproject.compat.tf\n"
                                        "tfe-severity = error\n")
    assert flake8("m.py", cwd=tmp_path) == []  # TFE103 is not an error


def test_a_bad_module_name_stops_flake8_with_a_message(tmp_path):
    (tmp_path / "m.py").write_text("x = 1\n")
    done = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--tfe-tensorflow-modules", "a-b", "m.py"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (
        1, "flake8: --tfe-tensorflow-modules: 'a-b' is not a dotted module name\n")


def test_a_file_python_rejects_is_flake8s_e999_and_the_clis_tfe000(tmp_path):
    (tmp_path / "broken.py").write_text("import tensorflow as tf\nx = (1,\n")
    done = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "TFE,E9", "broken.py"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout == "broken.py:2:6: E999 SyntaxError: '(' was never closed\n"  # flake8's column
    assert _run("tflint_effective", "check", "-q", "--isolated", "broken.py", cwd=tmp_path, statuses=(2,)) == [
        "broken.py:2:5: TFE000 [error] syntax error: '(' was never closed"]


def test_tfe000_from_the_plugin_only_when_libcst_rejects_what_python_parses(monkeypatch):
    import libcst

    from tflint_effective.engine import lint

    source = "import tensorflow as tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\n"

    def newer_grammar(text):
        raise libcst.ParserSyntaxError("unsupported", lines=text.splitlines(True), raw_line=2, raw_column=4)

    monkeypatch.setattr("tflint_effective.engine.parse.parse", newer_grammar)
    monkeypatch.setattr(lint, "can_skip", lambda *args, **kwargs: False)
    found = list(Plugin(ast.parse(source), source.splitlines(True), "m.py").run())
    assert [(line, col, text.split(":")[0]) for line, col, text, _ in found] == [
        (2, 4, "TFE000 cannot parse this file with libcst")]
