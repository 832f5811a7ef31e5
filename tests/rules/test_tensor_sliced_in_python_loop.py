import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import assert_same_values, dedent, findings
from tflint_effective.engine.lint import lint_source

HEADER = "import tensorflow as tf\nx = tf.random.normal([500, 4])\nz = tf.zeros([4])\n"

CASES = [
    ("for i in range(500):\n    z += x[i]\n", [(5, 10, "TFE201")]),
    ("for i in range(500):\n    z += x[:, i] + x[i:i + 2, 0]\n", [(5, 20, "TFE201")]),  # rows only
    ("for i in range(500):\n    z += x[None, i] + tf.slice(x, [i, 0], [1, 4])\n",
     [(5, 10, "TFE201"), (5, 23, "TFE201")]),
    ("for i in range(500):\n    z += tf.gather(x, i, axis=0) + tf.gather_nd(x, [[i]])\n",
     [(5, 10, "TFE201"), (5, 36, "TFE201")]),
    ("for i in range(500):\n    z += x[i][0]\n", [(5, 10, "TFE201")]),
    ("for i in range(500):\n    z += x[0][i]\n", [(5, 10, "TFE201")]),
    ("for i in range(500):\n    z += tf.gather(params=x, indices=i)\n", [(5, 10, "TFE201")]),
    ("for i in range(500):\n    z += tf.strided_slice(x, [i], [i + 1])\n", [(5, 10, "TFE201")]),
    ("for i in range(len(x)):\n    z += x[i]\n", [(5, 10, "TFE201")]),
    ("n = x.shape[0]\nfor i in range(n):\n    z += x[i]\n", [(6, 10, "TFE201")]),
    ("ys = tf.stack([x[i] for i in range(500)])\n", [(4, 16, "TFE201")]),
    ("ys = [y for i in range(500) for y in tf.unstack(x[i])]\n", [(4, 49, "TFE201")]),
    ("for i in range(500):\n    for j in range(4):\n        z += x[i, j]\n", [(6, 14, "TFE201")]),
    # near misses
    ("for i in range(500):\n    z += x[0]\n", []),
    ("for i in range(500):\n    z += x.shape[i] + tf.shape(x)[i]\n", []),
    ("dims = tf.shape(x)[1:]\nfor i, k in enumerate(ks):\n    z += dims[i] * k\n", []),
    ("for i in range(4):\n    z += x[i]\n", []),
    ("parts = tf.split(x, 500)\nfor i in range(500):\n    z += parts[i]\n", []),
    ("import numpy as np\nv = np.ones([500, 4])\nfor i in range(500):\n    z += v[i]\n", []),
    ("v = [1.0] * 500\nfor i in range(500):\n    z += v[i]\n", []),
    ("for i in range(500):\n    def row(i=0):\n        return x[i]\n", []),
    ("ys = [x[i] for i in range(4)]\n", []),
    ("ys = [v[i] for i in range(500) for v in (x,)]\n", []),
    ("for i in range(500):\n    z += tf.gather(x, 0)\n", []),
    ("def range(n):\n    return [0]\nfor i in range(500):\n    z += x[i]\n", []),  # not the builtin: count unknown
    # a literal sequence of at most four items is a handful of slices; in eager code, up to 16
    ("for k in [0, 2, 5]:\n    z += tf.slice(x, [k], [1])\n", []),
    ("for k in (0, 1, 2, 3, 4):\n    z += x[k]\n", []),
    ("for k in (" + "1, " * 17 + "):\n    z += x[k]\n", [(5, 10, "TFE201")]),
    ("for i in range(16):\n    z += x[i]\n", []),
    ("for i in range(17):\n    z += x[i]\n", [(5, 10, "TFE201")]),
    ("n = 16\nfor i in range(1, n):\n    z += x[i]\n", []),
    ("for i in range(0, 500, 40):\n    z += x[i]\n", []),  # 13 iterations
    ("n = 64\nfor i in range(n):\n    z += x[i]\n", [(6, 10, "TFE201")]),
    # a count that gives the first dimension of the shape the tensor is built with
    ("def f(n):\n    y = tf.zeros([n, 4])\n    return tf.stack([y[i] for i in range(n)])\n", [(6, 22, "TFE201")]),
    ("def f(m, n):\n    y = tf.reshape(x, [m, n])\n    return tf.stack([y[i] for i in range(n)])\n", []),
    # ... not a count that pads the rows: shifted windows over a padded vector
    ("def windows(v, k):\n    padded = tf.concat([v, tf.fill([k - 1], 0)], 0)\n"
     "    return [tf.slice(padded, [i], tf.shape(v)) for i in range(k)]\n", []),
    # eager code that hands the slice straight to Python: plotting, printing, test assertions
    ("import matplotlib.pyplot as plt\nfor i in range(500):\n    plt.imshow(x[i].numpy())\n", []),
    ("import matplotlib.pyplot as plt\nfor i in range(500):\n    plt.imshow(x[i])\n", []),
    ("import matplotlib.pyplot as plt\nfig = plt.figure()\nfor i in range(500):\n"
     "    ax = fig.add_subplot(25, 20, i + 1)\n    ax.matshow(x[i][:-1])\n", []),
    ("for i in range(500):\n    print(x[i][0])\n    v = float(tf.gather(x, i)[0])\n", []),
    ("for i in range(500):\n    self.assertTrue(x[i])\n", []),
    # ... but not a computation with it, nor a function that may compute
    ("for i in range(500):\n    print(x[i] * 2)\n", [(5, 11, "TFE201")]),
    ("for i in range(500):\n    show(x[i])\n", [(5, 10, "TFE201")]),
    ("for i in range(500):\n    model.fit(x[i])\n", [(5, 15, "TFE201")]),
    ("def print(t):\n    return t\nfor i in range(500):\n    z += print(x[i])\n", [(7, 16, "TFE201")]),
    ("for i in range(500):\n    z += tf.constant(x[i].numpy())\n", []),
    # a count of unknown origin (devices, dimensions, classes) may be small: not reported
    ("for k in [*ks]:\n    z += x[k]\n", []),
    ("for i, row in enumerate(rows):\n    z += x[i] * row\n", []),
    ("for g in range(num_gpus):\n    z += x[g * 8:(g + 1) * 8]\n", []),
    ("for k in range(x.shape[-1]):\n    z += x[:, k]\n", []),  # features, not rows
    # another axis than the first (features, channels, time steps, bits), whatever the count
    ("for k in range(500):\n    z += x[:, k] + x[..., k] + tf.gather(x, k, axis=1)\n", []),
    ("for k in range(500):\n    z += tf.slice(x, [0, k], [500, 1]) + tf.gather(x, k, batch_dims=1)\n", []),
    ("for k in range(500):\n    z += tf.gather(x, k, None, None)\n", []),  # 4th: axis in TF2, name in TF1
    ("n = 16\nbits = tf.reshape(x, [-1, n])\nz = sum([bits[:, k] * 2 ** k for k in range(n)])\n", []),
    ("c = tf.constant([[1.0, 2.0], [3.0, 4.0]])\nfor i in range(c.shape[0]):\n    z += c[i]\n", []),  # 2 rows
    # the sliced tensor is computed anew in each iteration (a name the loop binds)
    ("for i, batch in enumerate(batches):\n    y = tf.concat([x, batch], 0)\n    z += y[i]\n", []),
    ("for b in batches:\n    y = x * 2\n    z += y[:b.shape[0]]\n", []),
    ("for b in range(500):\n    z += tf.reshape(x * b, [-1, 4])[:, b]\n", []),
    # ... but the same tensor sliced by an inner loop is reported
    ("for i in range(500):\n    y = x * i\n    for j in range(500):\n        z += y[j]\n", [(7, 14, "TFE201")]),
]


