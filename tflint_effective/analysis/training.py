"""Whether a module differentiates anything: an optimizer, a gradient, a Keras training call.

A hand-written loss at module level (a script, a notebook's cells) in a module that never trains
nor differentiates is only evaluated: a lesson printing the formula beside the library's op, a
cost printed while hand-written gradients train, a restored model's metrics.  Its -inf shows in
a printed value, no NaN gradient reaches a weight (TFE402-TFE404 say so at info).  Anything that
looks like training counts, spelled by any module: an optimizer, ``minimize``, a gradient,
``GradientTape``, an estimator's spec, Keras ``compile`` / ``fit``.  A loss inside a function may
be returned to a trainer elsewhere: it is never taken for an evaluated one.  A loss a TF1 script builds
but never runs is info too (``session_runs.never_run``), and so is one a script trains only on a few
data points written in it (``toy_data``): its logits stay small.
"""
from __future__ import annotations

import libcst as cst

from ..levels import INFO
from .session_runs import never_run
from .syntax import descendants, leaf_name


TRAINING_CALLS = frozenset({
    "minimize", "compute_gradients", "apply_gradients", "gradients", "gradient", "hessians", "jacobian",
    "batch_jacobian", "value_and_gradient", "get_gradients", "get_updates", "optimize_loss", "create_train_op",
    "compile", "fit", "fit_generator", "train_on_batch", "train", "train_and_evaluate",
})
TRAINING_NAMES = frozenset({"GradientTape", "EstimatorSpec", "ModelFnOps", "TrainSpec"})
# appended to the message of a finding in module-level code of a module that trains nothing
ONLY_EVALUATED = " (only evaluated: nothing in this module differentiates it, so only its value can be inf)"
NEVER_RUN = " (never run: nothing this script runs, evaluates or hands on is built from it)"
TOY_DATA = (" (toy data: this script feeds only a few data points written in it, so its outputs stay far from "
            "saturation here; the formula still fails on real data)")
_DEFINITIONS = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def trains(module: cst.Module) -> bool:
    """The module spells a training or differentiating call, an optimizer or a gradient tape."""
    for node in descendants(module):
        name = leaf_name(node)
        if name is not None and (name in TRAINING_NAMES or name.endswith("Optimizer")):
            return True
        if type(node) is cst.Call and leaf_name(node.func) in TRAINING_CALLS:
            return True
    return False


def evaluated(context, message: str):
    """``(message, severity)`` of an unguarded finding: info with a note in module-level code of a module
    that trains nothing (only evaluated), of a script none of whose runs may be built from it
    (``session_runs.never_run``) or of one that feeds only literal data (``toy_data``), else the rule's
    own (None)."""
    if any(type(node) in _DEFINITIONS for node in context.ancestors):
        return message, None
    if not context.module_trains:
        return message + ONLY_EVALUATED, INFO
    if never_run(context):
        return message + NEVER_RUN, INFO
    return (message + TOY_DATA, INFO) if context.toy_data else (message, None)
