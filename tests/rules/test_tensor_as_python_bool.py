import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import dedent, findings
from tflint_effective.engine.lint import lint_source

FOLDER = FIXTURES / "tensor_as_python_bool"
TF = "import tensorflow as tf\n"
V1 = "import tensorflow.compat.v1 as tf\n"


def severities(source):
    return [(d.line, d.col + 1, d.severity) for d in lint_source(dedent(source), select=["TFE301"])]


@pytest.mark.parametrize("source, expected", [
    (V1 + "t = tf.ones([])\nif t:\n    pass\nelif t > 1:\n    pass\n", [(3, 4, "TFE301"), (5, 6, "TFE301")]),
    (V1 + "t = tf.ones([])\nwhile t > 0:\n    t -= 1\n", [(3, 7, "TFE301")]),
    (V1 + "t = tf.ones([])\ny = 1 if t else 2\n", [(3, 10, "TFE301")]),
    (V1 + "t = tf.ones([])\nassert t > 0, 'negative'\n", [(3, 8, "TFE301")]),
    (V1 + "t = tf.ones([])\nb = bool(t)\n", [(3, 10, "TFE301")]),
    (V1 + "t = tf.ones([])\nys = [1 for _ in range(3) if t]\n", [(3, 30, "TFE301")]),
    # `t and u` asks for t's truth value; u's only when the whole is tested
    (V1 + "t = tf.ones([])\nu = tf.ones([])\ny = t and u\nz = u or not t\n",
     [(4, 5, "TFE301"), (5, 5, "TFE301"), (5, 14, "TFE301")]),
    (V1 + "t = tf.ones([])\nif (t > 0 and t < 2) or not t:\n    pass\n",
     [(3, 5, "TFE301"), (3, 15, "TFE301"), (3, 29, "TFE301")]),
    (V1 + "t = tf.ones([])\nif not (t > 0):\n    pass\n", [(3, 9, "TFE301")]),
    ("from tensorflow import math as tm\n" + V1 + "if tm.reduce_any(x > 0, axis=None):\n    pass\n", [(3, 4, "TFE301")]),
    # eager: only a tensor whose static shape shows more than one element
    (TF + "t = tf.constant([1.0, 2.0])\nif t > 0:\n    pass\ns = tf.ones([])\nif s:\n    pass\n", [(3, 4, "TFE301")]),
    (TF + "t = tf.zeros([2, 3])\nok = all(t > 0)\n", [(3, 10, "TFE301")]),
    (V1 + "x = tf.placeholder(tf.float32)\nif x is not None and x:\n    pass\n", [(3, 22, "TFE301")]),
])
def test_findings(source, expected):
    assert findings(source, select=["TFE301"]) == expected


