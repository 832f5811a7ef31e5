"""Python 2 files are read through a translation, reported at their own positions, never fixed."""
import ast

import libcst
import pytest

from tflint_effective.engine.fix import fix_source
from tflint_effective.engine.lint import lint_document, lint_source

PY2 = (
    "import tensorflow as tf\n"
    "x = tf.placeholder(tf.float32, [None, 1])\n"
    "print 'shape', x.shape\n"
    "y = tf.squeeze(x)\n"
    "try:\n"
    "\tm = tf.reduce_mean(y, reduction_indices=[0])\n"  # a tab: columns move in the translation
    "except ValueError, e:\n"
    "    print >>log, `e`, 0777\n"
    "t = tf.reduce_sum(y, axis=0)\n"
    "if t > 0: print 'positive', t\n"
)


def test_findings_point_at_the_same_tokens_in_the_original():
    found = lint_source(PY2, "old.py")
    assert [(d.line, d.col, d.code, d.severity) for d in found] == [
        (4, 4, "TFE103", "warning"), (6, 23, "TFE102", "info"), (10, 3, "TFE301", "error")]  # TF1 code: TFE102 info
    lines = PY2.splitlines()
    starts = {"TFE103": "tf.squeeze(x)", "TFE102": "reduction_indices=[0]", "TFE301": "t > 0"}
    for d in found:
        assert lines[d.line - 1][d.col:].startswith(starts[d.code])
        assert lines[d.end_line - 1][:d.end_col].endswith(starts[d.code])


def test_read_as_python2_is_said_once_and_nothing_is_fixed():
    analysis = lint_document(PY2, "old.py")
    assert analysis.notes == ["read as Python 2 (translated to Python 3 for the analysis; nothing is fixed)"]
    assert analysis.module is None and all(d.fix is None for d in analysis.diagnostics)
    result = fix_source(PY2, "old.py")
    assert result.source == PY2 and result.applied == 0
    assert [d.code for d in result.diagnostics] == ["TFE103", "TFE102", "TFE301"]


def test_python2_is_tf1_code_unless_it_shows_eager_signals():
    eager = PY2.replace("import tensorflow as tf\n", "import tensorflow as tf\ntf.enable_eager_execution()\n")
    eager = eager.replace("x = tf.placeholder(tf.float32, [None, 1])", "x = tf.ones([1, 1])")
    assert [d.code for d in lint_source(eager, "old.py")] == ["TFE102"]  # no batch shown; a scalar if: legal


PY2_TUPLE_PARAMETERS = (  # no Python 2 syntax but its tuple parameters
    "import tensorflow as tf\n"
    "x = tf.placeholder(tf.float32, [None, 1])\n"
    "def scale(t, (a, b)=(1, 2)): return tf.reduce_mean(t, reduction_indices=[0]) * a + b\n"
    "pairs = sorted(d.items(), key=lambda (k, v): (v, k))\n"
    "y = tf.squeeze(x)\n"
)


def test_tuple_parameters_are_translated_and_findings_keep_their_positions():
    found = lint_source(PY2_TUPLE_PARAMETERS, "old.py")
    lines = PY2_TUPLE_PARAMETERS.splitlines()
    assert [(d.line, d.col, d.code) for d in found] == [
        (3, lines[2].index("reduction_indices"), "TFE102"), (5, 4, "TFE103")]
    starts = {"TFE103": "tf.squeeze(x)", "TFE102": "reduction_indices=[0]"}
    for d in found:
        assert lines[d.line - 1][d.col:].startswith(starts[d.code])
        assert lines[d.end_line - 1][:d.end_col].endswith(starts[d.code])
    assert lint_document(PY2_TUPLE_PARAMETERS, "old.py").notes == [
        "read as Python 2 (translated to Python 3 for the analysis; nothing is fixed)"]


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\ndef f((a, b)):\n    print a b\n",  # translated, still no Python 3
    "import tensorflow as tf\ndef f((a, b)):\n    print >>log,\n",  # not translated
])
def test_what_cannot_be_translated_stays_one_syntax_error(source):
    [error] = lint_source(source, "old.py")
    assert (error.code, error.line) == ("TFE000", 2)


MIXED_TABS = (  # valid Python 3 (CPython reads a tab as reaching the next multiple of 8), which libcst rejects
    "import tensorflow as tf\n"
    "\n"
    "def f(x, flag):\n"
    "    \tif flag:\n"
    "            return tf.squeeze(x, axis=0)\n"
    "    \telse:\n"
    "    \t\treturn tf.reduce_sum(x, 1, keep_dims=True)\n"
)


def test_python3_indentation_libcst_cannot_tokenize_is_read_with_tabs_expanded():
    ast.parse(MIXED_TABS)
    with pytest.raises(libcst.ParserSyntaxError):
        libcst.parse_module(MIXED_TABS)
    analysis = lint_document(MIXED_TABS, "mixed.py")
    assert [(d.line, d.col, d.end_col, d.code) for d in analysis.diagnostics] == [(7, 33, 47, "TFE102")]
    assert MIXED_TABS.splitlines()[6][33:47] == "keep_dims=True"
    assert analysis.notes == [
        "read with the tabs of its indentation expanded (libcst cannot tokenize them; nothing is fixed)"]
    assert fix_source(MIXED_TABS.expandtabs(8), "mixed.py").applied == 1  # the fix exists...
    result = fix_source(MIXED_TABS, "mixed.py")
    assert result.source == MIXED_TABS and result.applied == 0  # ...but not for text that is not the file
