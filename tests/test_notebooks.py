"""Jupyter notebooks: findings per cell, fixes written back to the changed cells only."""
import json

import pytest

from tflint_effective.frontends.cli import main
from tflint_effective.engine.diagnostics import Diagnostic
from tflint_effective.registry import rule_by_code
from tflint_effective.frontends.documents import Notebook, NotebookError

M102 = rule_by_code("TFE102").MESSAGE


def code_cell(number, source, outputs=()):
    return {"cell_type": "code", "execution_count": number, "id": f"c{number}", "metadata": {},
            "outputs": list(outputs), "source": source}


OUTPUT = {"name": "stdout", "output_type": "stream", "text": ["tensor(…)\n"]}
CELLS = [
    {"cell_type": "markdown", "id": "m0", "metadata": {}, "source": ["# Réseau\n", "Notes."]},
    code_cell(1, ["%matplotlib inline\n", "import tensorflow as tf\n", "x = tf.ones([2, 3])"]),
    code_cell(2, ["!pip list\n", "y = tf.reduce_sum(x, reduction_indices=1)\n", "print(y)"], [OUTPUT]),
    code_cell(3, ["%%bash\n", "z = tf.reduce_sum(x, reduction_indices=1)"]),  # not Python: skipped
    code_cell(4, ["for i in range(2):\n", "    %time w = tf.reduce_mean(x, axis=1)\n",
                  "    v = tf.reduce_max(x, keep_dims=True, axis=0)"]),
]
METADATA = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}


def notebook_text(cells=CELLS, metadata=METADATA, indent=1):
    """As Jupyter writes it: indent 1, sorted keys, raw UTF-8, final newline."""
    data = {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(data, indent=indent, sort_keys=True, ensure_ascii=False) + "\n"


FIXED = (notebook_text()
         .replace('"y = tf.reduce_sum(x, reduction_indices=1)\\n"', '"y = tf.reduce_sum(x, axis=1)\\n"')
         .replace('"    v = tf.reduce_max(x, keep_dims=True, axis=0)"',
                  '"    v = tf.reduce_max(x, keepdims=True, axis=0)"'))
LINES = [f"nb.ipynb:cell 3:2:22: TFE102 [warning] {M102.format(old='reduction_indices', new='axis')}",
         f"nb.ipynb:cell 5:3:26: TFE102 [warning] {M102.format(old='keep_dims', new='keepdims')}"]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "nb.ipynb").write_text(notebook_text(), encoding="utf-8")
    return tmp_path


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_findings_in_two_cells_report_cell_and_line(workdir, capsys):
    assert run(capsys, "check", "nb.ipynb", "--select", "TFE1") == (
        1, "\n".join(LINES) + "\n", "2 findings (2 fixable) in 1 file\n")


def test_fix_rewrites_only_those_cells_and_keeps_the_json_layout(workdir, capsys):
    assert run(capsys, "fix", "nb.ipynb", "--select", "TFE1") == (1, "", "Fixed 2 findings in 1 file.\n")
    assert (workdir / "nb.ipynb").read_text(encoding="utf-8") == FIXED
    assert run(capsys, "check", "nb.ipynb", "--select", "TFE1") == (0, "", "No findings (1 file checked).\n")


@pytest.mark.parametrize("magic, read", [("%%time", True), ("%%capture out", True), ("%%timeit -n1", True),
                                          ("%%bash", False), ("%%writefile model.py", False), ("%%python3", False)])
