"""`GradientTape.gradient` of multi-device towers, called outside the towers' device scopes.

Why: a ``tf.GradientTape`` does not colocate: the backward ops built by
``tape.gradient`` run under the device scope active at that call.  When the
tape recorded towers on several devices (``with tf.device(...)`` per tower)
and ``tape.gradient`` is called after them, the whole backward pass runs on
one device (measured on TF 2.21, eager and ``tf.function``: every tower-1
backward op ran on the first device), so only the forward pass is parallel.
Take each tower's gradients inside its device scope (one tape per tower), use
``runtime_checks.tower_gradients``, or ``tf.distribute.MirroredStrategy``.
Severity: warning in eager mode and inside ``tf.function`` (slow, not wrong);
off in TF1 graph code, where TFE501 covers ``tf.compat.v1.gradients``.

Fix safety: none offered; moving the gradient into the towers restructures the
training step (one tape per tower, then averaging).

Known problems: only a tape opened by ``with tf.GradientTape(...) as tape`` and
bound once in its function is followed; towers built in a helper count when
the helper is defined earlier in the module (see ``device_scopes``).
"""
from typing import Dict, List, Tuple

import libcst as cst

from ..analysis.device_scopes import TowerTracker, Towers
from ..rule import WARNING, Rule, per_mode

TAPES = {"GradientTape", "autodiff.GradientTape"}


class TapeGradientOutsideTowers(Rule):
    """Tape gradient of multi-device towers taken outside their scopes: backward on one device."""

    CODE = "TFE502"
    MESSAGE = ("this tape recorded towers on several devices, but `tape.gradient` runs outside "
               "their device scopes, so the whole backward pass runs on one device; take each "
               "tower's gradient inside its `tf.device` scope, use "
               "`runtime_checks.tower_gradients`, or `tf.distribute.MirroredStrategy`")
    SEVERITY = per_mode(WARNING, G=None)
    NEEDS = ("GradientTape",)  # every tape it reads spells it
    BAD = """
        with tf.GradientTape() as tape:
            for i, device in enumerate(devices):
                with tf.device(device):
                    losses.append(model(x_parts[i]))
        grads = tape.gradient(tf.add_n(losses), model.trainable_variables)
    """
    GOOD = """
        for i, device in enumerate(devices):
            with tf.device(device):
                with tf.GradientTape() as tape:
                    loss = model(x_parts[i])
                grads.append(tape.gradient(loss, model.trainable_variables))
    """

    def setup(self) -> None:
        self.tracker = TowerTracker(self.context)
        self.tapes: Dict[Tuple[int, str], Towers] = {}  # (id of scope, tape name) -> its towers
        self.opened: List[cst.With] = []

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            name = self.context.tf_call(item.item)
            if name is not None and name.path in TAPES and item.asname is not None:
                if isinstance(item.asname.name, cst.Name):
                    towers = Towers()
                    self.tapes[(id(self.context.scope), item.asname.name.value)] = towers
                    self.tracker.regions.append((self.context.scope, towers))
                    self.opened.append(node)
            else:
                self.tracker.see_with(item)

    def leave_With(self, node: cst.With) -> None:
        while self.opened and self.opened[-1] is node:
            self.opened.pop()
            self.tracker.regions.pop()

    def visit_Call(self, node: cst.Call) -> None:
        self.tracker.see_call(node)
        func = node.func
        if not (type(func) is cst.Attribute and func.attr.value == "gradient"
                and type(func.value) is cst.Name):
            return
        tape = func.value.value
        owner = self.context.owner(tape)
        towers = self.tapes.get((id(owner), tape)) if owner is self.context.scope else None
        if (towers is not None and towers.multi and len(owner.bindings[tape]) == 1
                and not self.tracker.inside_tower(towers)):
            self.report(node)
