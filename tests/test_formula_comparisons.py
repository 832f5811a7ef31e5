"""TFE402-TFE404 stay silent on a formula set beside TensorFlow's stable op on the same logits."""
import pytest

from tfe_testing import findings

HEADER = "import tensorflow as tf\ndef f(z, y, kind):\n"
FORMULAS = {  # the rule, the hand-written formula and the stable op computing the same quantity
    "TFE402": ("a = tf.math.log(tf.nn.softmax(z))", "b = tf.nn.log_softmax(z)"),
    "TFE403": ("a = -tf.reduce_sum(y * tf.math.log(tf.nn.softmax(z)), axis=-1)",
               "b = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=z)"),
    "TFE404": ("a = -(y * tf.math.log(tf.sigmoid(z)))", "b = tf.compat.v1.losses.sigmoid_cross_entropy(y, z)"),
}


def body(*lines):
    return HEADER + "".join(f"    {line}\n" for line in lines)


@pytest.mark.parametrize("code", sorted(FORMULAS))
def test_beside_the_stable_op_on_the_same_logits(code):
    formula, stable = FORMULAS[code]
    assert findings(body(formula, stable), select=[code]) == []
    assert findings(body(stable, "with tf.name_scope('demo'):", f"    {formula}"), select=[code]) == []


@pytest.mark.parametrize("code", sorted(FORMULAS))
def test_reported_when_the_stable_op_may_not_run_with_it_or_reads_other_logits(code):
    formula, stable = FORMULAS[code]
    column = 5 + formula.index("tf.reduce_sum" if code == "TFE403" else "tf.math.log")  # what the rule reports
    at = (4, column + 4, code)
    assert findings(body("if kind:", f"    {formula}", "else:", f"    {stable}"), select=[code]) == [at]
    assert findings(body(formula, "for _ in kind:", f"    {stable}"), select=[code]) == [(3, column, code)]
    assert findings(body(formula, stable.replace("z)", "z + 1.0)")), select=[code]) == [(3, column, code)]


def test_a_log_probability_beside_a_cross_entropy_is_another_quantity():
    """A model's log-probabilities next to its training loss (memn2n's ``predict_log_proba``)."""
    source = body("loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=z)",
                  "log_proba = tf.math.log(tf.nn.softmax(z))")
    assert findings(source, select=["TFE402"]) == [(4, 17, "TFE402")]


CLASS = ("import tensorflow as tf\nclass Demo:\n    def __init__(self, logits):\n        self.logits = logits\n"
         "        self.p = tf.nn.softmax({held})\n    def compare(self, y):\n"
         "        a = -tf.reduce_sum(y * tf.math.log(self.p), axis=-1)\n"
         "        b = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits={stable})\n")


def test_a_softmax_an_attribute_holds_compared_on_the_same_attribute():
    assert findings(CLASS.format(held="self.logits", stable="self.logits"), select=["TFE403"]) == []


@pytest.mark.parametrize("held, stable", [("self.logits", "self.other"), ("logits", "logits")])
def test_other_logits_or_a_local_name_of_another_method_are_no_comparison(held, stable):
    """``logits`` in ``__init__`` and ``logits`` in ``compare`` are different names."""
    assert findings(CLASS.format(held=held, stable=stable), select=["TFE403"]) == [(7, 14, "TFE403")]
