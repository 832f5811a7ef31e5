"""Logarithm of a sigmoid: `log(sigmoid(x))` and `log(1 - sigmoid(x))`.

Why: ``sigmoid(x)`` underflows to zero for x below about -88 in float32 (about
-17 in float16) and ``1 - sigmoid(x)`` rounds to zero for x above about 17 in
float32 (about 8 in float16), so their logs are -inf and the gradients NaN, in
eager mode, ``tf.function`` and graph mode alike (measured on TF 2.21:
``log(sigmoid(-200.))`` is -inf).  This is the usual hand-written binary
cross-entropy.  ``tf.math.log_sigmoid(x)`` is finite everywhere, and
``1 - sigmoid(x)`` is ``sigmoid(-x)``, so ``log(1 - sigmoid(x))`` is
``log_sigmoid(-x)``.

Fix safety: safe.  ``log(sigmoid(x))`` -> ``log_sigmoid(x)`` and
``log(1 - sigmoid(x))`` -> ``log_sigmoid(-x)``, mathematically identical,
spelled as ``math.log_sigmoid`` from the user's own alias of the module; when
no alias the code uses resolves to it, no fix is offered.  Through a name
(``p = sigmoid(z)`` then ``log(p)``) the argument is evaluated again at the
log, so the fix is offered only when it is free of side effects and its names
are bound once.  The op's ``name=`` stays with the sigmoid, as for TFE402.  Guarded forms
(``log(p + eps)``, ``clip_by_value``, also inside the complement, ``log(1 - clip_by_value(p, eps,
1 - eps))``, or held by an attribute the same function assigns, ``self.p = clip_by_value(p, eps,
1 - eps)``) are reported without a fix: the cure changes their values.

Severity: error; info for a guarded log, whose values stay finite (as TFE402 does for a guarded
``log(softmax(x))``): it floors the log at ``log(eps)`` and zeroes the gradient there, a loss of
accuracy rather than an inf/NaN.  Info too for a log only evaluated (module-level code of a module
that trains nothing, as for TFE402): a cost printed while hand-written gradients train; and for one
never run or fed only toy data (an OR gate's four points).  An argument
bounded by construction within 7.5 of zero (numbers, softmax, sigmoid and tanh outputs, and their sums,
differences and products: ``sigmoid(score(a) - score(b))`` with ``score`` returning a sigmoid) is not
reported: nothing can underflow, even in float16.
Nor is a log beside ``log_sigmoid`` or a sigmoid cross-entropy of the same logits in the same block
(also inside its ``with`` statements): a demo comparing the formula with the cure.

Outputs of layers with a sigmoid activation (``Dense(1, activation="sigmoid")(x)``,
``tf.compat.v1.layers.dense(x, 1, activation=tf.sigmoid)``), attributes the class
assigns once (``self.p``, ``model.p``) and what an undecorated function or method of
the module returns from its one ``return`` (``self.probs()``, also inherited; or applies as
the activation its call passes, ``layer(h, act=tf.nn.sigmoid)``, TFE402's cases) count as
sigmoids, and so does a parameter to which every call of its function in the module passes
one of these; they are reported without a fix.

Known problems: sigmoids reached through a name assigned in another scope, or
more than once where an assignment may not run or runs in a loop (under ``if``,
``for``, ``try``), are not seen, nor ``log1p(-sigmoid(x))``.  A name assigned
several times in code that runs in order (``h = dense(x)``, then ``h = tf.sigmoid(h)``)
is followed to the assignment before the log.  For a full binary cross-entropy from logits
``tf.nn.sigmoid_cross_entropy_with_logits`` is simpler still.  A fix through a
name re-reads ``x`` at the log: a ``tf.Variable`` assigned in between is not
detected.
"""
import libcst as cst

from ..analysis.cure_spelling import compat_of, spell
from ..analysis.formula_comparisons import LOG_SIGMOID, beside_stable_op
from ..analysis.numeric_patterns import cure_args, is_small, may_move, unguarded
from ..analysis.producers import computes, operand, through_name
from ..analysis.tf_api import LOG, SIGMOID
from ..analysis.training import evaluated
from ..rule import ERROR, INFO, SAFE, Rule

CURE = ("math.log_sigmoid",)


def _complement(context, expr):
    """``s`` from ``1 - s``, else None."""
    expr, _ = through_name(context, expr)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Subtract) \
            and isinstance(expr.left, (cst.Integer, cst.Float)) and expr.left.evaluated_value == 1:
        return expr.right
    return None


def _negated(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return expr.expression
    atom = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)
    if not isinstance(expr, atom) and not expr.lpar:
        expr = expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(operator=cst.Minus(), expression=expr)


class LogOfSigmoid(Rule):
    """`log(sigmoid(x))` and `log(1 - sigmoid(x))` are -inf with NaN gradients at large magnitudes."""

    CODE = "TFE404"
    MESSAGE = ("`log(sigmoid(x))` is -inf with NaN gradients for large |x|; use "
               "`tf.math.log_sigmoid(x)` (and `log_sigmoid(-x)` for `log(1 - sigmoid(x))`)")
    GUARDED = ("`log(sigmoid(x) + eps)` floors values at log(eps) and zeroes their gradient; use "
               "`tf.math.log_sigmoid(x)` (and `log_sigmoid(-x)` for `log(1 - sigmoid(x))`)")
    SEVERITY = ERROR
    FIX_SAFETY = SAFE
    NEEDS = ("sigmoid",)  # the op or a "sigmoid" activation
    BAD = """
        loss = -(y * tf.math.log(tf.sigmoid(z)) + (1 - y) * tf.math.log(1 - tf.sigmoid(z)))
    """
    GOOD = """
        loss = -(y * tf.math.log_sigmoid(z) + (1 - y) * tf.math.log_sigmoid(-z))
    """

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        argument = operand(node) if name is not None and name.path in LOG else None
        for candidate, guarded in unguarded(self.context, argument) if argument is not None else ():
            inner = _complement(self.context, candidate)
            # ``log(1 - p)`` with ``p`` itself guarded (``1 - clip_by_value(p, eps, 1 - eps)``) is guarded too
            found = [(candidate, guarded)] if inner is None else [
                (p, guarded or clipped) for p, clipped in unguarded(self.context, inner)]
            for value, guarded in found:
                sigmoid = computes(self.context, value, SIGMOID)
                if sigmoid is None:
                    continue
                if sigmoid.exact and is_small(self.context, operand(sigmoid.call)):
                    return  # a bounded argument: nothing can underflow
                if beside_stable_op(self.context, sigmoid, LOG_SIGMOID):
                    return  # a comparison of formulas
                named = sigmoid.named or through_name(self.context, candidate)[1]
                exact = sigmoid.exact and not guarded
                fix = self._fix(node, sigmoid.call, inner is not None, named) if exact else None
                message, severity = (self.GUARDED, INFO) if guarded else evaluated(self.context, self.MESSAGE)
                self.report(node, message, fix=fix, severity=severity)
                return

    def _fix(self, log: cst.Call, sigmoid: cst.Call, complement: bool, named: bool):
        x = operand(sigmoid)
        if x is None or not may_move(self.context, named, x):
            return None
        func = spell(self.context, compat_of(self.context, sigmoid), CURE, (sigmoid.func, log.func))
        args = cure_args(sigmoid, named)
        if func is None or args is None:
            return None
        args = [arg.with_changes(value=_negated(x)) if complement and arg.value is x else arg for arg in args]
        return sigmoid.with_changes(func=func, args=args, lpar=(), rpar=())
