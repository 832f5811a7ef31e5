import pytest

from tfe_testing import FIXTURES, findings, fixed, load_module
from tflint_effective.engine.lint import lint_source

FOLDER = FIXTURES / "dropout_keep_prob_as_rate"
TFE901 = ["TFE901"]
TF2 = "import tensorflow as tf\n@tf.function\ndef f(x, keep_prob, cfg, FLAGS):\n"
PLAIN = "import tensorflow as tf\ndef f(x, keep_prob, cfg, FLAGS):\n"


def lint(source):
    return findings(source, select=TFE901)


@pytest.mark.parametrize("line, column, expected", [
    ("    return tf.nn.dropout(x, keep_prob)\n", 29, "    return tf.nn.dropout(x, 1 - keep_prob)\n"),
    ("    return tf.nn.dropout(x, cfg.dropout_keep_prob)\n", 29,
     "    return tf.nn.dropout(x, 1 - cfg.dropout_keep_prob)\n"),
    ("    return tf.nn.dropout(x, FLAGS.keep_prob, seed=1)\n", 29,
     "    return tf.nn.dropout(x, 1 - FLAGS.keep_prob, seed=1)\n"),
    ("    return tf.nn.dropout(x, cfg['keep_prob'])\n", 29, "    return tf.nn.dropout(x, 1 - cfg['keep_prob'])\n"),
    ("    return tf.nn.dropout(x, cfg.keepProb)\n", 29, "    return tf.nn.dropout(x, 1 - cfg.keepProb)\n"),
    ("    return tf.nn.dropout(x, cfg.keep_probability)\n", 29,
     "    return tf.nn.dropout(x, 1 - cfg.keep_probability)\n"),
    ("    return tf.nn.dropout(x, keep_prob=keep_prob)\n", 29, "    return tf.nn.dropout(x, rate=1 - keep_prob)\n"),
    ("    return tf.nn.dropout(x, keep_prob=cfg.keep or 0.9)\n", 29,
     "    return tf.nn.dropout(x, rate=1 - (cfg.keep or 0.9))\n"),
    ("    return tf.nn.dropout(x, keep_prob=0.8)\n", 29, "    return tf.nn.dropout(x, rate=1 - 0.8)\n"),
    ("    return tf.nn.dropout(keep_prob=cfg.keep_rate, x=x)\n", 26,
     "    return tf.nn.dropout(rate=1 - cfg.keep_rate, x=x)\n"),
    ("    return tf.keras.layers.Dropout(keep_prob)(x)\n", 36, "    return tf.keras.layers.Dropout(1 - keep_prob)(x)\n"),
])
def test_keep_probabilities_in_tf2_code_with_an_unsafe_fix(line, column, expected):
    assert lint(TF2 + line) == [(4, column, "TFE901")]
    assert fixed(TF2 + line, TFE901) == TF2 + line  # only with --unsafe-fixes
    assert fixed(TF2 + line, TFE901, unsafe_fixes=True) == TF2 + expected


@pytest.mark.parametrize("source, expected", [
    # a name assigned once from a keep probability
    (TF2 + "    p = cfg.keep_prob\n    return tf.nn.dropout(x, p)\n", [(5, 29, "TFE901")]),
    # other spellings of tf.nn.dropout and other TF2 evidence
    ("from tensorflow.nn import dropout\nimport tensorflow as tf\ntf.random.set_seed(0)\n"
     "def f(x, keep_prob):\n    return dropout(x, keep_prob)\n", [(5, 23, "TFE901")]),
    ("import tensorflow as tf\nclass Block(tf.keras.layers.Layer):\n    def call(self, x):\n"
     "        return tf.nn.dropout(x, self.keep_prob)\n", [(4, 33, "TFE901")]),
    ("import tensorflow as tf\ndef step(x, keep_prob):\n    with tf.GradientTape() as tape:\n"
     "        y = tf.compat.v2.nn.dropout(x, keep_prob)\n", [(4, 40, "TFE901")]),
    # Keras' Dropout takes the rate in every version: no TF2 evidence needed
    (PLAIN + "    return tf.keras.layers.Dropout(keep_prob)(x)\n", [(3, 36, "TFE901")]),
    # so does TF 1.x's tf.layers.dropout (tests/legacy_keras measures it), through compat.v1 too
    (PLAIN + "    return tf.layers.dropout(x, keep_prob, training=True)\n", [(3, 33, "TFE901")]),
    (PLAIN + "    return tf.compat.v1.layers.dropout(x, cfg.keep_prob)\n", [(3, 43, "TFE901")]),
    (PLAIN + "    return tf.layers.Dropout(FLAGS.keep_prob)(x)\n", [(3, 30, "TFE901")]),
])
def test_other_spellings_and_evidence(source, expected):
    assert lint(source) == expected


