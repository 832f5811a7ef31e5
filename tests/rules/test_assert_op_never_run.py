import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import findings
from tflint_effective.engine.lint import lint_source

FOLDER = FIXTURES / "assert_op_never_run"
V1 = "import tensorflow.compat.v1 as tf\n"
TF = "import tensorflow as tf\n"


def lint(source):
    return findings(source, select=["TFE311"])


@pytest.mark.parametrize("source, expected", [
    # a discarded result
    (V1 + "tf.assert_equal(x, y)\ntf.debugging.Assert(ok, [x])\ntf.print(x)\n",
     [(2, 1, "TFE311"), (3, 1, "TFE311"), (4, 1, "TFE311")]),
    (V1 + "tf.Print(x, [x])\ntf.check_numerics(x, 'x')\n", [(2, 1, "TFE311"), (3, 1, "TFE311")]),
    (V1 + "from tensorflow.compat.v1 import debugging as dbg\ndbg.assert_positive(x)\n", [(3, 1, "TFE311")]),
    (V1 + "from tensorflow.compat.v1.debugging import assert_less as less\nless(x, 1.0)\n", [(3, 1, "TFE311")]),
    (TF + "with tf.Graph().as_default():\n    tf.debugging.assert_positive(x)\n", [(3, 5, "TFE311")]),
    (TF + "sess = tf.compat.v1.Session()\ntf.compat.v1.assert_positive(x)\n", [(3, 1, "TFE311")]),
    # a name nobody reads afterwards
    (V1 + "def f(x):\n    check = tf.assert_positive(x)\n    return x * 2\n", [(3, 13, "TFE311")]),
    (V1 + "check = tf.assert_positive(x)\ncheck = tf.assert_negative(x)\n", [(2, 9, "TFE311"), (3, 9, "TFE311")]),
    (V1 + "x_print = tf.Print(x, [x])\ny = x + 1\n", [(2, 11, "TFE311")]),
    (V1 + "x = tf.Print(x, [x])\n", [(2, 5, "TFE311")]),
    (V1 + "def f(x):\n    for i in range(3):\n        check = tf.assert_positive(x[i])\n    return x\n",
     [(4, 17, "TFE311")]),
    # a control_dependencies block that creates no op
    (V1 + "c = tf.assert_positive(x)\nwith tf.control_dependencies([c]):\n    y = x\n", [(3, 31, "TFE311")]),
    (V1 + "with tf.control_dependencies([tf.assert_positive(x), other]):\n    pass\n", [(2, 31, "TFE311")]),
    (V1 + "def f(x):\n    with tf.control_dependencies([tf.Print(x, [x])]):\n        return x\n", [(3, 35, "TFE311")]),
    # the same check written again, but another call, or in another block
    (V1 + "tf.Print(t, [t])\nv = tf.Print(t, [t, 1])\nsess.run(v)\n", [(2, 1, "TFE311")]),
    (V1 + "def f(t):\n    tf.Print(t, [t])\n    return t\nv = tf.Print(t, [t])\nsess.run(v)\n", [(3, 5, "TFE311")]),
])
def test_findings(source, expected):
    assert lint(source) == expected


@pytest.mark.parametrize("source", [
    V1 + "c = tf.assert_positive(x)\nwith tf.control_dependencies([c]):\n    y = tf.identity(x)\n",
    V1 + "c = tf.assert_positive(x)\nop = tf.group(c, train_op)\n",
    V1 + "c = tf.assert_positive(x)\nsess.run([c, y])\n",
    V1 + "def f(x):\n    c = tf.assert_positive(x)\n    return c\n",
    V1 + "x_print = tf.Print(x, [x])\ny = x_print + 1\n",
    V1 + "x = tf.Print(x, [x])\ny = x + 1\n",
    V1 + "with tf.control_dependencies([tf.assert_positive(x)]):\n    y = x * 2\n",
    V1 + "with tf.control_dependencies(checks):\n    y = x\n",
    # the mistake beside its cure, as TensorFlow's guide shows it: the same call written again, its result used
    V1 + "t = tf.constant([1, 2])\ntf.Print(t, [t])  # does nothing\nv = tf.Print(t, [t])\nsess.run(v + 1)\n",
    V1 + "def f(x):\n    tf.assert_positive(x)\n    with tf.control_dependencies([tf.assert_positive(x)]):\n"
         "        return tf.identity(x)\n",
    # a function defined before may read it later; a loop reads it on the next iteration
    V1 + "def run():\n    return sess.run(check)\ncheck = tf.assert_positive(x)\nrun()\n",
    V1 + "c = None\nfor i in range(2):\n    if c is not None:\n        sess.run(c)\n    c = tf.assert_positive(x)\n",
    # stored elsewhere: counted as used (blind spot)
    V1 + "self.check = tf.assert_positive(x)\nchecks.append(tf.assert_positive(x))\n",
    V1 + "a, b = tf.assert_positive(x), tf.assert_negative(y)\n",
    # not checks, or not TensorFlow
    V1 + "tf.debugging.is_numeric_tensor(x)\ntf.identity(x)\n",
    "import numpy as np\nnp.testing.assert_equal(a, b)\n",
    V1 + "def assert_positive(x):\n    pass\nassert_positive(x)\n",
])
def test_near_misses(source):
    assert lint(source) == []


