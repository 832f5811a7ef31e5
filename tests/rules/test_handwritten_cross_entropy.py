import numpy as np
import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import dedent, findings, fixed, lint_source

TFE403 = ["TFE402", "TFE403"]


@pytest.mark.parametrize("col, source, expected", [
    (9, "import tensorflow as tf\nloss = -tf.reduce_sum(y * tf.math.log(tf.nn.softmax(z)), axis=-1)\n",
     "import tensorflow as tf\nloss = -tf.reduce_sum(y * tf.nn.log_softmax(z), axis=-1)\n"),
    (9, "import tensorflow as tf\nloss = -tf.math.reduce_mean(tf.math.log(tf.nn.softmax(z, 1)) * y, 1)\n",
     "import tensorflow as tf\nloss = -tf.math.reduce_mean(tf.nn.log_softmax(z, 1) * y, 1)\n"),
    (8, "import tensorflow.compat.v1 as tf\nloss = tf.reduce_sum(-y * tf.log(tf.nn.softmax(z)), axis=[1])\n",
     "import tensorflow.compat.v1 as tf\nloss = tf.reduce_sum(-y * tf.nn.log_softmax(z), axis=[1])\n"),
])
def test_the_log_factor_becomes_log_softmax(col, source, expected):
    assert findings(source, TFE403) == [(2, col, "TFE403")]
    assert fixed(source, TFE403) == expected


def test_mnist_tutorial_form_through_a_name():
    source = dedent("""\
        import tensorflow.compat.v1 as tf
        def loss(y_, logits):
            y = tf.nn.softmax(logits)
            return tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), axis=[1]), axis=0)
    """)
    assert findings(source, TFE403) == [(4, 28, "TFE403")]
    assert fixed(source, TFE403) == source.replace("tf.log(y)", "tf.nn.log_softmax(logits)")


def test_the_name_of_the_op_stays_with_the_softmax():
    source = dedent("""\
        import tensorflow.compat.v1 as tf
        def loss(y_, logits):
            y = tf.nn.softmax(logits, -1, name="y")
            return -tf.reduce_sum(y_ * tf.log(y), axis=[1])
    """)
    assert fixed(source, TFE403) == source.replace("tf.log(y)", "tf.nn.log_softmax(logits, -1)")


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\nloss = -tf.reduce_sum(y * tf.math.log(tf.nn.softmax(z) + 1e-8), -1)\n",
    "import tensorflow as tf\np = tf.clip_by_value(tf.nn.softmax(z), 1e-8, 1.0)\nloss = -tf.reduce_sum(y * tf.math.log(p), -1)\n",
    # the op named `probs` would hold log-probabilities: a fetch of `probs:0` would change meaning
    "import tensorflow as tf\nloss = -tf.reduce_sum(y * tf.math.log(tf.nn.softmax(z, name='probs')), -1)\n",
])
def test_guarded_forms_are_reported_without_a_fix(source):
    assert [code for *_, code in findings(source, TFE403)] == ["TFE403"]
    assert fixed(source, TFE403) == dedent(source)