@pytest.mark.parametrize("body, expected", CASES)
def test_findings(body, expected):
    assert findings(HEADER + body, select=["TFE201"]) == expected


def severities(source):
    return [(d.line, d.severity) for d in lint_source(dedent(source), select=["TFE201"])]


def test_loops_autograph_converts_are_reported_in_eager_code_only():
    eager = HEADER + "for i in tf.range(500):\n    z += x[i]\nfor i in range(tf.shape(x)[0]):\n    z += x[i]\n"
    assert severities(eager) == [(5, "warning"), (7, "warning")]
    compiled = ("import tensorflow as tf\n@tf.function\ndef f(x: tf.Tensor, n):\n"
                "    x = tf.random.normal([500, 4])\n    z = tf.zeros([4])\n"
                "    for i in tf.range(500):\n        z += x[i]\n"
                "    for i in range(n):\n        z += x[i]\n"
                "    for i in range(500):\n        z += x[i]\n"
                "    for i in range(len(x) - 1):\n        z += x[i]\n"
                "    return tf.stack([x[i] for i in range(n)])\n")
    assert severities(compiled) == [(11, "warning"), (13, "warning")]  # range(n): a count of unknown origin


def test_eager_only_exemptions_leave_graphs_reported():
    """A literal handful and slices handed to Python cost little in eager code; graphs unroll them
    (the printed slices, not gathered, at info)."""
    body = "for i in range(9):\n    z += x[i]\nfor i in range(500):\n    print(x[i])\n"
    assert severities(HEADER + body) == []
    v1 = "import tensorflow.compat.v1 as tf\nx = tf.random_normal([500, 4])\nz = tf.zeros([4])\n"
    assert severities(v1 + body) == [(5, "warning"), (7, "info")]  # printed, not gathered: info
    compiled = ("import tensorflow as tf\n@tf.function\ndef f():\n    x = tf.random.normal([500, 4])\n"
                "    z = tf.zeros([4])\n    for i in range(9):\n        z += x[i]\n    for i in range(500):\n"
                "        print(x[i])\n    return z\n")
    assert severities(compiled) == [(7, "warning"), (9, "info")]