@pytest.mark.parametrize("source", [
    # E: eager ops run at once
    TF + "tf.debugging.assert_positive(x)\nc = tf.debugging.assert_positive(x)\ntf.print(x)\n",
    TF + "import tensorflow.compat.v1 as tf1\ntf1.Print(x, [x])\n",
    "from tensorflow.compat.v1 import debugging as dbg\ndbg.assert_positive(x)\n",
    # F and F0: automatic control dependencies run stateful ops
    V1 + "@tf.function\ndef f(x):\n    tf.debugging.assert_positive(x)\n    return x\n",
    V1 + "@tf.function(autograph=False)\ndef f(x):\n    c = tf.assert_positive(x)\n    return x\n",
    V1 + "class M(tf.keras.Model):\n    def call(self, x):\n        tf.print(x)\n        return x\n",
])
def test_off_where_the_op_runs_anyway(source):
    assert lint(source) == []


def test_error_in_graph_mode():
    diagnostics = lint_source(V1 + "tf.assert_positive(x)\nc = tf.assert_positive(x)\n", select=["TFE311"])
    assert [d.severity for d in diagnostics] == ["error", "error"]


def test_the_mode_is_where_the_check_was_created_not_where_it_is_reported():
    source = TF + "def f(x):\n    with tf.Graph().as_default():\n        c = tf.debugging.assert_positive(x)\n" \
                  "    return x\n"
    assert [(d.line, d.severity) for d in lint_source(source, select=["TFE311"])] == [(4, "error")]


def test_unwired_checks_are_pruned_and_return_wrong_data_in_graph_mode(tf):
    bad = load_module(FOLDER / "bad.py")
    good = load_module(FOLDER / "good.py")
    negative = (2.0, -1.0, 3.0)
    assert bad.main(negative)["weights"].tolist() == [0.5, -0.25, 0.75]  # no check ran
    with pytest.raises(tf.errors.InvalidArgumentError, match="weights must be positive"):
        good.main(negative)
    assert good.main()["weights"].tolist() == bad.main()["weights"].tolist() == [0.5, 0.25, 0.25]


def test_tf_function_runs_a_bare_assert_so_the_rule_is_off_there(tf):
    bad = load_module(FOLDER / "bad.py")
    assert bad.traced(tf.constant([1.0])).numpy().tolist() == [2.0]
    with pytest.raises(tf.errors.InvalidArgumentError):
        bad.traced(tf.constant([-1.0]))


@pytest.mark.parametrize("source, expected", [
    # blocks of Python statements only: numbers, tuples, annotations, del/global, += on a number
    (V1 + "c = tf.assert_positive(x)\nwith tf.control_dependencies([c]):\n    n = 0\n", [(3, 31, "TFE311")]),
    (V1 + "c = tf.assert_positive(x)\nwith tf.control_dependencies([c]):\n    a, b = x, -1.5\n",
     [(3, 31, "TFE311")]),
    (V1 + "c = tf.assert_positive(x)\nwith tf.control_dependencies([c]):\n    y: int = 3\n    del a\n",
     [(3, 31, "TFE311")]),
    (V1 + "step = 0\nc = tf.assert_positive(x)\nwith tf.control_dependencies([c]):\n    step += 1\n",
     [(4, 31, "TFE311")]),
    (V1 + "with tf.name_scope('s'), tf.control_dependencies([tf.assert_non_negative(x)]):\n    pass\n",
     [(2, 51, "TFE311")]),
    # the dependency list through a name bound once in the same scope
    (V1 + "def f(x):\n    deps = [tf.assert_positive(x), tf.assert_non_negative(x)]\n"
          "    with tf.control_dependencies(deps):\n        pass\n    return x\n", [(4, 34, "TFE311")]),
])
def test_empty_control_dependencies_blocks(source, expected):
    assert lint(source) == expected


