import numpy as np
import pytest

from tfe_testing import FIXTURES, dedent, findings, fixed, load_module
from tflint_effective.engine.lint import lint_source

FOLDER = FIXTURES / "tensor_equality_in_graph"
TFE302 = ["TFE302"]
V1 = "import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.int32, [None])\n"
TF = "import tensorflow as tf\n"


def lint(source, select=TFE302):
    return findings(source, select=select)


@pytest.mark.parametrize("source, expected", [
    # a TensorFlow op takes the comparison as a boolean tensor: unsafe fix
    (V1 + "y = tf.where(x == 0, x, -x)\n", V1 + "y = tf.where(tf.equal(x, 0), x, -x)\n"),
    (V1 + "w = tf.cast(x != 0, tf.float32)\n", V1 + "w = tf.cast(tf.not_equal(x, 0), tf.float32)\n"),
    (V1 + "w = tf.to_float(0 != x)\n", V1 + "w = tf.to_float(tf.not_equal(0, x))\n"),
    (V1 + "y = tf.boolean_mask(x, mask=(x != -1))\n", V1 + "y = tf.boolean_mask(x, mask=tf.not_equal(x, -1))\n"),
    (V1 + "y = tf.cond(tf.reduce_sum(x, axis=None) == 0, f, g)\n",
     V1 + "y = tf.cond(tf.equal(tf.reduce_sum(x, axis=None), 0), f, g)\n"),
    (V1 + "y = tf.where((x == 1) | ~(x == 2), x, x)\n", V1 + "y = tf.where(tf.equal(x, 1) | ~tf.equal(x, 2), x, x)\n"),
    (V1 + "y = tf.logical_and(x == 1, tf.math.reduce_any(x == 2))\n",
     V1 + "y = tf.logical_and(tf.equal(x, 1), tf.math.reduce_any(tf.equal(x, 2)))\n"),
    # the user's own alias and API
    ("import tensorflow as tf\nwith tf.Graph().as_default():\n    x = tf.zeros([3])\n    y = tf.where(x == 0.5, x, x)\n",
     "import tensorflow as tf\nwith tf.Graph().as_default():\n    x = tf.zeros([3])\n"
     "    y = tf.where(tf.equal(x, 0.5), x, x)\n"),
    ("import tensorflow.compat.v1 as tf1\nsess = tf1.Session()\nx = tf1.ones([2])\ny = tf1.cast(x == 1, 'int32')\n",
     "import tensorflow.compat.v1 as tf1\nsess = tf1.Session()\nx = tf1.ones([2])\n"
     "y = tf1.cast(tf1.equal(x, 1), 'int32')\n"),
])
def test_unsafe_fix_where_an_op_consumes_the_result(source, expected):
    assert len(lint(source)) == source.count("==") + source.count("!=")
    assert fixed(source, TFE302) == source  # only with --unsafe-fixes
    assert fixed(source, TFE302, unsafe_fixes=True) == expected


@pytest.mark.parametrize("source, expected, advice", [
    (V1 + "if tf.rank(x) == 1:\n    pass\n", (3, 4), "branch with `tf.cond`"),
    (V1 + "while x != 0:\n    pass\n", (3, 7), "branch with `tf.cond`"),
    (V1 + "assert x != 0\n", (3, 8), "branch with `tf.cond`"),
    (V1 + "y = x if x == 0 else -x\n", (3, 10), "branch with `tf.cond`"),
    (V1 + "ok = flag and x == 0\n", (3, 15), "branch with `tf.cond`"),
    (V1 + "ok = not x == 0\n", (3, 10), "branch with `tf.cond`"),
    (V1 + "y = (x == 0) * 2.0\n", (3, 6), "`tf.cast(tf.equal(...), dtype)`"),
    (V1 + "mask = x != 0\n", (3, 8), "use `tf.not_equal`"),
    (V1 + "tf.add_to_collection('zero', x == 0)\n", (3, 30), "use `tf.equal`"),
])
def test_display_only_elsewhere(source, expected, advice):
    assert lint(source) == [(*expected, "TFE302")]
    [diagnostic] = lint_source(source, select=TFE302)
    assert diagnostic.fix is None and advice in diagnostic.message
    assert "compares identities in TF1 graph mode" in diagnostic.message


@pytest.mark.parametrize("other", [
    "'<pad>'", "True", "-1.5", "np.float32(0)", "np.inf", "float('nan')", "len(shape)", "PAD", "N", "N + 1",
])
def test_python_values(other):
    source = V1 + "import numpy as np\nPAD = '<pad>'\nN = 3\ny = tf.where(x == {}, x, x)\n".format(other)
    assert [code for *_, code in lint(source)] == ["TFE302"]


@pytest.mark.parametrize("source", [
    # tensor against tensor, variables (identity on purpose), None, unknown values
    V1 + "y = tf.where(x == tf.zeros_like(x), x, x)\n",
    V1 + "v = tf.Variable(0)\nif v != 0:\n    pass\n",
    V1 + "v = tf.get_variable('v', [])\nkept = [w for w in tf.trainable_variables() if w != v]\n",
    V1 + "if x == None:\n    pass\n",
    V1 + "if x is None or mode == 'train':\n    pass\n",
    V1 + "def f(t):\n    return t == 0\n",
    V1 + "y = tf.where(x == [0, 1], x, x)\n",
    V1 + "y = 0 == x == 1\n",
    V1 + "static = x.shape[0] == 3\nrank = x.shape.ndims == 1\n",
    V1 + "y = tf.where(tf.equal(x, 0), x, x)\n",
])
def test_near_misses(source):
    assert lint(source) == []