@pytest.mark.parametrize("source", [
    # the drop rate, spelled out or computed; literals are ambiguous
    TF2 + "    return tf.nn.dropout(x, rate=keep_prob)\n",
    TF2 + "    return tf.nn.dropout(x, rate=1 - keep_prob)\n",
    TF2 + "    return tf.nn.dropout(x, 1 - keep_prob)\n",
    TF2 + "    return tf.nn.dropout(x, 1.0 - cfg.keep_prob)\n",
    TF2 + "    return tf.nn.dropout(x, 0.5)\n",
    TF2 + "    return tf.nn.dropout(x, cfg.dropout_rate)\n",
    TF2 + "    return tf.nn.dropout(x, cfg.keepdims)\n",
    TF2 + "    return tf.nn.dropout(x, cfg[key])\n",
    TF2 + "    return tf.nn.dropout(x, keep_prob if training else 0.0)\n",
    TF2 + "    return tf.nn.dropout(*args)\n",
    TF2 + "    keep_prob = 1 - keep_prob\n    return tf.nn.dropout(x, keep_prob)\n",
    TF2 + "    return tf.keras.layers.Dropout(rate=keep_prob)(x)\n",
    # the TF1 API still takes keep_prob, whatever the module
    TF2 + "    return tf.compat.v1.nn.dropout(x, keep_prob)\n",
    TF2 + "    return tf.compat.v1.nn.dropout(x, keep_prob=keep_prob)\n",
    "import tensorflow.compat.v1 as tf\n@tf.function\ndef f(x, keep_prob):\n    return tf.nn.dropout(x, keep_prob)\n",
    "import tensorflow.compat.v1 as tf\ndef f(x, keep_prob):\n    return tf.keras.layers.Dropout(keep_prob)(x)\n",
    # no TF2 evidence: the same line is TF 1.x code
    PLAIN + "    return tf.nn.dropout(x, keep_prob)\n",
    PLAIN + "    return tf.nn.dropout(x, keep_prob=keep_prob)\n",
    # TF 1.x-only names spelled at the root: TF1 code, even with a GradientTape
    "import tensorflow as tf\nx = tf.placeholder(tf.float32)\ndef f(keep_prob):\n"
    "    with tf.GradientTape():\n        return tf.nn.dropout(x, keep_prob)\n",
    "import tensorflow as tf\nclass Normed(tf.keras.layers.Wrapper):\n    def call(self, x):\n"
    "        x = x * tf.rsqrt(self.variance)\n        return tf.nn.dropout(x, keep_prob=1.0 - self.rate)\n",
    # tf.layers.dropout given the rate; tf.contrib.layers.dropout takes keep_prob
    PLAIN + "    return tf.layers.dropout(x, 1 - keep_prob)\n",
    PLAIN + "    return tf.layers.dropout(x, rate=cfg.dropout_rate)\n",
    PLAIN + "    return tf.contrib.layers.dropout(x, keep_prob)\n",
    # not TensorFlow
    "import tensorflow as tf\nimport torch\n@tf.function\ndef f(x, keep_prob):\n"
    "    return torch.nn.functional.dropout(x, keep_prob)\n",
])
def test_near_misses(source):
    assert lint(source) == []


def test_message_and_severity():
    [positional] = lint_source(TF2 + "    return tf.nn.dropout(x, cfg.keep_prob)\n", select=TFE901)
    assert positional.severity == "error" and positional.fix_safety == "unsafe"
    assert "`cfg.keep_prob` is a keep probability" in positional.message and "`1 - cfg.keep_prob`" in positional.message
    [keyword] = lint_source(TF2 + "    return tf.nn.dropout(x, keep_prob=keep_prob)\n", select=TFE901)
    assert "TypeError" in keyword.message and "rate=1 - keep_prob" in keyword.message


def test_tf2_dropout_takes_the_rate_and_rejects_keep_prob(tf):
    tf.random.set_seed(0)
    x = tf.ones([20000])

    def kept(y):
        return float(tf.reduce_mean(tf.cast(tf.not_equal(y, 0.0), tf.float32)))
    assert abs(kept(tf.nn.dropout(x, 0.9)) - 0.1) < 0.02
    assert abs(kept(tf.compat.v1.nn.dropout(x, 0.9)) - 0.9) < 0.02
    assert abs(kept(tf.keras.layers.Dropout(0.9)(x, training=True)) - 0.1) < 0.02
    with pytest.raises(TypeError, match="keep_prob"):
        tf.nn.dropout(x, keep_prob=0.9)


def test_fixture_keeps_a_tenth_instead_of_nine_tenths(tf):
    wrong = load_module(FOLDER / "bad.py").main()
    right = load_module(FOLDER / "good.py").main()
    assert wrong["keyword"] == "TypeError"
    for key in ("function", "config", "keras"):
        assert 0.09 < wrong[key] < 0.11, key
        assert 0.89 < right[key] < 0.91, key
    assert 0.89 < right["keyword"] < 0.91
    misses = wrong["near_misses"]
    assert all(0.89 < misses[key] < 0.91 for key in ("rate", "complement", "legacy"))
    assert 0.48 < misses["literal"] < 0.52


def test_unsafe_fix_of_the_fixture_is_the_rate():
    source = (FOLDER / "bad.py").read_text()
    result = fixed(source, TFE901, unsafe_fixes=True)
    assert "tf.nn.dropout(x, 1 - keep_prob, seed=1)" in result
    assert "tf.nn.dropout(x, rate=1 - keep_prob, seed=3)" in result
    assert "tf.keras.layers.Dropout(1 - keep_prob, seed=4)" in result
    assert lint(result) == []
