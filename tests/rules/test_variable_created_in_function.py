import pytest

from tfe_testing import FIXTURES, dedent, findings, fixed, load_module

FOLDER = FIXTURES / "variable_created_in_function"
TFE701 = ["TFE701"]
TF = "import tensorflow as tf\n"


def lint(source):
    return findings(source, select=TFE701)


@pytest.mark.parametrize("source, expected", [
    (TF + "@tf.function\ndef f(x):\n    v = tf.Variable(1.0)\n    return v * x\n", [(4, 9)]),
    (TF + "@tf.function(jit_compile=True)\ndef f(x):\n    return tf.Variable(x) + 1\n", [(4, 12)]),
    (TF + "def f(x):\n    return tf.compat.v1.Variable(x)\nstep = tf.function(f)\n", [(3, 12)]),
    (TF + "step = tf.function(lambda: tf.Variable(1.0) + 1.0)\n", [(2, 28)]),
    (TF + "from tensorflow import Variable as V\n@tf.function\ndef f():\n    return V(1.0)\n", [(5, 12)]),
    (TF + "class M(tf.Module):\n    @tf.function\n    def __call__(self, x):\n"
          "        self.v = tf.Variable(1.0)\n        return self.v * x\n", [(5, 18)]),
    (TF + "@tf.function\ndef f(x):\n    with tf.name_scope('s'), tf.device('/cpu:0'):\n"
          "        v = tf.Variable(1.0)\n    return v\n", [(5, 13)]),
    # with eager execution disabled the first call raises all the same (measured)
    (TF + "tf.compat.v1.disable_eager_execution()\n@tf.function\ndef f(x):\n    return tf.Variable(x)\n",
     [(5, 12)]),
    # Keras layers with weights, constructed and called in the body
    (TF + "@tf.function\ndef f(x):\n    return tf.keras.layers.Dense(3)(x)\n", [(4, 12)]),
    (TF + "@tf.function\ndef f(x):\n    conv = tf.keras.layers.Conv2D(2, 3)\n    y = conv(x)\n    return y\n",
     [(5, 9)]),
    (TF + "import keras\n@tf.function\ndef f(x):\n    return keras.layers.Embedding(10, 2)(x)\n", [(5, 12)]),
    (TF + "import tf_keras\n@tf.function\ndef f(x):\n    return tf_keras.layers.Dense(3)(x)\n", [(5, 12)]),
    (TF + "from tf_keras import layers\n@tf.function\ndef f(x):\n    return layers.LSTM(3)(x)\n", [(5, 12)]),
    # also called where no error is expected, or redefined and called plainly, or never called
    (TF + "@tf.function\ndef f(x):\n    return tf.Variable(x)\nwith assert_raises(ValueError):\n    f(1.0)\nf(2.0)\n",
     [(4, 12)]),
    (TF + "@tf.function\ndef f(x):\n    return tf.Variable(x)\nwith assert_raises(ValueError):\n    f(1.0)\n"
          "@tf.function\ndef f(x):\n    return tf.Variable(x)\nf(2.0)\n", [(9, 12)]),
    (TF + "@tf.function\ndef f(x):\n    return tf.Variable(x)\nwith assert_raises(ValueError):\n    g = f\n", [(4, 12)]),
])
def test_reported(source, expected):
    assert lint(source) == [(*position, "TFE701") for position in expected]
    assert fixed(source, TFE701) == source


def test_message_names_the_error():
    from tflint_effective.engine.lint import lint_source

    [diagnostic] = lint_source(TF + "@tf.function\ndef f(x):\n    return tf.Variable(x)\n", select=TFE701)
    assert "`tf.Variable(...)`" in diagnostic.message and "ValueError" in diagnostic.message
    assert diagnostic.severity == "error" and diagnostic.fix is None


