"""Logarithm of a softmax: `log(softmax(x))`.

Why: a softmax probability underflows to exactly zero once its logit is about
88 below the largest one in float32 (about 17 in float16), and its log is
then -inf; the gradient through ``log`` is ``1 / 0`` times zero, NaN.  This
happens in eager mode, inside ``tf.function`` and in graph mode alike (measured
on TF 2.21: ``log(softmax([200., 0.]))`` is ``[0, -inf]`` with NaN gradients).
``tf.nn.log_softmax`` computes ``x - logsumexp(x)`` instead and stays finite.
Guarding the log (``log(p + eps)``, ``log(clip_by_value(p, eps, 1))``, also through an
attribute the same function assigns, ``self.p = clip_by_value(p, eps, 1)``) keeps
values finite but floors them at ``log(eps)`` and zeroes the gradient there.

Fix safety: safe.  ``log(softmax(args))`` becomes ``log_softmax(args)`` with the
softmax's arguments (axis included) unchanged, spelled from the user's own
alias of the module (``tf1.nn.softmax`` -> ``tf1.nn.log_softmax``); when no
alias the code already uses resolves to it, no fix is offered.  Through a name
(``p = softmax(x)`` then ``log(p)``) the softmax arguments are evaluated again
at the log, so the fix is offered only when they are free of side effects and
their names are bound once.  The op's ``name=`` stays with the softmax: a name-bound
softmax keeps it (the fix does not copy it), and an inline one that names its op gets no fix,
since the named op would then hold log-probabilities.  Guarded forms are reported without a fix: the
cure changes their (wrong) values.

A softmax is also seen as the output of a layer with a softmax activation
(``Dense(10, activation="softmax")(x)``, a layer object bound once, ``self.out(x)``,
``tf.keras.layers.Softmax()``, ``tf.compat.v1.layers.dense(x, n, activation=tf.nn.softmax)``)
in an attribute the class assigns once (``self.p``, or ``model.p`` for
``model = Model(...)`` of a class of the module), and in what an undecorated function
or method of the module returns from its one ``return`` (``probs(x)``, ``self.probs()``,
also inherited from a class of the module; the one left once the call's arguments decide the
function's tests of a parameter against None; through an attribute it returns, ``return
self.out``, or another such function, up to three deep), also when that return applies an activation
the call passes (``add_layer(x, 784, 10, activation_function=tf.nn.softmax)`` returning
``activation_function(Wx_plus_b)``), and in a parameter to which every call of its
function in the module passes one of these (``def xent(p, y)`` called as
``xent(tf.nn.softmax(z), y)``, also through a caller's own parameter, when the module only
calls the function); these are reported without a fix: the
cure is to drop the activation and apply ``log_softmax`` to the logits.

Severity: error; info for a guarded log, whose values stay finite, and for one in module-level code
of a module that trains nothing (``analysis.training``: only evaluated, no NaN gradient) or of a
TF1 script none of whose runs may be built from it (``analysis.session_runs``: never run) or that feeds
only a few data points written in it (``analysis.toy_data``: an XOR lesson's logits stay small).  Where the
probabilities also weight the log (an entropy ``p * log(p + eps)``) the floor
costs nothing, since those terms are near zero anyway: independent reviewers
judged guarded forms on real code harmless.  Logits written out as numbers at
most 15 apart (``softmax(tf.constant([1., 2., 3.]))``, also through a name bound to
``np.array([...])`` or an attribute its class assigns once: a demo comparing formulas) are not
reported: no probability can underflow.  Nor are logits bounded by construction within 7.5 of zero (softmax, sigmoid and
tanh outputs and numbers, and their sums, differences and products: attention over weights a
softmax already gave).  Nor is a log whose only uses give indices or rank: the logits of a sampler
(``tf.multinomial(log_p, 1)``, ``tf.random.categorical``) or the input of ``tf.argmax`` or
``tf.nn.top_k`` (also of a slice, ``log_p[:5]``), directly or through a name bound once: a sampler takes
unnormalised log-probabilities and reads -inf as a zero weight, -inf never holds the
largest log-probability (nor one of the k largest, in a beam search step, unless k exceeds
the probabilities that did not underflow), and no gradient flows through an index.  Nor is a log beside
``log_softmax`` of the same logits in the same block (also inside its ``with`` statements): a
demo comparing the two.  A cross-entropy beside it is another quantity (a model's
log-probabilities next to its training loss): still reported.

Known problems: a softmax reached through a name assigned in another scope, or
more than once where an assignment may not run or runs in a loop, is not seen (one
assigned several times in code that runs in order, ``y = tf.nn.softmax(y)``, is
followed to the assignment before the log), nor one returned by a helper with
several ``return`` statements the call's arguments leave, or of another module, nor the last
layer of a ``Sequential`` model.  The
log factor of a hand-written cross-entropy is reported by TFE403 instead.  A loss trained through the
values ``top_k`` returns is missed (NaN gradients reach the log where a probability underflowed).  A fix
through a name re-reads the softmax arguments at the log: a ``tf.Variable``
assigned in between (``v.assign(...)``) is not detected.
"""
import libcst as cst

