"""``check --add-noqa``: a ``# noqa: CODE`` on every reported line, merged with what is there,
never twice, on the last line of a continued statement or multi-line string; notebooks too."""
import ast
import io
import json
import sys

import pytest

from tflint_effective.frontends.cli import main
from tflint_effective.frontends.noqa import JoinedNoqa, _tokens, add_noqa, joined_lines
from tflint_effective.engine.diagnostics import Diagnostic


@pytest.mark.parametrize("source, findings, expected", [
    ("y = f(x)\n", [(1, "TFE101")], "y = f(x)  # noqa: TFE101\n"),
    ("y = f(x)   \n", [(1, "TFE103"), (1, "TFE101"), (1, "TFE103")], "y = f(x)  # noqa: TFE101, TFE103\n"),
    ("y = f(x)  # noqa: E501\n", [(1, "TFE101")], "y = f(x)  # noqa: E501, TFE101\n"),
    ("y = f(x)  # NOQA:E501,W291 why\n", [(1, "TFE101")], "y = f(x)  # NOQA:E501,W291, TFE101 why\n"),
    ("y = f(x)  # noqa: TFE1\n", [(1, "TFE101")], "y = f(x)  # noqa: TFE1\n"),  # a prefix covers it
    ("y = f(x)  # noqa\n", [(1, "TFE101")], "y = f(x)  # noqa\n"),  # silences everything already
    ("y = f(x)  # café\n", [(1, "TFE101")], "y = f(x)  # café  # noqa: TFE101\n"),
    ("s = '# noqa: E1'; y = f(x)\n", [(1, "TFE101")], "s = '# noqa: E1'; y = f(x)  # noqa: TFE101\n"),
    ("y = f(x, \\\n      z)\n", [(1, "TFE101")], "y = f(x, \\\n      z)  # noqa: TFE101\n"),
    ('y = f("""a\nb""", x)\nz = 1\n', [(1, "TFE101")], 'y = f("""a\nb""", x)  # noqa: TFE101\nz = 1\n'),
    ("y = f(\n    x)\n", [(1, "TFE101"), (2, "TFE102")], "y = f(  # noqa: TFE101\n    x)  # noqa: TFE102\n"),
    ("a = 1\r\ny = f(x)\r\n", [(2, "TFE101")], "a = 1\r\ny = f(x)  # noqa: TFE101\r\n"),
    ("y = f(x)", [(1, "TFE101")], "y = f(x)  # noqa: TFE101"),
    ("y = f(x)\n", [(1, "TFE000")], "y = f(x)\n"),
])
def test_add_noqa_text(source, findings, expected):
    assert add_noqa(source, findings)[0] == expected
    assert add_noqa(expected, findings) == (expected, 0)  # a second run changes nothing


def test_joined_lines_are_flake8s_stretches():
    source = "a = 1\nb = f(x, \\\n      y)\nc = '''\n\n'''\nd = g(\n    z)\n"
    assert joined_lines(_tokens(source)) == {
        2: (2, 3), 3: (2, 3), 4: (4, 6), 5: (4, 6), 6: (4, 6)}


def test_a_noqa_on_the_last_line_of_a_stretch_silences_the_first():
    source = "y = f(x, \\\n      z)  # noqa: TFE101\nw = g(\n    x)  # noqa\n"
    finding = Diagnostic("m.py", 1, 4, "TFE101", "m", "warning")
    joined = JoinedNoqa(source)
    assert joined.silences(finding)
    assert not joined.silences(Diagnostic("m.py", 1, 4, "TFE102", "m", "warning"))
    assert not joined.silences(Diagnostic("m.py", 3, 4, "TFE101", "m", "warning"))  # brackets: own line


BAD = ('import tensorflow as tf\n'
       'm = tf.reduce_mean(x, reduction_indices=[1])  # noqa: E501\n'
       'y = tf.squeeze(x, \\\n'
       '               name="s")\n'
       'z = tf.squeeze(f("""\n'
       '"""))\n')
COMMENTED = ('import tensorflow as tf\n'
             'm = tf.reduce_mean(x, reduction_indices=[1])  # noqa: E501, TFE102\n'
             'y = tf.squeeze(x, \\\n'
             '               name="s")  # noqa: TFE103\n'
             'z = tf.squeeze(f("""\n'
             '"""))  # noqa: TFE103\n')


def run(capsys, *argv):
    status = main(["check", "--no-cache", "--isolated", "--severity", "info", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_add_noqa_then_nothing_is_reported_and_a_second_run_changes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(BAD)
    assert run(capsys, "--add-noqa", "m.py") == (0, "", "Added 3 noqa comments to 1 file.\n")
    assert (tmp_path / "m.py").read_text() == COMMENTED
    ast.parse(COMMENTED)
    assert run(capsys, "--add-noqa", "m.py") == (0, "", "Added 0 noqa comments to 0 files.\n")
    assert (tmp_path / "m.py").read_text() == COMMENTED
    assert run(capsys, "m.py") == (0, "", "No findings (1 file checked).\n")
    status, out, _ = run(capsys, "--show-suppressed", "m.py")
    assert [line.split(": ")[1].split()[0] for line in out.splitlines()] == ["TFE102", "TFE103", "TFE103"]
    assert out.count("[suppressed by # noqa]") == 3


def test_add_noqa_respects_the_selection_and_standard_input(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    status, out, err = run(capsys, "--add-noqa", "--select", "TFE102", "-")
    assert (status, out, err) == (0, COMMENTED.replace("  # noqa: TFE103", ""),
                                  "Added 1 noqa comment to 1 file.\n")


def test_add_noqa_in_a_notebook_changes_only_the_cells_with_findings(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": ["%time import tensorflow as tf\n", "import tensorflow as tf"]},
             {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": ["y = tf.squeeze(tf.keras.layers.Dense(1)(x))\n", "!ls\n", "z = 1\n"]}]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook, indent=1) + "\n")
    assert run(capsys, "--add-noqa", "nb.ipynb") == (0, "", "Added 1 noqa comment to 1 file.\n")
    cells[1]["source"][0] = "y = tf.squeeze(tf.keras.layers.Dense(1)(x))  # noqa: TFE103\n"
    assert (tmp_path / "nb.ipynb").read_text() == json.dumps(notebook, indent=1) + "\n"
    assert run(capsys, "nb.ipynb")[0] == 0