def test_a_cell_magic_whose_body_is_python_is_read_and_kept_on_fixing(tmp_path, monkeypatch, capsys, magic, read):
    monkeypatch.chdir(tmp_path)
    cells = [code_cell(1, ["import tensorflow as tf\n", "x = tf.ones([2, 3])"]),
             code_cell(2, [f"{magic}\n", "y = tf.reduce_sum(x, reduction_indices=1)"])]
    (tmp_path / "nb.ipynb").write_text(notebook_text(cells), encoding="utf-8")
    expected = f"nb.ipynb:cell 2:2:22: TFE102 [warning] {M102.format(old='reduction_indices', new='axis')}\n"
    assert run(capsys, "check", "nb.ipynb", "--select", "TFE102")[1] == (expected if read else "")
    run(capsys, "fix", "nb.ipynb", "--select", "TFE102")
    fixed = notebook_text(cells)
    if read:
        fixed = fixed.replace("reduction_indices=1", "axis=1")
    assert (tmp_path / "nb.ipynb").read_text(encoding="utf-8") == fixed


def test_fix_diff_names_the_cells(workdir, capsys):
    status, out, _ = run(capsys, "fix", "nb.ipynb", "--diff", "--select", "TFE1")
    assert status == 1
    assert out == ("--- a/nb.ipynb:cell 3\n+++ b/nb.ipynb:cell 3\n@@ -1,3 +1,3 @@\n !pip list\n"
                   "-y = tf.reduce_sum(x, reduction_indices=1)\n+y = tf.reduce_sum(x, axis=1)\n print(y)\n"
                   "--- a/nb.ipynb:cell 5\n+++ b/nb.ipynb:cell 5\n@@ -1,3 +1,3 @@\n for i in range(2):\n"
                   "     %time w = tf.reduce_mean(x, axis=1)\n"
                   "-    v = tf.reduce_max(x, keep_dims=True, axis=0)\n"
                   "+    v = tf.reduce_max(x, keepdims=True, axis=0)\n")
    assert (workdir / "nb.ipynb").read_text(encoding="utf-8") == notebook_text()


def test_json_output_carries_the_cell(workdir, capsys):
    status, out, _ = run(capsys, "check", "nb.ipynb", "--select", "TFE102", "--format", "json")
    first = json.loads(out)["findings"][0]
    assert {k: first[k] for k in ("path", "cell", "line", "column", "end_line", "end_column")} == {
        "path": "nb.ipynb", "cell": 3, "line": 2, "column": 22, "end_line": 2, "end_column": 41}
    assert first["fix"]["diff"] == ("--- a/nb.ipynb:cell 3\n+++ b/nb.ipynb:cell 3\n@@ -1,3 +1,3 @@\n"
                                    " !pip list\n-y = tf.reduce_sum(x, reduction_indices=1)\n"
                                    "+y = tf.reduce_sum(x, axis=1)\n print(y)\n")


def test_linted_module_joins_code_cells_with_magics_as_placeholders():
    notebook = Notebook(notebook_text())
    assert notebook.source == (
        "# <tflint-effective cell 2>\n"
        "pass  # <tflint-effective magic>\nimport tensorflow as tf\nx = tf.ones([2, 3])\n"
        "# <tflint-effective cell 3>\n"
        "pass  # <tflint-effective magic>\ny = tf.reduce_sum(x, reduction_indices=1)\nprint(y)\n"
        "# <tflint-effective cell 5>\n"
        "for i in range(2):\n    pass  # <tflint-effective magic>\n"
        "    v = tf.reduce_max(x, keep_dims=True, axis=0)\n")
    assert [notebook.locate(line) for line in (2, 4, 7, 11)] == [(2, 1), (2, 3), (3, 2), (5, 2)]


@pytest.mark.parametrize("line", [
    "!ls -l", "%load_ext autoreload", "files = !ls", "t = %timeit -o f()", "tf.reduce_sum?", "??tf",
    "  %time f()",
])
def test_magic_lines_become_placeholders(line):
    cells = [code_cell(1, ["import tensorflow as tf\n", line])]
    source = Notebook(notebook_text(cells)).source
    indent = line[:len(line) - len(line.lstrip())]
    assert source.splitlines()[2] == indent + "pass  # <tflint-effective magic>"