from ..analysis.formula_comparisons import LOG_SOFTMAX, beside_stable_op
from ..analysis.numeric_patterns import in_cross_entropy, log_of_softmax, log_softmax_fix
from ..analysis.syntax import call_arg, code_children
from ..analysis.tf_api import ARGMAX, SAMPLERS, TOP_K
from ..analysis.training import evaluated
from ..rule import ERROR, INFO, SAFE, Rule


class LogOfSoftmax(Rule):
    """`log(softmax(x))` is -inf with NaN gradients once a probability underflows."""

    CODE = "TFE402"
    MESSAGE = "`log(softmax(x))` gives -inf and NaN gradients for extreme logits; use `tf.nn.log_softmax(x)`"
    GUARDED = ("`log(softmax(x) + eps)` floors log-probabilities at log(eps) and zeroes their "
               "gradient; use `tf.nn.log_softmax(x)`")
    SEVERITY = ERROR
    FIX_SAFETY = SAFE
    NEEDS = ("softmax", "Softmax")  # the op, a `Softmax` layer or a "softmax" activation
    BAD = """
        log_p = tf.math.log(tf.nn.softmax(logits, axis=-1))
    """
    GOOD = """
        log_p = tf.nn.log_softmax(logits, axis=-1)
    """

    def visit_Call(self, node: cst.Call) -> None:
        found = log_of_softmax(self.context, node)
        if found is None or in_cross_entropy(self.context, node) or self._only_indexed(node):
            return
        if beside_stable_op(self.context, found[0], LOG_SOFTMAX):
            return
        guarded = found[1]
        message, severity = (self.GUARDED, INFO) if guarded else evaluated(self.context, self.MESSAGE)
        self.report(node, message, fix=log_softmax_fix(self.context, node), severity=severity)

    def _only_indexed(self, log: cst.Call) -> bool:
        """The log only feeds ops that give indices (``_gives_indices``), directly or through a name
        bound once to it, itself or a slice of it (``log_p[:5]``)."""
        ancestors = self.context.ancestors
        parent = ancestors[-2] if len(ancestors) > 1 else None
        if type(parent) is cst.Arg:
            return self._gives_indices(parent, ancestors[-3])
        if not (type(parent) is cst.Assign and len(parent.targets) == 1 and type(parent.targets[0].target) is cst.Name):
            return False
        name = parent.targets[0].target
        if len(self.context.bindings(name.value) or ()) != 1:
            return False
        scope = next((n for n in reversed(ancestors) if type(n) in (cst.FunctionDef, cst.Module)), None)
        uses = 0
        stack = [(scope, None, None)]
        while stack:
            node, up, upper = stack.pop()
            if type(node) is cst.Name and node.value == name.value and node is not name:
                if not (type(up) is cst.Arg and self._gives_indices(up, upper)):
                    return False
                uses += 1
            elif type(node) is cst.Attribute:
                stack.append((node.value, node, up))  # ``x.attr``: its ``attr`` is no use of ``x``
            elif type(node) is cst.Subscript:
                stack.append((node.value, up, upper))  # a slice of ``x`` stands where ``x`` would
                stack.extend((child, node, up) for child in node.slice)
            else:
                stack.extend((child, node, up) for child in code_children(node))
        return uses > 0

    def _gives_indices(self, arg: cst.Arg, call) -> bool:
        """``arg`` is the logits of a sampler or the input of ``argmax`` or ``top_k``."""
        name = self.context.tf_name(call.func) if type(call) is cst.Call else None
        if name is None:
            return False
        if name.path in SAMPLERS:
            return call_arg(call, 0, "logits") is arg
        return name.path in ARGMAX | TOP_K and call_arg(call, 0, "input") is arg