@pytest.mark.parametrize("source, severity", [
    # cross-entropy against labels: finite; the floor zeroes the gradient of a confidently wrong class
    ("import tensorflow as tf\np = tf.nn.softmax(z)\nloss = -tf.reduce_sum(y * tf.math.log(p + 1e-8), -1)\n", "info"),
    ("import tensorflow as tf\np = tf.nn.softmax(z) + 1e-8\nloss = -tf.reduce_sum(y * tf.math.log(p), -1)\n", "info"),
    # entropy: where the floor bites, p and the term are near zero
    ("import tensorflow as tf\np = tf.nn.softmax(z)\nh = -tf.reduce_sum(p * tf.math.log(p + 1e-8), -1)\n", "info"),
    ("import tensorflow as tf\np = tf.nn.softmax(z)\nh = -tf.reduce_sum(tf.math.log(1e-8 + p) * p, -1)\n", "info"),
    # an unguarded entropy is 0 * -inf = NaN where p underflows
    ("import tensorflow as tf\ndef entropy(z):\n    p = tf.nn.softmax(z)\n    return -tf.reduce_sum(p * tf.math.log(p), -1)\n",
     "error"),
])
def test_a_guarded_log_is_info(source, severity):
    assert [d.severity for d in lint_source(source, select=["TFE403"])] == [severity]


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\nloss = -tf.reduce_sum(y * tf.nn.log_softmax(z), -1)\n",
    "import tensorflow as tf\nloss = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=z)\n",
    "import tensorflow as tf\nloss = -tf.reduce_sum(y * tf.math.log(p), -1)\n",  # p unknown
    "import tensorflow as tf\nloss = -tf.reduce_sum(y * tf.math.log(tf.nn.relu(z) + 1.0), -1)\n",
    "import tensorflow as tf\nloss = -tf.reduce_max(y * tf.math.log(tf.nn.softmax(z)), -1)\n",  # TFE402 only
    "import numpy as np\nloss = -np.sum(y * np.log(p))\n",
    # a demo on constant logits at most 15 apart: no probability can underflow
    "import tensorflow as tf\nz = tf.constant([[1.0, 2.0, 3.0]])\np = tf.nn.softmax(z)\n"
    "loss = -tf.reduce_sum(y * tf.math.log(p), -1)\n",
    # ... also when a later section assigns the logits again
    "import tensorflow as tf\nz = [[2, 0.5, 6], [0.1, 0, 3]]\np = tf.nn.softmax(z)\n"
    "loss = -tf.reduce_sum(y * tf.math.log(p), 1)\nz = [[200.0, 0.0]]\n",
])
def test_near_misses(source):
    assert [f for f in findings(source, TFE403) if f[2] == "TFE403"] == []


def test_a_product_bound_to_a_name_is_reported_once_by_tfe402():
    source = dedent("""\
        import tensorflow as tf
        p = tf.nn.softmax(z)
        ce = y * tf.math.log(p)
        loss = -tf.reduce_sum(ce, axis=2)
    """)
    assert findings(source, TFE403) == [(3, 10, "TFE402")]


def test_fixture_cross_entropy_is_inf_or_nan_where_log_softmax_is_exact(tf):
    bad = load_module(FIXTURES / "handwritten_cross_entropy" / "bad.py").main()
    good = load_module(FIXTURES / "handwritten_cross_entropy" / "good.py").main()
    assert not np.isfinite(bad["per_example"].numpy()[0])
    assert np.isnan(bad["d_per_example"].numpy()[0]).all()
    # -(0.5 * log_softmax(200) + 0.5 * log_softmax(0)) = 0.5 * 200, up to exp(-200) terms
    np.testing.assert_allclose(good["per_example"].numpy()[0], 100.0, rtol=1e-6)
    np.testing.assert_allclose(good["d_per_example"].numpy()[0], [0.5, -0.5, 0.0], atol=1e-6)
    assert 0 < bad["guarded"].numpy()[0] < 10  # finite, but log(1e-8) is not -200
    assert not np.isfinite(bad["weighted"].numpy()[0]) and not np.isfinite(bad["passed"].numpy()[0])
    assert not np.isfinite(bad["layer_helper"].numpy()[0]) and np.isnan(bad["d_layer_helper"].numpy()[0]).all()
    assert all(np.isfinite(bad["near_misses"][name].numpy()).all() for name in ("helper_linear", "helper_softplus"))
    # class weights [1, 2, 1]: -(0.5 * 1 * 0 + 0.5 * 2 * -200)
    np.testing.assert_allclose(good["weighted"].numpy()[0], 200.0, rtol=1e-6)
    for name in good:
        assert np.isfinite(good[name].numpy()).all(), name


