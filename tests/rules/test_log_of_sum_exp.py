import numpy as np
import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import dedent, findings, fixed
from tflint_effective.engine.lint import lint_source

TFE405 = ["TFE405"]


@pytest.mark.parametrize("source, expected", [
    ("import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(tf.exp(x), axis=-1))\n",
     "import tensorflow as tf\ny = tf.reduce_logsumexp(x, axis=-1)\n"),
    ("import tensorflow as tf\ny = tf.math.log(tf.math.reduce_sum(tf.math.exp(x), [0, 1], keepdims=True))\n",
     "import tensorflow as tf\ny = tf.reduce_logsumexp(x, [0, 1], keepdims=True)\n"),
    ("import tensorflow.compat.v1 as tf1\ny = tf1.log(tf1.reduce_sum(tf1.exp(x)))\n",
     "import tensorflow.compat.v1 as tf1\ny = tf1.reduce_logsumexp(x)\n"),
    ("from tensorflow import math as tm\ny = tm.log(tm.reduce_sum(input_tensor=tm.exp(x), axis=1))\n",
     "from tensorflow import math as tm\ny = tm.reduce_logsumexp(input_tensor=x, axis=1)\n"),
])
def test_log_sum_exp_becomes_reduce_logsumexp_with_the_same_reduction(source, expected):
    assert [(line, code) for line, _, code in findings(source, TFE405)] == [(2, "TFE405")]
    assert fixed(source, TFE405) == expected


def test_through_names():
    source = dedent("""\
        import tensorflow as tf
        def log_partition(scores):
            e = tf.exp(scores)
            total = tf.reduce_sum(e, 1, True, name="total")  # the name stays with that op
            return scores - tf.math.log(total)
    """)
    assert findings(source, TFE405) == [(5, 21, "TFE405")]
    assert fixed(source, TFE405) == source.replace(
        "tf.math.log(total)", "tf.reduce_logsumexp(scores, 1, True)")


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\ndef f(x, k):\n    e = tf.exp(x)\n    k = k + 1\n    return tf.math.log(tf.reduce_sum(e, k))\n",
    "from tensorflow import exp, reduce_sum\nfrom tensorflow.math import log\ny = log(reduce_sum(exp(x), 0))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(tf.exp(x), 1, name='z'))\n",  # `z` would change meaning
])
def test_reported_without_a_fix(source):
    assert len(findings(source, TFE405)) == 1
    assert fixed(source, TFE405) == dedent(source)


def test_a_shift_by_something_else_than_a_maximum_is_still_reported():
    source = ("import tensorflow as tf\nz = tf.subtract(x, tf.reduce_mean(x))\n"
              "y = tf.math.log(tf.reduce_sum(tf.exp(z), 1))\n")
    assert findings(source, TFE405) == [(3, 5, "TFE405")]
    assert fixed(source, TFE405) == source.replace("tf.math.log(tf.reduce_sum(tf.exp(z), 1))",
                                                   "tf.reduce_logsumexp(z, 1)")


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\nm = tf.reduce_max(x, 1, keepdims=True)\ny = m + tf.math.log(tf.reduce_sum(tf.exp(x - m), 1, keepdims=True))\n",
    "import tensorflow as tf\ny = tf.reduce_logsumexp(x, 1)\n",
    # the shift in an augmented assignment, the maximum added back
    "import tensorflow as tf\ndef lse(xs):\n    m = tf.reduce_max(xs, keepdims=True)\n    xs -= m\n"
    "    return tf.squeeze(m, [-1]) + tf.math.log(tf.reduce_sum(tf.exp(xs), -1))\n",
    # the shift spelled as a call, through names
    "import tensorflow as tf\nm = tf.reduce_max(x, 1, keepdims=True)\nsafe = tf.subtract(x, m)\n"
    "y = tf.math.log(tf.reduce_sum(tf.exp(safe), 1, keepdims=True))\n",
    "import tensorflow as tf\n"
    "y = tf.math.log(tf.reduce_sum(tf.exp(tf.math.subtract(x, y=tf.reduce_max(x))), 1))\n",
    "import tensorflow as tf\nm = tf.reduce_max(x, 1, keepdims=True)\nm = tf.where(tf.math.is_finite(m), m, 0)\ny = m + tf.math.log(tf.reduce_sum(tf.exp(x - m), 1, keepdims=True))\n",
    # the shift with a temperature applied after it: the largest term is still exp(0)
    "import tensorflow as tf\ndef f(q, tau):\n    m = tf.reduce_max(q, -1, keepdims=True)\n"
    "    return tf.squeeze(m, [-1]) + tau * tf.math.log(tf.reduce_sum(tf.exp((q - m) / tau), -1))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(tf.exp(beta * (x - tf.reduce_max(x))), 1))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(tf.abs(x), 1))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.reduce_mean(tf.exp(x), 1))\n",
    "import numpy as np\ny = np.log(np.sum(np.exp(x)))\n",
    "import tensorflow as tf\nimport numpy as np\ny = np.log(tf.reduce_sum(tf.exp(x), 1))\n",
])
def test_near_misses(source):
    assert findings(source, TFE405) == []


