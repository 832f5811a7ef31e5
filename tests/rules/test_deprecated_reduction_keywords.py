import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import dedent, findings, fixed


def test_both_keywords_reported_at_the_argument():
    source = "import tensorflow.compat.v1 as tf\ny = tf.reduce_mean(x, reduction_indices=[1], keep_dims=True)\n"
    assert findings(source) == [(2, 23, "TFE102"), (2, 46, "TFE102")]
    assert fixed(source) == ("import tensorflow.compat.v1 as tf\n"
                             "y = tf.reduce_mean(x, axis=[1], keepdims=True)\n")


def test_fix_keeps_comments_and_layout():
    source = dedent("""\
        import tensorflow.compat.v1 as tf
        y = tf.reduce_sum(
            x,
            reduction_indices = 0,  # rows
        )
    """)
    assert fixed(source) == source.replace("reduction_indices = 0", "axis = 0")


def test_no_fix_when_the_new_keyword_is_also_passed():
    source = "import tensorflow.compat.v1 as tf\ny = tf.reduce_sum(x, axis=1, reduction_indices=1)\n"
    assert findings(source) == [(2, 30, "TFE102")]
    assert fixed(source) == source


@pytest.mark.parametrize("source, expected_fix", [
    ("import tensorflow.compat.v1 as tf\ny = tf.sparse.reduce_sum(x, reduction_axes=1)\n",
     "import tensorflow.compat.v1 as tf\ny = tf.sparse.reduce_sum(x, axis=1)\n"),
    ("from tensorflow.compat.v1 import norm\ny = norm(x, keep_dims=True)\n",
     "from tensorflow.compat.v1 import norm\ny = norm(x, keepdims=True)\n"),
])
def test_other_functions(source, expected_fix):
    assert fixed(source) == expected_fix


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\ny = tf.reduce_sum(x, axis=1, keepdims=True)\n",
    "import numpy as np\ny = np.sum(x, keep_dims=True)\n",
])
def test_near_misses(source):
    assert findings(source) == []