@pytest.mark.parametrize("source, column", [
    ("import tensorflow as tf\nprobs = tf.keras.layers.Dense(10, activation='softmax')(x)\n"
     "loss = -tf.reduce_sum(y * tf.math.log(probs), axis=1)\n", 9),
    ("import tensorflow as tf\nprobs = tf.keras.layers.Dense(10, activation=tf.nn.softmax)(x)\n"
     "loss = tf.reduce_mean(-tf.reduce_sum(y * tf.log(probs), axis=1))\n", 24),
    ("import tensorflow as tf\nh = tf.layers.dense(x, 10, activation=tf.nn.softmax)\n"
     "loss = -tf.reduce_sum(y * tf.log(h + 1e-10), axis=1)\n", 9),
    ("import tensorflow as tf\nclass M:\n    def __init__(self, x):\n        self.p = tf.nn.softmax(x)\n"
     "    def loss(self, y):\n        return -tf.reduce_sum(y * tf.math.log(self.p), axis=1)\n", 17),
])
def test_softmax_activations_and_attributes_are_reported_without_a_fix(source, column):
    line = source.count("\n")
    assert findings(source, ["TFE403"]) == [(line, column, "TFE403")]
    assert findings(source, ["TFE402"]) == []
    assert fixed(source, ["TFE403"]) == source


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\nprobs = tf.keras.layers.Dense(10, activation='relu')(x)\n"
    "loss = -tf.reduce_sum(y * tf.math.log(probs), axis=1)\n",
    "import tensorflow as tf\nprobs = tf.keras.layers.Dense(10, activation='sigmoid')(x)\n"
    "loss = -tf.reduce_sum(y * tf.math.log(probs), axis=1)\n",
    "import tensorflow as tf\nlayer = tf.keras.layers.Dense(10, activation='softmax')\n"
    "loss = -tf.reduce_sum(y * tf.math.log(tf.nn.relu(layer(x))), axis=1)\n",
])
def test_activation_near_misses(source):
    assert findings(source, ["TFE402", "TFE403"]) == []


def test_fixture_layer_cross_entropy_is_inf_where_the_logits_form_is_exact(tf):
    bad = load_module(FIXTURES / "handwritten_cross_entropy" / "bad.py").main()
    good = load_module(FIXTURES / "handwritten_cross_entropy" / "good.py")
    assert not np.isfinite(bad["layers"]["by_name"].numpy()[0]) and not np.isfinite(bad["layers"]["by_op"].numpy()[0])
    assert np.isnan(bad["d_layers"].numpy()[0]).all()
    assert np.isfinite(bad["layers"]["not_a_softmax"].numpy()).all()
    corrected = good.keras_layers(tf.constant(good.LOGITS))["by_name"]
    np.testing.assert_allclose(corrected.numpy()[0], 100.0, rtol=1e-6)


def test_probabilities_in_a_name_assigned_several_times_in_order():
    """A tutorial's model output reuses the name of its data (``y = data``, then ``y = softmax``)."""
    source = dedent("""\
        import tensorflow as tf
        y = mnist.target
        h = tf.layers.dense(x, 10)
        y = tf.nn.softmax(h)
        loss = tf.reduce_mean(-tf.reduce_sum(t * tf.log(y), axis=1))
    """)
    assert findings(source, TFE403) == [(5, 24, "TFE403")]
    assert fixed(source, TFE403) == source.replace("tf.log(y)", "tf.nn.log_softmax(h)")
    branch = source.replace("y = tf.nn.softmax(h)", "if last:\n    y = tf.nn.softmax(h)")
    assert findings(branch, TFE403) == []


@pytest.mark.parametrize("product", [
    "tf.multiply(y * tf.math.log(tf.nn.softmax(z)), w)",
    "y * tf.math.log(tf.nn.softmax(z)) * w",
    "w * (tf.math.log(tf.nn.softmax(z)) * y)",
    "tf.math.multiply(y, tf.math.log(tf.nn.softmax(z)), name='xe')",
])
def test_weighted_products_are_cross_entropies(product):
    source = f"import tensorflow as tf\nloss = -tf.reduce_sum({product}, axis=1)\n"
    assert findings(source, TFE403) == [(2, 9, "TFE403")]
    assert fixed(source, TFE403) == source.replace("tf.math.log(tf.nn.softmax(z))", "tf.nn.log_softmax(z)")


def test_a_log_inside_another_op_of_the_product_is_reported_by_tfe402():
    source = "import tensorflow as tf\np = tf.nn.softmax(z)\nloss = -tf.reduce_sum(tf.square(y * tf.math.log(p)), 1)\n"
    assert findings(source, TFE403) == [(3, 37, "TFE402")]


HELPER = """\
    import tensorflow as tf

    def _xent(probabilities, labels):
        probabilities = tf.clip_by_value(probabilities, 1e-9, 1.0)
        return -tf.reduce_sum(labels * tf.math.log(probabilities), axis=1)

    def _model(x):
        return tf.nn.softmax(tf.matmul(x, w))

    def step(x, y):
        pred = _model(x)
        return _xent(pred, y)
"""