def test_a_never_positive_exponent_still_underflows_to_log_zero():
    source = "import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(tf.exp(-tf.square(x)), 1))\n"
    assert findings(source, TFE405) == [(2, 5, "TFE405")]


def test_fixture_log_sum_exp_overflows_where_reduce_logsumexp_is_exact(tf):
    bad = load_module(FIXTURES / "log_of_sum_exp" / "bad.py").main()
    good = load_module(FIXTURES / "log_of_sum_exp" / "good.py").main()
    assert bad["log_partition"].numpy().tolist() == [np.inf, -np.inf]
    assert np.isnan(bad["d_log_partition"].numpy()).any()
    np.testing.assert_allclose(good["log_partition"].numpy(), [200.0, -200.0])
    np.testing.assert_allclose(good["d_log_partition"].numpy(), [[1.0, 0.0], [1.0, 0.0]], atol=1e-6)
    for name in good:
        assert np.isfinite(good[name].numpy()).all(), name


WEIGHTED = "`tflint_effective.runtime_checks.weighted_logsumexp({})`"


@pytest.mark.parametrize("source, position, call", [
    ("import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(w * tf.exp(x), axis=-1))\n", (2, 5), "x, w, axis=-1"),
    ("import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(tf.exp(x) * mask, 1, keepdims=True))\n",
     (2, 5), "x, mask, axis=1, keepdims=True"),
    ("import tensorflow.compat.v1 as tf\ny = tf.log(tf.reduce_sum(tf.exp(x) * w, reduction_indices=[1]))\n",
     (2, 5), "x, w, axis=[1]"),
    # a mixture through names; no axis reduces every element
    ("import tensorflow as tf\ndef f(x, l):\n    p = tf.nn.softmax(l, axis=-1) * tf.exp(x)\n"
     "    return tf.math.log(tf.reduce_sum(p))\n", (4, 12), "x, tf.nn.softmax(l, axis=-1), axis=None"),
])
def test_weighted_sums_and_mixtures_are_reported_without_a_fix(source, position, call):
    assert findings(source, TFE405) == [(*position, "TFE405")]
    [diagnostic] = lint_source(source, select=TFE405)
    assert diagnostic.fix is None
    assert WEIGHTED.format(call) in diagnostic.message
    assert "tfp.math.reduce_weighted_logsumexp" in diagnostic.message
    assert fixed(source, TFE405) == dedent(source)


@pytest.mark.parametrize("source", [
    "import tensorflow as tf\nm = tf.reduce_max(x, 1, keepdims=True)\n"
    "y = m + tf.math.log(tf.reduce_sum(w * tf.exp(x - m), 1, keepdims=True))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(w * x, 1))\n",
    "import tensorflow as tf\ny = tf.math.log(tf.reduce_sum(w + tf.exp(x), 1))\n",
    "import tensorflow as tf\ny = tf.reduce_logsumexp(tf.math.log(w) + x, 1)\n",
    "import tensorflow as tf\nimport numpy as np\ny = tf.math.log(tf.reduce_sum(w * np.exp(x), 1))\n",
])
def test_weighted_near_misses(source):
    assert findings(source, TFE405) == []


def test_log_of_weights_has_a_nan_gradient_where_a_weight_is_zero(tf):
    """Why no `reduce_logsumexp(log(w) + x)` is offered: measured."""
    from tflint_effective.runtime_checks import weighted_logsumexp

    x, w = tf.constant([[1.0, 2.0]]), tf.constant([[0.0, 1.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(w)
        through_log = tf.reduce_logsumexp(tf.math.log(w) + x, axis=1)
        exact = weighted_logsumexp(x, w, axis=1)
    np.testing.assert_allclose(through_log.numpy(), exact.numpy(), rtol=1e-6)
    assert np.isnan(tape.gradient(through_log, w).numpy()[0, 0])
    assert np.isfinite(tape.gradient(exact, w).numpy()).all()


FAR = [[-200.0, -300.0], [-1000.0, -1001.0]]


def test_fixture_mixture_underflows_where_weighted_logsumexp_is_exact(tf):
    bad = load_module(FIXTURES / "log_of_sum_exp" / "bad.py")
    good = load_module(FIXTURES / "log_of_sum_exp" / "good.py")
    wrong, right = bad.main(FAR), good.main(FAR)
    for name in ("mixture", "masked"):
        assert wrong[name].numpy().tolist() == [-np.inf, -np.inf]
        assert np.isnan(wrong[f"d_{name}" if name == "masked" else "d_mixture_log_probs"].numpy()).all()
    np.testing.assert_allclose(right["masked"].numpy(), [-200.0, -1000.0 + np.log1p(np.exp(-1.0))], rtol=1e-6)
    for name in ("mixture", "masked", "d_mixture_log_probs", "d_mixture_logits", "d_masked"):
        assert np.isfinite(right[name].numpy()).all(), name
    usual_wrong, usual_right = bad.main(), good.main()  # moderate log-likelihoods: the same numbers
    for name in ("mixture", "masked", "d_mixture_log_probs", "d_mixture_logits", "d_masked"):
        np.testing.assert_allclose(usual_wrong[name].numpy(), usual_right[name].numpy(), rtol=1e-5, atol=1e-6)