def test_old_keywords_are_a_type_error_in_tf2_and_fixed_code_runs(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(TypeError):
        tf.reduce_sum(x, reduction_indices=[1])
    with pytest.raises(TypeError):  # TF1's nn.moments took keep_dims too
        tf.nn.moments(x, axes=[0], keep_dims=True)
    good = load_module(FIXTURES / "deprecated_reduction_keywords" / "good.py").main()
    assert good["row_sums"].numpy().tolist() == [[3.0], [7.0]]


def test_tf1_moments_keep_dims_is_not_deprecated_unlike_the_reductions(tf):
    # TensorFlow's deprecation decorator marks the docstring of what it wraps
    assert "SOME ARGUMENTS ARE DEPRECATED: `(keep_dims)`" in tf.compat.v1.reduce_sum.__doc__
    for moments in (tf.compat.v1.nn.moments, tf.compat.v1.nn.weighted_moments):
        assert "deprecated" not in moments.__doc__.lower()
        assert "keepdims: Alias" in moments.__doc__  # of keep_dims


def test_through_compat_v1_it_works_today_so_it_is_info():
    from tflint_effective.engine.lint import lint_source

    v2 = lint_source("import tensorflow as tf\nm = tf.reduce_mean(x, keep_dims=True)\n", select=["TFE102"])
    v1 = lint_source("import tensorflow.compat.v1 as tf\nm = tf.reduce_mean(x, keep_dims=True)\n", select=["TFE102"])
    assert [(d.severity, d.message) for d in v2] == [
        ("warning", "`keep_dims=` is deprecated (a TypeError in TF2); use `keepdims=`")]
    assert [(d.severity, d.message) for d in v1] == [
        ("info", "`keep_dims=` is deprecated, removed in TF2; use `keepdims=`")]


@pytest.mark.parametrize("removed", ["tf.mul(a, b)", "tf.pack([a, b])", "tf.scalar_summary('loss', a)",
                                     "tf.train.SummaryWriter('logs')", "tf.concat(1, [a, b])",
                                     "tf.concat(-1, [a, b])", "tf.split(0, 2, a)"])
def test_code_for_tf_0_x_is_info_without_a_fix(removed):
    from tflint_effective.engine.lint import lint_source

    source = f"import tensorflow as tf\nz = {removed}\nm = tf.reduce_mean(x, keep_dims=True)\n"
    assert [(d.line, d.severity, d.message) for d in lint_source(source, select=["TFE102"])] == [
        (3, "info", "`keep_dims=` is deprecated (`keepdims=`), but this module also makes calls TF 1.0 "
                    "removed or reordered: written for TF 0.x, which may lack `keepdims=`")]
    assert fixed(source, ["TFE102"]) == source


@pytest.mark.parametrize("tf_1", ["tf.multiply(tf.stack([a]), b)", "tf.concat([a, b], 1)", "tf.split(a, 2, 0)",
                                  "tf.concat(values=[a], axis=0)", "tf.split(a, 2)"])
def test_tf_1_names_and_argument_orders_keep_the_warning_and_the_fix(tf_1):
    source = f"import tensorflow as tf\nz = {tf_1}\nm = tf.reduce_mean(x, keep_dims=True)\n"
    assert findings(source, ["TFE102"]) == [(3, 23, "TFE102")]
    assert fixed(source, ["TFE102"]) == source.replace("keep_dims", "keepdims")


FALLBACK = "but this is the fallback of a `try` that passes `keepdims=`: kept for TensorFlow versions without it"
PROBE = ("but this `try` falls back to `keepdims=` when TensorFlow rejects it: kept for TensorFlow versions without "
         "`keepdims=`")
VERSION = ("but this branch of a test of TensorFlow's version passes `keepdims=` in the other: kept for TensorFlow "
           "versions without it")


@pytest.mark.parametrize("source, line, col, message", [
    # the new keyword tried first, the old one in the handler: a fallback for old TensorFlow
    ("try:\n    m = tf.reduce_sum(x, axis=1, keepdims=True)\n"
     "except TypeError:\n    m = tf.reduce_sum(x, axis=1, keep_dims=True)\n", 5, 33, FALLBACK),
    # the old keyword tried first, the new one in a handler of TF2's TypeError
    ("try:\n    m = tf.reduce_sum(x, keep_dims=True)\n"
     "except (ValueError, TypeError):\n    m = tf.reduce_sum(x, keepdims=True)\n", 3, 25, PROBE),
    # one spelling per branch of a test of TensorFlow's version
    ('if tf.__version__.startswith("2."):\n    m = tf.reduce_sum(x, keepdims=True)\n'
     "else:\n    m = tf.reduce_sum(x, keep_dims=True)\n", 5, 25, VERSION),
    ("if LooseVersion(tf.VERSION) >= LooseVersion('1.5'):\n    m = tf.reduce_sum(x, keepdims=True)\n"
     "else:\n    m = tf.reduce_sum(x, keep_dims=True)\n", 5, 25, VERSION),
])
def test_code_that_tries_both_spellings_is_info_without_a_fix(source, line, col, message):
    from tflint_effective.engine.lint import lint_source

    source = "import tensorflow as tf\n" + source
    assert [(d.line, d.col, d.severity, d.message) for d in lint_source(source, select=["TFE102"])] == [
        (line, col, "info", "`keep_dims=` is deprecated (`keepdims=`), " + message)]
    assert fixed(source, ["TFE102"]) == source


@pytest.mark.parametrize("source", [
    "if tf.__version__ < '1.5':\n    m = tf.reduce_sum(x, keep_dims=True)\n",  # no other branch to compare
    "if flag:\n    m = tf.reduce_sum(x, keep_dims=True)\nelse:\n    m = tf.reduce_sum(x, keepdims=True)\n",
])
def test_a_branch_without_a_version_test_and_a_new_keyword_beside_it_keeps_the_warning(source):
    assert findings("import tensorflow as tf\n" + source, ["TFE102"]) == [(3, 26, "TFE102")]


@pytest.mark.parametrize("handler", [
    "except ValueError:\n    m = tf.reduce_sum(x, keepdims=True)\n",  # not what TF2 raises
    "except TypeError:\n    m = tf.reduce_sum(x)\n",  # no new keyword to fall back to
    "finally:\n    m = tf.reduce_sum(x, keepdims=True)\n",
])
def test_a_try_that_does_not_fall_back_to_the_new_keyword_keeps_the_warning(handler):
    source = "import tensorflow as tf\ntry:\n    m = tf.reduce_sum(x, keep_dims=True)\n" + handler
    assert findings(source, ["TFE102"]) == [(3, 26, "TFE102")]


def test_a_handler_whose_try_uses_the_old_keyword_too_keeps_the_warning():
    source = ("import tensorflow as tf\ntry:\n    m = tf.reduce_sum(x, keep_dims=True)\n"
              "except TypeError:\n    m = tf.reduce_sum(x, keep_dims=True)\n")
    assert findings(source, ["TFE102"]) == [(3, 26, "TFE102"), (5, 26, "TFE102")]


@pytest.mark.parametrize("call, column", [("tf.nn.moments(x, [0], keep_dims=True)", 29),
                                          ("tf.nn.weighted_moments(x, [0], w, keep_dims=True)", 41)])
def test_moments_keep_dims_is_reported_without_a_fix(call, column):
    from tflint_effective.engine.lint import lint_source

    source = f"import tensorflow as tf\nm, v = {call}\n"
    assert [(d.line, d.col, d.severity, d.message) for d in lint_source(source, select=["TFE102"])] == [
        (2, column, "warning", "`keep_dims=` is deprecated (a TypeError in TF2); use `keepdims=` "
                               "(older TF 1.x releases lack it here: check yours)")]
    assert fixed(source, ["TFE102"]) == source


@pytest.mark.parametrize("tf1_call", ["sess = tf.Session()\n", "x = tf.placeholder(tf.float32)\n",
                                      "with tf.variable_scope('bn'):\n    pass\n", "tf.enable_eager_execution()\n",
                                      "y = tf.squared_difference(a, b)\n",
                                      "y = tf.nn.conv2d(x, filter=w, strides=[1, 1, 1, 1], padding='SAME')\n"])
def test_moments_keep_dims_in_tf1_code_is_info(tf1_call):
    from tflint_effective.engine.lint import lint_source

    source = f"import tensorflow as tf\ndef norm(x):\n    return tf.nn.moments(x, [0], keep_dims=True)\n{tf1_call}"
    assert [(d.line, d.col, d.severity, d.message) for d in lint_source(source, select=["TFE102"])] == [
        (3, 33, "info", "`keep_dims=` is TF 1.x's own keyword for this function (its `keepdims=` alias came "
                        "late and nothing deprecates `keep_dims=` there); only the TF2 API rejects it, like this "
                        "module's other TF 1.x calls")]
    assert fixed(source, ["TFE102"]) == source


@pytest.mark.parametrize("tf1_call", ["sess = tf.Session()\n", "x = tf.placeholder(tf.float32)\n"])
def test_old_keywords_in_tf1_code_are_info_and_still_fixed(tf1_call):
    from tflint_effective.engine.lint import lint_source

    source = f"import tensorflow as tf\n{tf1_call}y = tf.reduce_sum(x, reduction_indices=[1], keep_dims=True)\n"
    line = source.count("\n")
    assert [(d.line, d.col, d.severity, d.message) for d in lint_source(source, select=["TFE102"])] == [
        (line, 21, "info", "`reduction_indices=` is TF 1.x's old name for `axis=`, which it accepts without a "
                           "warning; only the TF2 API rejects it, like this module's other TF 1.x calls"),
        (line, 44, "info", "`keep_dims=` is deprecated, removed in TF2; use `keepdims=`: this module is written for "
                           "TF 1.x, where it still works, like its other TF 1.x calls")]
    assert fixed(source, ["TFE102"]) == source.replace("reduction_indices", "axis").replace("keep_dims", "keepdims")


def test_keep_dims_beside_axis_in_tf1_code_is_info():
    from tflint_effective.engine.lint import lint_source

    source = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\ny = tf.reduce_sum(x, axis=1, keep_dims=True)\n"
    assert [(d.line, d.col, d.severity) for d in lint_source(source, select=["TFE102"])] == [(3, 29, "info")]


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\ny = tf.reduce_sum(x, reduction_indices=[1])\n",  # nothing says TF 1.x
    "import tensorflow as tf\ny = tf.reduce_sum(x, reduction_indices=[1])\nz = tf.nn.softmax(y, axis=1)\n",
    "import tensorflow as tf\ny = tf.reduce_sum(x, reduction_indices=[1])\nz = tf.compat.v1.nn.softmax(y, dim=1)\n",
    # the keywords other rules report are no evidence against their findings
    "import tensorflow as tf\ny = tf.reduce_sum(x, reduction_indices=[1])\nz = tf.nn.dropout(y, keep_prob=1)\n",
    "import tensorflow as tf\nx = tf.placeholder(tf.float32)\ny = tf.reduce_sum(x, axis=1, reduction_indices=1)\n",
    "import tensorflow.compat.v1 as tf1\nimport tensorflow as tf\nx = tf1.placeholder(tf.float32)\n"
    "y = tf.reduce_sum(x, keep_dims=True)\n",  # TF2 code that uses a v1 name: not written for TF 1.x
])
def test_old_keywords_stay_warnings_without_tf1_code(source):
    from tflint_effective.engine.lint import lint_source

    assert [d.severity for d in lint_source(source, select=["TFE102"])] == ["warning"]


def test_tf1_deprecates_keep_dims_but_only_looks_up_reduction_indices(tf):
    # the deprecation decorator lists the arguments it warns about: keep_dims alone
    notice = tf.compat.v1.reduce_sum.__doc__.split("SOME ARGUMENTS ARE DEPRECATED: ")[1].split("`")[1]
    assert notice == "(keep_dims)"
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert tf.compat.v1.reduce_sum(x, reduction_indices=[1]).numpy().tolist() == [3.0, 7.0]