@pytest.mark.parametrize("more_calls", [
    "",
    "pred = _model(data)\nloss = _xent(pred, labels)\n",  # the same name in another scope
    "def forward(x):\n    return _xent(tf.nn.softmax(x), y)\n",
    "def outer(p, y):\n    return _xent(p, y)\ndef run(z):\n    return outer(tf.nn.softmax(z), y)\n",
])
def test_a_parameter_every_call_passes_a_softmax(more_calls):
    source = dedent(HELPER) + more_calls
    assert [(d.line, d.col, d.code, d.severity) for d in lint_source(source, select=TFE403)] == [
        (5, 12, "TFE403", "info")]
    assert fixed(source, TFE403) == source


@pytest.mark.parametrize("more_calls", [
    "loss = _xent(tf.nn.relu(z) + 1.0, labels)\n",
    "loss = _xent(logits, labels)\n",
    "loss = _xent(*pair)\n",
    "callbacks = [_xent]\n",  # passed as a value: callable from anywhere
    "def outer(p, y):\n    return _xent(p, y)\nouter(logits, y)\n",
])
def test_a_parameter_some_call_may_pass_anything_else_is_not_reported(more_calls):
    assert findings(dedent(HELPER) + more_calls, TFE403) == []


ADD_LAYER = """\
import tensorflow.compat.v1 as tf
def add_layer(inputs, in_size, out_size, activation_function=None):
    Weights = tf.Variable(tf.random_normal([in_size, out_size]))
    with tf.name_scope('Wx_plus_b'):
        Wx_plus_b = tf.matmul(inputs, Weights)
    BODY
    return outputs
"""
IF_NONE = "if activation_function is None:\n        outputs = Wx_plus_b\n    else:\n        outputs = activation_function(Wx_plus_b)"
LOSS = "loss = tf.reduce_mean(-tf.reduce_sum(ys * tf.log(prediction), axis=1))\n"


@pytest.mark.parametrize("body, call", [
    (IF_NONE, "add_layer(xs, 784, 10, activation_function=tf.nn.softmax)"),
    (IF_NONE, "add_layer(xs, 784, 10, tf.nn.softmax)"),
    ("if not activation_function:\n        outputs = Wx_plus_b\n    else:\n        outputs = activation_function(Wx_plus_b)",
     "add_layer(xs, 784, 10, activation_function=tf.nn.softmax)"),
    ("if activation_function is not None:\n        outputs = activation_function(Wx_plus_b)\n"
     "    else:\n        outputs = Wx_plus_b", "add_layer(xs, 784, 10, activation_function=tf.nn.softmax)"),
    ("outputs = activation_function(Wx_plus_b)", "add_layer(xs, 784, 10, activation_function=tf.nn.softmax)"),
])
def test_a_layer_helper_applying_the_softmax_its_call_passes(body, call):
    source = ADD_LAYER.replace("BODY", body) + f"prediction = {call}\n" + LOSS
    line = source.count("\n")
    assert findings(source, TFE403) == [(line, 24, "TFE403")]
    assert fixed(source, TFE403) == source


@pytest.mark.parametrize("body, call", [
    (IF_NONE, "add_layer(xs, 784, 10)"),  # the default: no activation
    (IF_NONE, "add_layer(xs, 784, 10, activation_function=None)"),
    (IF_NONE, "add_layer(xs, 784, 10, activation_function=tf.nn.relu)"),
    (IF_NONE, "add_layer(xs, 784, 10, activation_function=act)"),  # unknown
    (IF_NONE, "add_layer(*args, activation_function=tf.nn.softmax)"),
    # the helper may return something else: a test the call does not decide, two live assignments,
    # the parameter rebound
    ("if in_size > 10:\n        outputs = Wx_plus_b\n    else:\n        outputs = activation_function(Wx_plus_b)",
     "add_layer(xs, 784, 10, activation_function=tf.nn.softmax)"),
    ("outputs = Wx_plus_b\n    if activation_function is not None:\n        outputs = activation_function(outputs)",
     "add_layer(xs, 784, 10, activation_function=tf.nn.softmax)"),
    ("activation_function = activation_function or tf.identity\n    outputs = activation_function(Wx_plus_b)",
     "add_layer(xs, 784, 10, activation_function=tf.nn.softmax)"),
])
def test_layer_helper_near_misses(body, call):
    source = ADD_LAYER.replace("BODY", body) + f"prediction = {call}\n" + LOSS
    assert findings(source, ["TFE402", "TFE403"]) == []