@pytest.mark.parametrize("source", [
    # a block that calls any function is not empty; += on what may be a tensor may create an op
    V1 + "c = tf.assert_positive(x)\nwith tf.control_dependencies([c]):\n    print('checked')\n",
    V1 + "c = tf.assert_positive(x)\nwith tf.control_dependencies([c]):\n    total += 1\n",
    V1 + "c = tf.assert_positive(x)\nwith tf.control_dependencies([c]):\n    y = x + 1\n",
    V1 + "c = tf.assert_positive(x)\nwith tf.control_dependencies([c]):\n    y = x[0]\n",
    V1 + "c = tf.assert_positive(x)\nwith tf.control_dependencies([c]):\n    if flag:\n        y = x\n",
    V1 + "deps = [tf.assert_positive(x)]\ndeps = deps + [other]\nwith tf.control_dependencies(deps):\n    pass\n",
    V1 + "deps = [other]\nwith tf.control_dependencies(deps):\n    pass\n",
    # off outside graph mode
    TF + "c = tf.debugging.assert_positive(x)\nwith tf.control_dependencies([c]):\n    n = 0\n",
    V1 + "@tf.function\ndef f(x):\n    with tf.control_dependencies([tf.assert_positive(x)]):\n        pass\n"
         "    return x\n",
])
def test_blocks_that_may_create_ops_or_run_outside_graph_mode(source):
    assert lint(source) == []


def test_checks_guarding_python_statements_only_never_run(tf):
    bad = load_module(FOLDER / "bad.py")
    good = load_module(FOLDER / "good.py")
    large = (2.0, 1.0, 500.0)
    assert bad.main(large)["clipped"].tolist() == [2.0, 1.0, 100.0]  # no check ran
    with pytest.raises(tf.errors.InvalidArgumentError, match="weights must be below 100"):
        good.main(large)
    assert good.main()["clipped"].tolist() == bad.main()["clipped"].tolist() == [2.0, 1.0, 1.0]


def test_static_checks_need_no_wiring():
    source = ("import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.float32, [None])\n"
              "tf.assert_type(x, tf.float32)\ntf.assert_rank(x, 1)\ntf.debugging.assert_scalar(x)\n"
              "tf.assert_positive(x)\n")
    assert findings(source, select=["TFE311"]) == [(6, 1, "TFE311")]


def test_assert_variables_initialized_needs_no_wiring():
    source = ("import tensorflow.compat.v1 as tf\nv = tf.get_variable('v', [2])\n"
              "tf.assert_variables_initialized([v])\ntf.assert_positive(v)\ny = v * 2.0\n")
    assert findings(source, select=["TFE311"]) == [(4, 1, "TFE311")]


def test_reading_an_uninitialised_variable_raises_without_the_check(tf):
    with tf.Graph().as_default():
        v = tf.compat.v1.get_variable("v", [2])
        tf.compat.v1.assert_variables_initialized([v])  # unwired: pruned
        with tf.compat.v1.Session() as sess, pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(v * 2.0)


def test_comparisons_of_static_shapes_and_numbers_need_no_wiring():
    source = ("import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.float32, [2, 3])\nn = x.get_shape()[0]\n"
              "tf.assert_equal(x.get_shape(), y.get_shape())\ntf.assert_equal(x.shape[1].value, 3)\n"
              "tf.assert_less(n, 4)\ntf.assert_equal(x.get_shape().as_list(), [2, 3])\n"
              "tf.assert_equal(tf.shape(x)[0], 2)\ntf.assert_equal(x.shape[1], y)\n"
              "tf.assert_equal(x.shape[0], 2, [x], message='rows')\ntf.assert_positive(n, [n])\n"
              "m = m[0]\ntf.assert_positive(m)\n")
    assert findings(source, select=["TFE311"]) == [(8, 1, "TFE311"), (9, 1, "TFE311"), (13, 1, "TFE311")]


def test_a_comparison_with_an_estimator_mode_key_needs_no_wiring():
    source = ("import tensorflow.compat.v1 as tf\nfrom tensorflow.estimator import ModeKeys\n"
              "def model_fn(features, labels, mode):\n    tf.assert_equal(mode, tf.estimator.ModeKeys.TRAIN)\n"
              "    tf.assert_none_equal(ModeKeys.PREDICT, mode)\n    tf.assert_equal(mode, modes.TRAIN)\n"
              "    tf.assert_positive(features, ModeKeys.TRAIN)\n")
    assert findings(source, select=["TFE311"]) == [(6, 5, "TFE311"), (7, 5, "TFE311")]


def test_tensorflow_compares_static_values_while_building_the_graph(tf):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3])
        tf.compat.v1.assert_equal(x.get_shape()[1], 3)  # holds: nothing raised
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.compat.v1.assert_equal(x.get_shape()[0], x.get_shape()[1])
        tf.compat.v1.assert_equal("train", "train")  # a mode and a mode key: Python strings
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.compat.v1.assert_equal("eval", "train")