def test_magic_continuation_lines_are_placeholders_too():
    cells = [code_cell(1, ["if True:\n", "    !echo a \\\n", "        b\n", "    c = 1"])]
    assert Notebook(notebook_text(cells)).source.splitlines()[1:] == [
        "if True:", "    pass  # <tflint-effective magic>", "    pass  # <tflint-effective magic>",
        "    c = 1"]


def test_an_import_is_needed_before_names_resolve(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = [code_cell(1, ["y = tf.reduce_sum(x, reduction_indices=1)"])]
    (tmp_path / "n.ipynb").write_text(notebook_text(cells))
    assert run(capsys, "check", "n.ipynb")[:2] == (0, "")


def test_other_kernels_are_not_linted(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    metadata = {"kernelspec": {"display_name": "R", "language": "R", "name": "ir"}}
    cells = [code_cell(1, ["import tensorflow as tf\n", "y = tf.reduce_sum(x, reduction_indices=1)"])]
    (tmp_path / "r.ipynb").write_text(notebook_text(cells, metadata))
    assert run(capsys, "check", "r.ipynb")[:2] == (0, "")


def test_string_sources_and_other_indents_are_kept(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = [code_cell(1, "import tensorflow as tf\ny = tf.reduce_sum(x, reduction_indices=1)\n")]
    original = notebook_text(cells, indent=2)
    (tmp_path / "s.ipynb").write_text(original)
    assert run(capsys, "fix", "s.ipynb", "--select", "TFE102")[0] == 1
    assert (tmp_path / "s.ipynb").read_text() == original.replace("reduction_indices=1", "axis=1")


def test_directories_include_notebooks(workdir, capsys):
    (workdir / "sub").mkdir()
    (workdir / "nb.ipynb").rename(workdir / "sub" / "nb.ipynb")
    status, out, _ = run(capsys, "check", ".", "--select", "TFE102")
    assert (status, out) == (1, "".join(f"sub/{line}\n" for line in LINES))


def test_unreadable_notebook_is_tfe000(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.ipynb").write_text("{not json")
    status, out, _ = run(capsys, "check", "bad.ipynb")
    assert status == 2
    assert out.startswith("bad.ipynb:1:1: TFE000 [error] cannot parse this notebook: invalid JSON: ")
    (tmp_path / "bad.ipynb").write_text('{"worksheets": []}')
    assert run(capsys, "check", "bad.ipynb")[:2] == (
        2, "bad.ipynb:1:1: TFE000 [error] cannot parse this notebook: no `cells` list (nbformat 4 is supported)\n")


def test_a_cell_that_does_not_parse_is_located(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = [code_cell(1, ["import tensorflow as tf"]), code_cell(2, ["x = = 1"])]
    (tmp_path / "p.ipynb").write_text(notebook_text(cells))
    status, out, _ = run(capsys, "check", "p.ipynb")
    assert status == 2
    assert out == "p.ipynb:cell 2:1:5: TFE000 [error] syntax error: invalid syntax\n"


def test_fixes_spanning_cells_are_refused():
    notebook = Notebook(notebook_text())

    def spanning(start, end):
        return Diagnostic("nb.ipynb", start, 0, "TFE102", "m", "warning", end, 1)

    assert notebook.same_cell(spanning(6, 8)) is True
    assert notebook.same_cell(spanning(4, 6)) is False
    # A fixed module whose cell markers moved cannot be written back.
    assert notebook.rewrite(notebook.source.replace("# <tflint-effective cell 3>\n", "")) is None
    assert notebook.rewrite(notebook.source.replace("    pass  # <tflint-effective magic>\n", "")) is None
    assert notebook.rewrite(notebook.source) == notebook_text()


def test_not_a_notebook_raises():
    with pytest.raises(NotebookError, match="invalid JSON"):
        Notebook("[")


@pytest.mark.parametrize("lines", [
    ["print('%d'\n", "      % x)"],  # a continuation line inside brackets
    ["s = '''\n", "%not a magic\n", "'''"],  # inside a triple-quoted string
    ['s = """a\n', '%b \\"""\n', '"""'],  # an escaped quote does not end it
    ["t = 3 \\\n", "    % 2"],  # after a backslash
])
def test_lines_inside_a_logical_line_are_never_magics(lines):
    cells = [code_cell(1, ["import tensorflow as tf\n", *lines])]
    source = Notebook(notebook_text(cells)).source
    assert source.splitlines()[2:] == [line.rstrip("\n") for line in lines]


def test_a_magic_after_a_closed_bracket_is_still_a_magic():
    cells = [code_cell(1, ["x = f('(',  # )\n", "      1)\n", "%time g(x)"])]
    assert Notebook(notebook_text(cells)).source.splitlines()[1:] == [
        "x = f('(',  # )", "      1)", "pass  # <tflint-effective magic>"]


INDENTED = [code_cell(1, ["import tensorflow as tf\n", "x = tf.ones([2, 3])"]),
            code_cell(2, ["\n", "  y = tf.reduce_sum(x, reduction_indices=1)\n", "  if True:\n",
                          "      v = tf.reduce_max(x, keep_dims=True, axis=0)\n", "\n", "  print(y)"])]


def test_an_indented_cell_is_read_as_ipython_reads_it_and_reported_at_its_own_columns(tmp_path, capsys,
                                                                                        monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "i.ipynb").write_text(notebook_text(INDENTED))
    assert Notebook(notebook_text(INDENTED)).source.splitlines()[4:] == [
        "", "y = tf.reduce_sum(x, reduction_indices=1)", "if True:",
        "    v = tf.reduce_max(x, keep_dims=True, axis=0)", "", "print(y)"]
    status, out, _ = run(capsys, "check", "i.ipynb", "--select", "TFE102", "--show-source")
    assert status == 1
    assert out == (
        f"i.ipynb:cell 2:2:24: TFE102 [warning] {M102.format(old='reduction_indices', new='axis')}\n"
        "2 |   y = tf.reduce_sum(x, reduction_indices=1)\n  |                        ^^^^^^^^^^^^^^^^^^^\n"
        f"i.ipynb:cell 2:4:28: TFE102 [warning] {M102.format(old='keep_dims', new='keepdims')}\n"
        "4 |       v = tf.reduce_max(x, keep_dims=True, axis=0)\n  |                            ^^^^^^^^^^^^^^\n")


def test_fixing_an_indented_cell_keeps_its_indentation(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "i.ipynb").write_text(notebook_text(INDENTED))
    assert run(capsys, "fix", "i.ipynb", "--select", "TFE102") == (1, "", "Fixed 2 findings in 1 file.\n")
    assert (tmp_path / "i.ipynb").read_text() == notebook_text(INDENTED).replace(
        "reduction_indices=1", "axis=1").replace("keep_dims=True", "keepdims=True")


def test_an_indented_cell_whose_string_has_a_less_indented_line_is_not_fixed(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = [code_cell(1, ["  import tensorflow as tf\n", '  s = """\n', 'text"""\n',
                           "  y = tf.reduce_sum(tf.ones([2]), reduction_indices=0)"])]
    (tmp_path / "s.ipynb").write_text(notebook_text(cells))
    status, out, err = run(capsys, "fix", "s.ipynb", "--select", "TFE102")
    assert status == 1 and out.startswith("s.ipynb:cell 1:4:35: TFE102 [warning]")
    assert "s.ipynb: warning: the fixed code cannot be put back into the cells; notebook left unchanged" in err
    assert (tmp_path / "s.ipynb").read_text() == notebook_text(cells)


def test_a_cell_that_starts_with_an_indented_comment_is_dedented_as_ipython_does():
    # IPython removes the first line's indentation from every line that starts with it, a comment's too
    cells = [code_cell(1, ["  # setup\n", "import tensorflow as tf\n", "for i in range(2):\n", "    x = i"]),
             code_cell(2, ["    # the same indentation on every line\n", "    y = tf.reduce_sum(x)"])]
    notebook = Notebook(notebook_text(cells))
    assert notebook.source.splitlines()[1:] == [
        "# setup", "import tensorflow as tf", "for i in range(2):", "  x = i",
        "# <tflint-effective cell 2>", "# the same indentation on every line", "y = tf.reduce_sum(x)"]
    compile(notebook.source, "c.ipynb", "exec")  # read as it is, cell 2 would be an IndentationError


def test_a_syntax_error_names_its_lines_in_cell_terms(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = [code_cell(1, ["import tensorflow as tf\n", "with tf.Graph().as_default():"]),
             code_cell(2, ["x = 1\n"])]
    (tmp_path / "e.ipynb").write_text(notebook_text(cells))
    assert run(capsys, "check", "e.ipynb")[:2] == (2, "e.ipynb:cell 1:2:30: TFE000 [error] syntax error: expected an "
                                                      "indented block after 'with' statement on line 2\n")
    cells[1] = code_cell(2, ["x = = 1\n"])  # no cell parses on its own: the joined module's error
    (tmp_path / "e.ipynb").write_text(notebook_text(cells))
    assert run(capsys, "check", "e.ipynb")[:2] == (2, "e.ipynb:cell 2:1:1: TFE000 [error] syntax error: expected an "
                                                      "indented block after 'with' statement on line 2 of cell 1\n")
    cells = [code_cell(1, ["import tensorflow as tf\n"]), code_cell(2, ["x = 1\n", "y = (1,\n", "     2]"])]
    (tmp_path / "e.ipynb").write_text(notebook_text(cells))
    assert run(capsys, "check", "e.ipynb")[:2] == (
        2, "e.ipynb:cell 2:3:7: TFE000 [error] syntax error: closing parenthesis ']' does not match opening "
           "parenthesis '(' on line 2\n")


BROKEN = [code_cell(1, ["import tensorflow as tf\n", "x = tf.ones([2, 3])"]),
          code_cell(2, ["# exercise: fill in the axis\n", "y = tf.reduce_sum(x, ??)\n"]),
          code_cell(3, ["z = tf.reduce_sum(x, reduction_indices=1)"])]


def test_a_cell_that_does_not_parse_is_left_out_and_the_others_are_checked(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "b.ipynb").write_text(notebook_text(BROKEN))
    assert run(capsys, "check", "b.ipynb", "--select", "TFE1") == (
        2, "b.ipynb:cell 2:2:22: TFE000 [error] syntax error: invalid syntax\n"
           f"b.ipynb:cell 3:1:22: TFE102 [warning] {M102.format(old='reduction_indices', new='axis')}\n",
        "2 findings (1 fixable) in 1 file\n")
    assert run(capsys, "fix", "b.ipynb", "--select", "TFE1")[0] == 2
    assert (tmp_path / "b.ipynb").read_text() == notebook_text(BROKEN).replace("reduction_indices=1", "axis=1")


def test_a_python_2_notebook_is_still_read_whole(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = [code_cell(1, ["import tensorflow as tf\n", "print 'x'\n"]),
             code_cell(2, ["y = tf.reduce_sum(tf.ones([2]), reduction_indices=0)"])]
    (tmp_path / "p2.ipynb").write_text(notebook_text(cells))
    status, out, err = run(capsys, "check", "p2.ipynb", "--select", "TFE1", "--severity", "info")
    assert (status, out.split(":")[:4]) == (1, ["p2.ipynb", "cell 2", "1", "33"])
    assert "read as Python 2" in err


def test_a_broken_cell_that_switches_the_mode_keeps_the_notebook_one_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = [code_cell(1, ["import tensorflow as tf\n", "tf.enable_eager_execution(??)"]), *BROKEN[2:]]  # TF1 eager
    (tmp_path / "m.ipynb").write_text(notebook_text(cells))
    assert run(capsys, "check", "m.ipynb", "--select", "TFE1")[:2] == (
        2, "m.ipynb:cell 1:2:27: TFE000 [error] syntax error: invalid syntax\n")
