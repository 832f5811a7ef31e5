import pytest

from tfe_testing import FIXTURES, dedent, findings, fixed, load_module
from tflint_effective.engine.lint import lint_source

FOLDER = FIXTURES / "numpy_in_function"
TFE704 = ["TFE704"]
TF = "import numpy as np\nimport tensorflow as tf\n"


def lint(source):
    return findings(source, select=TFE704)


@pytest.mark.parametrize("source, expected", [
    (TF + "@tf.function\ndef f(x):\n    y = tf.reduce_sum(x, axis=0)\n    return y.numpy()\n", [(6, 12)]),
    (TF + "@tf.function\ndef f(x):\n    return tf.square(x).numpy() + 1\n", [(5, 12)]),
    (TF + "@tf.function\ndef f(x):\n    return tf.square(x)[0].numpy()\n", [(5, 12)]),
    (TF + "@tf.function\ndef f(x):\n    return tf.constant(1.0).numpy()\n", [(5, 12)]),
    (TF + "@tf.function(autograph=False)\ndef f(x):\n    y = tf.abs(x)\n    return np.array(y), np.asarray(y)\n",
     [(6, 12), (6, 25)]),
    (TF + "@tf.function\ndef f(x):\n    y = -tf.abs(x)\n    z = y * 2.0\n    return np.mean(z), np.float32(y)\n",
     [(7, 12), (7, 24)]),
    (TF + "@tf.function\ndef f(x: tf.Tensor):\n    return x.numpy()\n", [(5, 12)]),
    (TF + "def f(x):\n    return np.sum(tf.square(x))\nstep = tf.function(f)\n", [(4, 12)]),
    (TF + "import numpy\n@tf.function\ndef f(x):\n    return numpy.asanyarray(tf.shape(x))\n", [(6, 12)]),
    (TF + "class M(tf.Module):\n    @tf.function\n    def __call__(self, x):\n"
          "        y = tf.reduce_max(x, axis=0)\n        return y.numpy()\n", [(7, 16)]),
])
def test_reported(source, expected):
    assert lint(source) == [(*position, "TFE704") for position in expected]
    assert fixed(source, TFE704) == source


def test_messages_name_the_exceptions():
    source = TF + "@tf.function\ndef f(x):\n    y = tf.abs(x)\n    return y.numpy(), np.array(y)\n"
    numpy_call, array = lint_source(source, select=TFE704)
    assert "`.numpy()`" in numpy_call.message and "`AttributeError`" in numpy_call.message
    assert "`np.array(...)`" in array.message and "`NotImplementedError`" in array.message
    assert numpy_call.severity == array.severity == "error"


@pytest.mark.parametrize("source", [
    # run eagerly: functions given to tf.py_function / tf.numpy_function, eager code, eager blocks
    TF + "@tf.function\ndef f(x):\n    return tf.py_function(lambda t: tf.square(t).numpy(), [x], tf.float32)\n",
    TF + "def g(t):\n    return np.asarray(tf.square(t))\n@tf.function\ndef f(x):\n"
         "    return tf.numpy_function(g, [x], tf.float32)\n",
    TF + "def f(x):\n    y = tf.reduce_sum(x, axis=0)\n    return y.numpy(), np.array(y)\n",
    TF + "@tf.function\ndef f(x):\n    with tf.init_scope():\n        c = tf.constant(1.0).numpy()\n    return x + c\n",
    TF + "@tf.function\ndef f(x):\n    with tf.init_scope():\n        c = tf.constant(1.0)\n    return x + c.numpy()\n",
    TF + "@tf.function\ndef f(x):\n    y = tf.abs(x)\n    if tf.executing_eagerly():\n        print(y.numpy())\n"
         "    return y\n",
    # traced by Keras or tf.data, not by tf.function itself
    TF + "class M(tf.keras.Model):\n    def call(self, x):\n        return tf.square(x).numpy()\n",
    TF + "ds = tf.data.Dataset.range(3).map(lambda x: tf.square(x).numpy())\n",
    TF + "tf.config.run_functions_eagerly(True)\n@tf.function\ndef f(x):\n    return tf.square(x).numpy()\n",
    # closed-over eager tensors are trace-time constants; attributes and aliases may be too
    TF + "c = tf.constant(1.0)\n@tf.function\ndef f(x):\n    return x + c.numpy()\n",
    TF + "def make(offset):\n    @tf.function\n    def f(x):\n        return x + offset.numpy()\n    return f\n"
         "make(tf.constant(1.0))\n",
    TF + "c = tf.constant(1.0)\n@tf.function\ndef f(x):\n    y = c\n    return x + y.numpy()\n",
    TF + "class M(tf.Module):\n    def __init__(self):\n        self.w = tf.constant(2.0)\n    @tf.function\n"
         "    def __call__(self, x):\n        return x * self.w.numpy()\n",
    # NumPy on Python values, and NumPy functions that accept a symbolic tensor
    TF + "@tf.function\ndef f(x):\n    return x + np.array([1, 2]) * np.float32(0.5)\n",
    TF + "@tf.function\ndef f(x):\n    return np.shape(tf.square(x))\n",
    # not certainly a tensor, or not one the function computes
    TF + "@tf.function\ndef f(x):\n    return x.numpy()\n",
    TF + "@tf.function\ndef f(x):\n    y = helper(x)\n    return y.numpy()\n",
    TF + "@tf.function\ndef f(xs):\n    return [t.numpy() for t in xs]\n",
    TF + "@tf.function\ndef f(x):\n    def inner():\n        return tf.square(x).numpy()\n    return x\n",
    "import numpy as np\nimport tensorflow as tf\n@tf.function\ndef f(x):\n    np = fake\n"
    "    return np.array(tf.square(x))\n",
])
def test_near_misses(source):
    assert lint(source) == []


def test_fixtures_execute(tf):
    bad = load_module(FOLDER / "bad.py")
    good = load_module(FOLDER / "good.py")
    wrong, right = bad.main(), good.main()
    assert wrong["norm"] == "AttributeError" and wrong["clipped"] == "NotImplementedError"
    assert wrong["shifted"].numpy().tolist() == [4.0, 5.0]  # the closed-over eager tensor: legal
    assert wrong["doubled"].numpy().tolist() == [6.5, 9.0]  # .numpy() in tf.py_function: legal
    assert float(wrong["eager_norm"]) == 5.0
    assert float(right["norm"]) == float(right["norm_value"]) == 5.0
    assert right["clipped"].numpy().tolist() == [2.0, 2.0]


def test_fixture_findings():
    source = (FOLDER / "bad.py").read_text()
    assert lint(source) == [(13, 20, "TFE704"), (19, 24, "TFE704")]
    assert "offset.numpy()" in dedent(source)


def test_run_functions_eagerly_makes_the_body_eager(tf):
    @tf.function
    def f(x):
        return tf.square(x).numpy()

    tf.config.run_functions_eagerly(True)
    try:
        assert f(tf.constant(3.0)) == 9.0
    finally:
        tf.config.run_functions_eagerly(False)
    with pytest.raises(AttributeError, match="SymbolicTensor"):
        f(tf.constant(3.0))