def test_a_helper_called_only_from_tf_function_is_traced():
    helper = ("import tensorflow as tf\ndef _rows():\n    x = tf.ones([500, 4])\n    z = tf.zeros([4])\n"
              "    for i in tf.range(500):\n        z += x[i]\n    return z\n")
    assert severities(helper + "@tf.function\ndef f():\n    return _rows()\n") == []
    assert severities(helper + "print(_rows())\n") == [(6, "warning")]  # eager
    assert severities(helper + "@tf.function\ndef f():\n    return _rows()\nprint(_rows())\n") == [(6, "warning")]


@pytest.mark.parametrize("header, gather", [
    ("import tensorflow.compat.v1 as tf\nx = tf.random_normal([500, 4])\n", "tf.gather"),  # TF1 graph
    ("from tensorflow import gather, random\nx = random.normal([500, 4])\n", "gather"),
])
def test_graph_mode_and_aliases(header, gather):
    source = header + f"for i in range(500):\n    y += {gather}(x, i) + x[i]\n"
    column = len(f"    y += {gather}(x, i) + ") + 1
    assert findings(source, select=["TFE201"]) == [(4, 10, "TFE201"), (4, column, "TFE201")]
    assert severities(source) == [(4, "warning"), (4, "warning")]


def test_bad_unrolls_one_slice_per_row_and_good_is_constant(tf):
    bad = load_module(FIXTURES / "tensor_sliced_in_python_loop" / "bad.py")
    good = load_module(FIXTURES / "tensor_sliced_in_python_loop" / "good.py")

    def graph_ops(module, rows):
        return len(tf.function(module.row_sum).get_concrete_function(rows).graph.get_operations())

    assert graph_ops(bad, 20) - graph_ops(bad, 10) >= 10 * 2  # a slice and an add per row
    assert graph_ops(good, 20) == graph_ops(good, 10)
    assert_same_values(bad.row_sum(20), good.row_sum(20))
    assert_same_values(bad.main(), good.main())
    assert bad.shown_rows(20)["shown"] == [float(4 * i) for i in range(20)]
    graph = bad.row_sum_through_helper.get_concrete_function().graph
    assert [op.type for op in graph.get_operations() if "While" in op.type] == ["StatelessWhile"]


@pytest.mark.parametrize("body, expected", [
    # gathered across iterations: accumulated, appended, collected by a comprehension
    ("for i in range(500):\n    z = z + 2.0 * x[i]\n", "warning"),
    ("out = []\nfor i in range(500):\n    out.append(tf.nn.relu(x[i]))\n", "warning"),
    ("s = tf.add_n([tf.gather(x, i) * 2.0 for i in range(500)])\n", "warning"),
    ("for i in range(500):\n    z += tf.reduce_sum(x[i], axis=0)\n", "warning"),
    # one step of other per-row work: a shape, a value bound to a name, an unknown function
    ("for i in range(500):\n    noise = tf.random_normal([tf.cast(x[i][0], tf.int32)])\n", "info"),
    ("for i in range(500):\n    row = x[i]\n", "info"),
    ("for i in range(500):\n    y = model(x[i])\n", "info"),
    ("for i in range(500):\n    z = tf.reduce_sum(x[i], axis=0)\n", "info"),
])
def test_warning_where_the_slices_are_gathered(body, expected):
    v1 = "import tensorflow.compat.v1 as tf\nx = tf.random_normal([500, 4])\nz = tf.zeros([4])\n"
    assert [severity for _, severity in severities(v1 + body)] == [expected]
