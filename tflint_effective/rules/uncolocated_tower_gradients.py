"""Gradients of multi-device towers computed without `colocate_gradients_with_ops=True` (TF1).

Why: in TF1 graph mode a gradient op is placed by the device scope active
where ``tf.compat.v1.gradients``, ``Optimizer.compute_gradients`` or
``Optimizer.minimize`` is called, not where its forward op runs.  Called after
the towers, outside their ``tf.device`` scopes, the whole backward pass of
every tower lands on one device (measured on TF 2.21: every tower-1 gradient
op ran on the first device) and the towers only parallelise the forward pass.
``colocate_gradients_with_ops=True`` places each gradient op with its forward
op.  Computing each tower's gradients inside its device scope (the cifar10 and
inception multi-GPU pattern, or ``runtime_checks.tower_gradients``) is correct
and not reported.  Severity: warning in TF1 graph mode (slow, not wrong), off
elsewhere.  The TF2 ``tf.gradients`` always colocates and rejects the keyword
with a ``TypeError``: passing it there is reported as an error in every mode, in
code that shows TF2 evidence (``tf.function``, ``GradientTape``, Keras subclasses,
TF2-only APIs).  Without it the keyword says the code was written for TF 1.x, whose
``tf.gradients`` takes it, even when the module itself spells no TF 1.x-only name
(a helper of a TF1 project).

Fix safety: safe.  ``colocate_gradients_with_ops=True`` is added as the last
argument; it changes where gradient ops run, never their values.  For the TF2
``tf.gradients`` the keyword is removed when it is ``True`` (TF2 already
colocates); an explicit ``False`` is reported without a fix in both cases.

Known problems: towers are recognised in the function that builds them or
calls a tower helper defined earlier in the module (see ``device_scopes``);
gradients taken in another function, optimizers reached through attributes
other than one its class assigns once (``self.opt = tf.train.AdamOptimizer(lr)``) and keywords passed
through ``**kwargs`` are not seen.
Plain ``tf.gradients`` is TF1's (no colocation) in a module that spells TF 1.x-only
names at the root (``tf.placeholder``, ``tf.Session``, ``tf.train.AdamOptimizer``),
TF2's otherwise.  The loss is traced back, through names assigned in the same
function and lists appended to, to values built under the towers' device scopes:
a loss built under one of them only (the others computing something else) is not
reported; a loss returned by a tower-building helper counts as built on all.  Where
the statements before a read show the one assignment it holds (``analysis.holding``),
only that one is followed: the loss of a single-device ``else`` branch is that
branch's own, not the towers' of the ``if`` branch.
"""
import libcst as cst

from ..analysis.device_scopes import TowerTracker
from ..analysis.loops import bound_names
from ..analysis.syntax import call_arg, has_star_args
from ..rule import ERROR, SAFE, WARNING, Fix, Rule, per_mode

KEYWORD = "colocate_gradients_with_ops"
# Position of the keyword among the positional parameters (after self).
POSITION = {"gradients": 4, "compute_gradients": 4, "minimize": 5}