@pytest.mark.parametrize("source, expected", [
    # G and F0: every form raises
    (V1 + "t = tf.reduce_sum(x, axis=None)\nif t > 0:\n    pass\n", [(3, 4, "error")]),
    (TF + "@tf.function(autograph=False)\ndef f(x):\n    t = tf.reduce_sum(x, axis=None)\n"
          "    return 1 if t > 0 else 2\n", [(5, 17, "error")]),
    # F: info for every form autograph converts (legal code while the test is a scalar boolean)
    (TF + "@tf.function\ndef f(x):\n    t = tf.reduce_sum(x, axis=None)\n    while t > 0:\n        t -= 1\n"
          "    if t == 0 or tf.reduce_all(x > 0, axis=None):\n        pass\n",
     [(5, 11, "info"), (7, 8, "info"), (7, 18, "info")]),
    (TF + "@tf.function\ndef f(x: tf.Tensor):\n    if x > 0:\n        pass\n    if x:\n        pass\n"
          "    y = not tf.reduce_sum(x, axis=None)\n", [(4, 8, "info"), (6, 8, "info"), (8, 13, "info")]),
    # F: forms autograph leaves alone raise when traced
    (TF + "@tf.function\ndef f(x):\n    t = tf.reduce_sum(x, axis=None)\n    assert t > 0\n"
          "    b = bool(t > 0)\n    return [1 for _ in 'ab' if t > 0]\n",
     [(5, 12, "error"), (6, 14, "error"), (7, 32, "error")]),
    # E: scalars work; a tensor of more than one element raises
    (TF + "t = tf.reduce_sum(x, axis=None)\nif t > 0:\n    pass\nassert t\n", []),
    (TF + "t = tf.constant([[1, 2]])\nif t > 0:\n    pass\nassert t\nok = any(t)\n",
     [(3, 4, "error"), (5, 8, "error"), (6, 10, "error")]),
    (TF + "@tf.function\ndef f():\n    t = tf.zeros([3])\n    ok = all(t)\n", [(5, 14, "error")]),
    # E: any() / all() ask each row: a vector's elements work; rows of more than one element, or a scalar, raise
    (TF + "a = tf.constant([False, True])\nok = all(a)\nok = any(tf.constant([[1], [2]]))\n"
          "ok = all(tf.constant([[1, 2]]))\nok = any(tf.constant(1.0))\n", [(5, 10, "error"), (6, 10, "error")]),
    # == compares identities in TF1 graph mode (another problem): off in G only
    (V1 + "t = tf.reduce_sum(x, axis=None)\nif t == 0:\n    pass\n", []),
    (TF + "t = tf.reduce_sum(x, axis=None)\nif t != 0:\n    pass\n", []),
    (TF + "@tf.function(autograph=False)\ndef f(x):\n    if tf.size(x) == 0:\n        pass\n", [(4, 8, "error")]),
    # ... also through a name bound to the comparison
    (TF + "@tf.function\ndef f(x):\n    is_1d = tf.rank(x) == 1\n    if is_1d and x is not None:\n        pass\n",
     [(5, 8, "info")]),
    (V1 + "x = tf.placeholder(tf.float32)\nis_one = x == 1\nif is_one:\n    pass\n", []),
    # under `if tf.executing_eagerly():` only eager execution runs the code, whatever the mode
    # around it: a scalar works there
    (TF + "@tf.function\ndef f(x: tf.Tensor):\n    if x is not None and tf.executing_eagerly():\n"
          "        if not tf.reduce_all(x > 0, axis=None) or x:\n            pass\n    elif x:\n        pass\n",
     [(7, 10, "info")]),
    (V1 + "t = tf.reduce_sum(x, axis=None)\nif tf.executing_eagerly():\n    if t > 0:\n        pass\n"
          "if t > 0:\n    pass\n", [(6, 4, "error")]),
    (V1 + "t = tf.reduce_sum(x, axis=None)\nif tf.executing_eagerly():\n    @tf.function\n    def f():\n"
          "        return 1 if t > 0 else 2\n", [(6, 21, "info")]),
    # Keras call and tf.data functions are traced with autograph
    (TF + "class M(tf.keras.Model):\n    def call(self, x):\n        if tf.reduce_max(x, axis=None) > 0:\n"
          "            return x\n        return -x\n", [(4, 12, "info")]),
    (TF + "ds = tf.data.Dataset.range(5).filter(lambda x: not tf.reduce_any(x > 2, axis=None))\n", [(2, 52, "info")]),
    # a Keras layer's method that only its ``call`` invokes is traced too
    (V1 + "class L(tf.keras.layers.Layer):\n    def call(self, x):\n        return self.step(x)\n"
          "    def step(self, x):\n        if tf.reduce_max(x, axis=None) > 0:\n            return x\n",
     [(6, 12, "info")]),
    (V1 + "class L(tf.keras.layers.Layer):\n    def call(self, x):\n        return self.step(x)\n"
          "    def step(self, x):\n        if tf.reduce_max(x, axis=None) > 0:\n            return x\n"
          "y = L().step(tf.ones([2]))\n", [(6, 12, "error")]),
    # a function that calls ``.numpy()`` runs eagerly, in a module of TF 1.x names (TF1 eager code): scalars work
    (TF + "y = tf.contrib.layers.flatten(x)\ndef step(v):\n    t = tf.reduce_sum(v, axis=None)\n"
          "    if t > tf.random.uniform([]):\n        return t.numpy()\n    if t:\n        pass\n", []),
    (TF + "y = tf.contrib.layers.flatten(x)\ndef step(v):\n    t = tf.reduce_sum(v, axis=None)\n"
          "    if t > tf.random.uniform([]):\n        return t\n", [(5, 8, "error")]),
    (TF + "def step(v):\n    t = tf.reduce_sum(v, axis=None)\n"
          "    if t > tf.random_uniform([]):\n        return t.numpy()\n", []),  # TF1 eager code
])
def test_severity_follows_the_mode(source, expected):
    assert severities(source) == expected