@pytest.mark.parametrize("source", [
    # E and F: `==` is element-wise
    TF + "x = tf.constant([0, 1])\ny = tf.where(x == 0, x, x)\n",
    V1 + "@tf.function\ndef f(y):\n    z = tf.ones([2])\n    return tf.where(z == 0, z, z)\n",
    # graph code in a module that also shows TF2 evidence: a helper may be traced by tf.function
    V1 + "def f():\n    with tf.GradientTape() as tape:\n        pass\nz = tf.where(x == 0, x, x)\n",
    # tensorflow.compat.v1 alone does not show that the module builds a graph
    "import tensorflow.compat.v1 as tf\ndef f():\n    z = tf.ones([2])\n    return tf.where(z == 0, z, z)\n",
])
def test_off_where_equality_is_element_wise_or_the_mode_is_unsure(source):
    assert lint(source) == []


def test_error_in_graph_mode_and_one_finding_per_node_with_tfe301():
    source = V1 + "if tf.reduce_sum(x, axis=None) == 0:\n    pass\n"
    diagnostics = lint_source(source, select=["TFE301", "TFE302"])
    assert [(d.code, d.severity) for d in diagnostics] == [("TFE302", "error")]
    in_function = TF + "@tf.function(autograph=False)\ndef f():\n    if tf.ones([]) == 0:\n        pass\n"
    assert [d.code for d in lint_source(in_function, select=["TFE301", "TFE302"])] == ["TFE301"]


def test_the_message_names_the_comparison_and_its_constant_value():
    [diagnostic] = lint_source(V1 + "w = tf.cast(x != 0, tf.float32)\n", select=TFE302)
    assert "`x != 0` is the Python bool True" in diagnostic.message
    assert diagnostic.fix_safety == "unsafe"


def test_equality_is_identity_in_a_graph_and_element_wise_eagerly(tf):
    with tf.Graph().as_default():
        p = tf.compat.v1.placeholder(tf.int32, [None])
        assert (p == 0) is False and (p != 0) is True
        assert (tf.rank(p) == 1) is False
    assert (tf.constant([0, 1]) == 0).numpy().tolist() == [True, False]
    assert tf.function(lambda t: t == 0)(tf.constant([0, 1])).numpy().tolist() == [True, False]


def test_fixture_masks_built_on_a_constant_in_graph_mode(tf):
    bad = load_module(FOLDER / "bad.py")
    good = load_module(FOLDER / "good.py")
    wrong, right = bad.main(), good.main()
    assert np.ndim(wrong["weights"]) == 0 and wrong["weights"] == 1.0  # tf.cast(True)
    assert wrong["replaced"].tolist() == [3, 0, 5, 0]  # tf.where(False, ...)
    assert right["weights"].tolist() == [1.0, 0.0, 1.0, 0.0]
    assert right["replaced"].tolist() == [3, -1, 5, -1]
    assert bad.main(matrix=[1.0, 2.0])["matrix"].shape == (2,)  # the branch is never taken
    assert good.main(matrix=[1.0, 2.0])["matrix"].tolist() == [[1.0, 2.0]]
    assert wrong["matrix"].tolist() == right["matrix"].tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_unsafe_fix_of_the_fixture_leaves_only_the_branch():
    source = (FOLDER / "bad.py").read_text()
    result = fixed(source, TFE302, unsafe_fixes=True)
    assert "tf.cast(tf.not_equal(labels, PAD), tf.float32)" in result
    assert "tf.where(tf.equal(labels, PAD), " in result
    assert [line for line, _, _ in lint(result)] == [24]
    assert dedent(result).count("if tf.rank(x) == 1:") == 1


def test_a_parameter_with_a_python_default_may_hold_it():
    documented = V1 + dedent('''\
        def regression(incoming, placeholder='default'):
            """Args:
                incoming: `Tensor`. Input.
                placeholder: `Tensor`. Targets; if 'default', one is created.
            """
            if placeholder == 'default':
                placeholder = tf.placeholder(tf.float32, [None])
            return tf.where(incoming == 0, incoming, incoming)
        ''')
    assert lint(documented) == [(10, 21, "TFE302")]


def test_a_documented_tensor_given_loop_counters_may_be_a_python_int():
    source = V1 + dedent('''\
        def schedule(step, period):
            """Args:
                step: A `Tensor`, the step within the sequence.
                period: A `Tensor`, the length of a period.
            """
            if step == 0:
                return tf.zeros([])
            return tf.where(period == 0, x, x)

        def unroll(n):
            return [schedule(t, x) for t in range(n)] + [schedule(k, x) for k in range(n)]

        for k in range(4):
            schedule(k, x)
        ''')
    assert lint(source) == [(10, 21, "TFE302")]  # ``period`` is given only tensors