class UncolocatedTowerGradients(Rule):
    """Tower gradients taken outside the towers without colocation: backward pass on one device."""

    CODE = "TFE501"
    MESSAGE = ("gradients of multi-device towers taken outside the towers' device scopes run on "
               f"one device; pass `{KEYWORD}=True` or compute each tower's gradients inside its "
               "`tf.device` scope (`runtime_checks.tower_gradients`)")
    V2_MESSAGE = (f"TF2 `tf.gradients` always colocates and rejects `{KEYWORD}=` (TypeError); "
                  "remove it")
    SEVERITY = per_mode(None, G=WARNING)
    FIX_SAFETY = SAFE
    # towers are built under ``tf.device`` (or ``runtime_checks.make_parallel``); without them, only
    # ``tf.gradients``' keyword is reported
    NEEDS = ("device", "make_parallel", "gradients")
    EXAMPLE_HEADER = "import tensorflow.compat.v1 as tf\n"
    BAD = """
        optimizer = tf.train.AdamOptimizer(0.001)
        losses = []
        for i in range(2):
            with tf.device(f"/gpu:{i}"):
                losses.append(model(x_parts[i]))
        train_op = optimizer.minimize(tf.add_n(losses))
    """
    GOOD = """
        optimizer = tf.train.AdamOptimizer(0.001)
        losses = []
        for i in range(2):
            with tf.device(f"/gpu:{i}"):
                losses.append(model(x_parts[i]))
        train_op = optimizer.minimize(tf.add_n(losses), colocate_gradients_with_ops=True)
    """

    def setup(self) -> None:
        self.tracker = TowerTracker(self.context)

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            self.tracker.see_with(item)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.tracker.see_binding([n for t in node.targets for n in bound_names(t.target)], node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.tracker.see_binding(bound_names(node.target), node.value)

    def visit_Call(self, node: cst.Call) -> None:
        self.tracker.see_call(node)
        method = self._gradient_method(node)
        if method is None or has_star_args(node):
            return
        arg = call_arg(node, POSITION.get(method), KEYWORD)
        if method == "tf.gradients":  # TF1's in code written for TF 1.x, else TF2's (always colocated)
            tf1, tf2 = self.context.tf1_api_thunk(), self.context.tf2_thunk(node)
            if arg is not None:  # the keyword is TF1's: a TypeError only in code shown to be TF2 code
                fix = Fix(_without(node, arg), target=node) if _is_literal(arg, "True") else None
                self.report(arg, self.V2_MESSAGE, fix=fix, severity=ERROR, when=lambda: not tf1() and tf2())
                if _is_literal(arg, "False") and self._outside_towers(node):
                    self.report(node, when=tf1)
            elif self._outside_towers(node):
                self.report(node, fix=_with_keyword(node, KEYWORD, "True"), when=tf1)
        elif arg is not None:
            if _is_literal(arg, "False") and self._outside_towers(node):
                self.report(node)
        elif self._outside_towers(node):
            self.report(node, fix=_with_keyword(node, KEYWORD, "True"))

    def _gradient_method(self, node: cst.Call):
        name = self.context.tf_call(node)
        if name is not None and name.path == "gradients":
            return "gradients" if name.compat == "v1" else "tf.gradients"
        func = node.func
        if type(func) is cst.Attribute and func.attr.value in ("minimize", "compute_gradients"):
            receiver = func.value
            if type(receiver) is cst.Name:
                receiver = self.context.assigned_value(receiver)
            elif type(receiver) is cst.Attribute:  # ``self.opt`` its class assigns once
                receiver = (self.context.attribute_value(receiver) or (None,))[0]
            optimizer = self.context.tf_call(receiver) if receiver is not None else None
            if (optimizer is not None and optimizer.path.startswith("train.")
                    and optimizer.leaf.endswith("Optimizer")):
                return func.attr.value
        return None

    def _outside_towers(self, call: cst.Call) -> bool:
        """Taken outside the towers, of a loss built under two or more of their devices."""
        towers = self.tracker.towers()
        loss = call_arg(call, 0, "loss") or call_arg(call, 0, "ys")
        return (towers.multi and not self.tracker.inside_tower(towers) and loss is not None
                and self.tracker.spans_devices(loss.value, towers))


def _is_literal(arg: cst.Arg, value: str) -> bool:
    return isinstance(arg.value, cst.Name) and arg.value.value == value


def _with_keyword(call: cst.Call, keyword: str, value: str) -> cst.Call:
    """``call`` with one more keyword argument, in the layout of the existing ones."""
    new = cst.Arg(cst.Name(value), keyword=cst.Name(keyword), equal=cst.AssignEqual(
        cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    if isinstance(last.comma, cst.Comma):  # trailing comma: keep it at the end
        separator = args[-2].comma if len(args) > 1 else cst.Comma(
            whitespace_after=call.whitespace_before_args)
        args[-1], new = last.with_changes(comma=separator), new.with_changes(comma=last.comma)
    else:
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[*args, new])


def _without(call: cst.Call, arg: cst.Arg) -> cst.Call:
    args = [a for a in call.args if a is not arg]
    if args and call.args[-1] is arg:  # the last one: its comma (or none) now ends the call
        args[-1] = args[-1].with_changes(comma=arg.comma)
    return call.with_changes(args=args)