@pytest.mark.parametrize("source", [
    TF + "def f(x: tf.Tensor):\n    if x is None or x is not None:\n        pass\n",
    TF + "x = tf.ones([2])\nif x.shape[0] or x.shape.rank or x.dtype.is_floating:\n    pass\n",
    TF + "xs = [tf.ones([2])]\nif len(xs) and xs:\n    pass\n",
    TF + "def f(x, flag=True):\n    if flag and x:\n        pass\n",
    TF + "if tf.executing_eagerly() or tf.test.is_gpu_available():\n    pass\n",
    # checkpoint paths are Python strings or None, at the root too
    V1 + "path = tf.latest_checkpoint(train_dir)\nif not path:\n    pass\n",
    V1 + "if tf.train.latest_checkpoint(train_dir) is None or not tf.train.checkpoint_exists(p):\n    pass\n",
    V1 + "x = tf.ones([2])\nif tf.is_numeric_tensor(x) or tf.debugging.is_numeric_tensor(x):\n    pass\n",
    V1 + "def norm(x, groups):\n    channels = tf.dimension_value(x.shape[-1])\n    if groups > channels:\n"
         "        raise ValueError(groups)\n",
    "import numpy as np\na = np.ones([2])\nif np.all(a > 0) and a.any():\n    pass\n",
    TF + "x = tf.ones([2])\nif x.numpy().any() or tf.get_static_value(x) is not None:\n    pass\n",
    TF + "def f(c):\n    x = None\n    if c:\n        x = tf.ones([2])\n    if x:\n        pass\n",
    TF + "x = tf.ones([2])\nx = x.numpy()\nif x.all():\n    pass\n",
    TF + "def bool(v):\n    return True\nb = bool(tf.ones([]))\n",
    "import torch\nt = torch.ones(2)\nif t.sum() > 0:\n    pass\n",
])
def test_near_misses(source):
    assert findings(source, select=["TFE301"]) == []


def test_fixture_raises_in_graph_mode_where_tf_cond_gives_the_value(tf):
    bad = load_module(FOLDER / "bad.py")
    good = load_module(FOLDER / "good.py")
    with pytest.raises(TypeError, match="bool"):
        bad.main()
    assert good.main() == {"signed_total": 2.0}


def test_every_python_bool_form_raises_while_building_a_graph(tf):
    bad = load_module(FOLDER / "bad.py")
    good = load_module(FOLDER / "good.py")
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        with pytest.raises(TypeError):
            bad.damped_mean(x)
        result = good.damped_mean(x)
        with tf.compat.v1.Session() as session:
            assert session.run(result, {x: [3.0, 5.0]}) == 2.0


def test_autograph_converts_the_scalar_comparison_but_not_without_autograph(tf):
    bad = load_module(FOLDER / "bad.py")
    good = load_module(FOLDER / "good.py")
    values = tf.constant([1.0, -3.0])
    assert float(bad.signed_total_traced(values)) == 2.0
    with pytest.raises(TypeError):
        bad.signed_total_without_autograph(values)
    assert float(good.signed_total_without_autograph(values)) == 2.0


def test_in_eager_mode_only_tensors_of_more_than_one_element_fail(tf):
    scalar = TF + "def positive(x):\n    t = tf.convert_to_tensor(x) > 0\n    return 1 if t else 0\n"
    vector = TF + "def positive():\n    t = tf.constant([1.0, 2.0]) > 0\n    return 1 if t else 0\n"
    assert severities(scalar) == []  # legal while x is a scalar: the shape is not known here
    assert severities(vector) == [(4, 17, "error")]
    namespace = {}
    exec(compile(scalar, "eager.py", "exec"), namespace)
    assert namespace["positive"](2.0) == 1
    with pytest.raises(ValueError):
        namespace["positive"]([1.0, 2.0])
    exec(compile(vector, "eager.py", "exec"), namespace)
    with pytest.raises(ValueError):
        namespace["positive"]()


def test_in_eager_mode_any_and_all_ask_each_row(tf):
    source = TF + ("def flags():\n    return all(tf.constant([False, True])), any(tf.constant([[0], [3]]))\n"
                   "def rows():\n    return all(tf.constant([[1, 2]]))\ndef scalar():\n    return any(tf.constant(1.0))\n")
    assert severities(source) == [(5, 16, "error"), (7, 16, "error")]
    namespace = {}
    exec(compile(source, "eager.py", "exec"), namespace)
    assert namespace["flags"]() == (False, True)
    with pytest.raises(ValueError):
        namespace["rows"]()
    with pytest.raises(TypeError):
        namespace["scalar"]()