@pytest.mark.parametrize("source", [
    # created once
    TF + "class M(tf.Module):\n    @tf.function\n    def __call__(self, x):\n        if self.v is None:\n"
         "            self.v = tf.Variable(1.0)\n        return self.v * x\n",
    TF + "@tf.function\ndef f(x):\n    with tf.init_scope():\n        v = tf.Variable(1.0)\n    return v\n",
    TF + "class M(tf.Module):\n    def __init__(self):\n        self.v = self._make()\n    def _make(self):\n"
         "        return tf.Variable(1.0)\n    @tf.function\n    def __call__(self, x):\n        return self.v * x\n",
    TF + "class L(tf.keras.layers.Layer):\n    def build(self, shape):\n        self.w = tf.Variable(1.0)\n"
         "    def call(self, x):\n        if not self.built:\n            self.w = self.add_weight(shape=())\n"
         "        v = tf.Variable(2.0)\n        return x * self.w\n",
    # not in a tf.function body
    TF + "def f(x):\n    return tf.Variable(x)\n",
    TF + "@tf.function\ndef f(x):\n    def make():\n        return tf.Variable(x)\n    return x\n",
    TF + "ds = tf.data.Dataset.range(3).map(lambda x: tf.Variable(x))\n",
    "import tensorflow.compat.v1 as tf\nv = tf.Variable(1.0)\nwith tf.Session() as s:\n    s.run(v.initializer)\n",
    # created only sometimes
    TF + "@tf.function\ndef f(x, first):\n    if first:\n        v = tf.Variable(1.0)\n    return x\n",
    TF + "@tf.function\ndef f(x):\n    try:\n        v = tf.Variable(1.0)\n    except ValueError:\n        pass\n",
    TF + "@tf.function\ndef f(xs):\n    for x in xs:\n        v = tf.Variable(x)\n",
    TF + "@tf.function\ndef f(x):\n    v = cache.get('v') or tf.Variable(x)\n    return v\n",
    TF + "@tf.function\ndef f(x):\n    vs = [tf.Variable(1.0) for _ in range(2)]\n",
    TF + "class M(tf.Module):\n    @tf.function\n    def f(self, x):\n        if self.built:\n            return x\n"
         "        self.v = tf.Variable(x)\n        return x\n",
    TF + "@tf.function\ndef f(x):\n    with strategy.scope():\n        v = tf.Variable(1.0)\n    return v\n",
    # layers that create no weights, or are not certainly called
    TF + "@tf.function\ndef f(x):\n    return tf.keras.layers.Flatten()(x)\n",
    TF + "@tf.function\ndef f(x):\n    norm = tf.keras.layers.LayerNormalization(center=False, scale=False)\n"
         "    return norm(x)\n",
    TF + "@tf.function\ndef f(x):\n    dense = tf.keras.layers.Dense(3)\n    return x\n",
    TF + "@tf.function\ndef f(x, first):\n    dense = tf.keras.layers.Dense(3)\n    if first:\n        x = dense(x)\n"
         "    return x\n",
    TF + "@tf.function\ndef f(x, other):\n    dense = tf.keras.layers.Dense(3)\n    if other:\n"
         "        dense = other\n    return dense(x)\n",
    # tf.function bodies run eagerly (any call of it: the module may switch it on)
    TF + "tf.config.run_functions_eagerly(True)\n@tf.function\ndef f(x):\n    return tf.Variable(x)\n",
    TF + "@tf.function\ndef f(x):\n    return tf.Variable(x)\ndef debug():\n"
         "    tf.config.experimental_run_functions_eagerly(True)\n",
    # a lesson showing the error: every call expects it
    TF + "@tf.function\ndef f(x):\n    v = tf.Variable(1.0)\n    return v\nwith assert_raises(ValueError):\n    f(1.0)\n",
    TF + "@tf.function\ndef f(x):\n    return tf.Variable(x)\nwith pytest.raises(ValueError, match='singleton'):\n"
         "    f(1.0)\nx = 1\n",
    # a local name that is not TensorFlow
    "import tensorflow as tf\n@tf.function\ndef f(x):\n    tf = fake\n    return tf.Variable(x)\n",
])
def test_near_misses(source):
    assert lint(source) == []


def test_fixtures_execute(tf):
    bad = load_module(FOLDER / "bad.py")
    good = load_module(FOLDER / "good.py")
    wrong, right = bad.main(), good.main()
    # the first call raises, for a variable, for a layer, and under tf.init_scope() (not reported)
    assert wrong["scale"] == wrong["project"] == wrong["init_scoped"] == "ValueError"
    assert [t.numpy().tolist() for t in wrong["accumulated"]] == [[1.0, 2.0], [2.0, 4.0]]
    assert wrong["scaled"].numpy().tolist() == [3.0, 6.0]
    assert wrong["eager"].numpy().tolist() == [2.0, 4.0]
    assert [t.numpy().tolist() for t in right["scale"]] == [[2.0, 4.0], [2.0, 4.0]]
    assert [t.numpy().tolist() for t in right["project"]] == [[[2.0, 2.0]], [[2.0, 2.0]]]
    assert [t.numpy().tolist() for t in right["accumulated"]] == [[1.0, 2.0], [2.0, 4.0]]


def test_fixture_findings():
    source = (FOLDER / "bad.py").read_text()
    assert lint(source) == [(12, 14, "TFE701"), (18, 12, "TFE701")]
    assert "with tf.init_scope():" in dedent(source)


def test_run_functions_eagerly_makes_the_body_eager(tf):
    @tf.function
    def f(x):
        return tf.Variable(2.0) * x

    tf.config.run_functions_eagerly(True)
    try:
        assert f(tf.constant(3.0)) == f(tf.constant(3.0)) == 6.0
    finally:
        tf.config.run_functions_eagerly(False)
    with pytest.raises(ValueError, match="singleton tf.Variables"):
        f(tf.constant(3.0))
