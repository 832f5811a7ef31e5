"""A keep probability passed where TensorFlow 2 expects the drop rate.

Why: ``tf.nn.dropout``'s second parameter was ``keep_prob`` in TF 1.x and is
``rate``, the fraction *dropped*, in TF 2: ``tf.nn.dropout(x, keep_prob)``
with ``keep_prob = 0.9`` keeps 10% of the units instead of 90%, silently
(measured on TF 2.21: 0.0997 of the units kept), and ``keep_prob=0.9`` as a
keyword raises ``TypeError`` (unexpected keyword argument).
``tf.compat.v1.nn.dropout`` still takes ``keep_prob``.  Keras'
``Dropout(rate)`` has always taken the drop rate, so ``Dropout(keep_prob)``
is inverted in every version (measured: ``Dropout(0.9)`` keeps 10%), and so
has TF 1.x's ``tf.layers.dropout(inputs, rate)`` (``tf.layers.Dropout(rate)``,
also through ``tf.compat.v1``): ``tf.layers.dropout(x, keep_prob)`` is the
same inversion (``tf.contrib.layers.dropout`` takes ``keep_prob``: not reported).

Reported: a second positional argument of ``tf.nn.dropout`` or
``tf.layers.dropout`` (or first of ``tf.keras.layers.Dropout`` /
``tf.layers.Dropout``) whose name says it is a keep probability
(``keep`` as a word: ``keep_prob``, ``self.keep_prob``, ``FLAGS.keep_prob``,
``config.dropout_keep_prob``, ``params['keep_prob']``, a name assigned once
from one of those), and the ``keep_prob=`` keyword.  ``tf.nn.dropout`` is
reported only where the scope or module shows TensorFlow 2 evidence
(``tf.function``, ``GradientTape``, a Keras subclass, a TF2-only API) and the
module spells no TF 1.x-only name (``tf.Session``, ``tf.placeholder``):
the same line is right on TF 1.x.

Fix safety: unsafe: ``1 - keep_prob`` as the rate (``rate=1 - (...)`` for
the keyword) is what the code meant only if the name tells the truth, and
TensorFlow before 1.13 has no ``rate``.

Known problems: literals (``tf.nn.dropout(x, 0.5)``) and names that do not
say what they hold are not reported; ``rate=keep_prob`` is not reported.
A Keras subclass or a ``tf.data`` map function is taken as TF2 evidence,
though TF 1.13-1.15 had both.
"""
import re

import libcst as cst

from ..analysis.syntax import has_star_args
from ..rule import ERROR, UNSAFE, Fix, Rule

DROPOUT = "nn.dropout"
KERAS_DROPOUT = "keras.layers.Dropout"
# TF 1.x's ``tf.layers`` took the drop rate too: the position of ``rate`` and how the message names it
LAYERS_DROPOUT = {"layers.dropout": (1, "`tf.layers.dropout`"), "layers.Dropout": (0, "`tf.layers.Dropout`")}
MESSAGE = ("`{code}` is a keep probability, but {where} takes the drop rate: a keep probability of 0.9 "
           "drops 90% of the units; pass `1 - {code}`")
KEYWORD = ("`keep_prob=` does not exist in TF2's `tf.nn.dropout` (TypeError); "
           "use `rate=1 - keep_prob`")


def _says_keep(expr: cst.BaseExpression) -> bool:
    """A name, attribute or string subscript that has ``keep`` as a word (``keep_prob``, ``keepProb``)."""
    if isinstance(expr, cst.Attribute):
        expr = expr.attr
    elif isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
        index = getattr(expr.slice[0].slice, "value", None)
        if not isinstance(index, cst.SimpleString):
            return False
        text = index.evaluated_value if isinstance(index.evaluated_value, str) else ""
        return "keep" in _words(text)
    return isinstance(expr, cst.Name) and "keep" in _words(expr.value)


def _words(name: str):
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().split("_")


def _one_minus(value: cst.BaseExpression) -> cst.BinaryOperation:
    """``1 - value``, parenthesised unless ``value`` is atomic or already parenthesised."""
    atomic = (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.Integer, cst.Float)
    if not isinstance(value, atomic) and not getattr(value, "lpar", ()):
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.BinaryOperation(cst.Integer("1"), cst.Subtract(), value)


class DropoutKeepProbAsRate(Rule):
    """A keep probability passed as a dropout's drop rate: the dropout is inverted."""

    CODE = "TFE901"
    MESSAGE = "a keep probability passed as dropout's drop rate: the dropout is inverted; pass `1 - keep_prob`"
    SEVERITY = ERROR
    FIX_SAFETY = UNSAFE
    NEEDS = ("dropout", "Dropout")
    BAD = """
        @tf.function
        def layer(x, keep_prob):
            return tf.nn.dropout(x, keep_prob)
    """
    GOOD = """
        @tf.function
        def layer(x, keep_prob):
            return tf.nn.dropout(x, rate=1 - keep_prob)
    """

    @classmethod
    def may_report_in(cls, source: str) -> bool:
        """A dropout, and ``keep`` as a word of some name (``keep_prob``, ``keepProb``, ``KEEP_PROB``)."""
        return super().may_report_in(source) and any(word in source for word in ("keep", "Keep", "KEEP"))

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        if name is None or has_star_args(node):
            return
        if name.path == DROPOUT and not name.is_v1:
            position, where = 1, "TF2's `tf.nn.dropout`"
            tf2, tf1_api = self.context.tf2_thunk(node), self.context.tf1_api_thunk()
            when = lambda: tf2() and not tf1_api()  # noqa: E731
        elif name.path == KERAS_DROPOUT and not name.is_v1:
            position, where, when = 0, "Keras' `Dropout`", None
        elif name.path in LAYERS_DROPOUT:  # also through compat.v1
            (position, where), when = LAYERS_DROPOUT[name.path], None
        else:
            return
        for index, arg in enumerate(node.args):
            if arg.keyword is not None:
                if arg.keyword.value == "keep_prob" and name.path == DROPOUT:
                    rate = arg.with_changes(keyword=cst.Name("rate"), value=_one_minus(arg.value))
                    self.report(arg, KEYWORD, fix=Fix(rate, safety=UNSAFE), when=when)
            elif index == position and self._keep_probability(arg.value):
                code = self.context.module.code_for_node(arg.value)
                message = MESSAGE.format(code=code, where=where)
                self.report(arg, message, fix=Fix(arg.with_changes(value=_one_minus(arg.value)), safety=UNSAFE),
                            when=when)

    def _keep_probability(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Name) and not _says_keep(value):  # p = self.keep_prob
            assigned = self.context.assigned_value(value)
            return assigned is not None and _says_keep(assigned)
        if not _says_keep(value):
            return False
        if isinstance(value, cst.Name):  # keep_prob = 1 - keep_prob makes it a rate: stay silent
            return not any(isinstance(getattr(binding, "value", None), cst.BinaryOperation)
                           for binding in self.context.bindings(value.value) or ())
        return True
