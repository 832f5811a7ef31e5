"""``.py`` files exported from notebooks that kept IPython's magics and shell escapes: read with
those lines skipped, reported at their own positions, never fixed."""
from tflint_effective.engine.fix import fix_source
from tflint_effective.engine.lint import lint_document

EXPORT = (
    "%matplotlib inline\n"
    "import tensorflow as tf\n"
    "! pip install tensorflow==2.1.0\n"
    "files = !ls data\n"
    "y = tf.squeeze(tf.keras.layers.Dense(1)(x))\n"
    "if True:\n"
    "    %time z = tf.reduce_sum(y, keep_dims=True)\n"
    "tf.reduce_sum?\n"
)


def test_magic_lines_are_skipped_and_the_rest_is_linted_at_its_own_positions():
    analysis = lint_document(EXPORT, "export.py")
    assert [(d.line, d.col, d.code) for d in analysis.diagnostics] == [(5, 4, "TFE103")]
    assert analysis.notes == ["read as IPython (its magic and shell lines skipped; nothing is fixed)"]
    assert analysis.module is None  # nothing is fixed


def test_nothing_is_fixed():
    source = EXPORT.replace("tf.squeeze(tf.keras.layers.Dense(1)(x))", "tf.reduce_sum(x, reduction_indices=1)")
    assert [d.code for d in lint_document(source, "export.py").diagnostics] == ["TFE102"]
    assert fix_source(source, "export.py").source == source


def test_a_syntax_error_besides_the_magics_is_still_one_tfe000():
    analysis = lint_document(EXPORT + "x = = 1\n", "export.py")
    assert [(d.line, d.code) for d in analysis.diagnostics] == [(1, "TFE000")]
    assert analysis.notes == []
