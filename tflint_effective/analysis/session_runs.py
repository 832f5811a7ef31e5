"""What a TF1 script runs: what its session runs and evaluations fetch, and what it hands to functions or to
the graph's collections, followed back through its assignments, attributes and functions (``fetches.reached``).

A loss written at module level of a script that makes a session, from which nothing the script runs,
evaluates, hands on or collects may be built, never runs: a tutorial step that builds the graph and stops, a
restore script that only evaluates accuracy, a training loop left commented out.  A fetch that is not a name,
an attribute, a container of them or a TensorFlow op of them (``sess.run(build())``) leaves nothing known; a
name or attribute the module never assigns cannot be built from its module-level code.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from .fetches import DEFS, Reach, Scope, reached
from .syntax import call_arg, code_children, descendants

# method calls that build ops from their arguments (``opt.minimize(loss)``): no run, no hand-off
OP_BUILDERS = frozenset({"minimize", "compute_gradients", "apply_gradients", "assign", "assign_add", "assign_sub"})
# TensorFlow APIs that keep their arguments where a later run finds them without naming them
COLLECTING = ("summary", "add_to_collection", "add_loss", "control_dependencies")
SESSIONS = frozenset({"Session", "InteractiveSession", "MonitoredSession", "MonitoredTrainingSession"})


def script_runs(context) -> Optional[Reach]:
    """What the module's runs may be built from, when it makes a session and every fetch is known."""
    roots: List[Tuple[cst.BaseExpression, Scope]] = []
    session = False
    todo: List[Tuple[cst.CSTNode, Scope]] = [(context.module, None)]
    while todo:
        node, scope = todo.pop()
        if type(node) is cst.Call:
            func = node.func
            name = context.tf_name(func, context.module_scope)
            session = session or (name is not None and name.leaf in SESSIONS)
            method = func.attr.value if type(func) is cst.Attribute else None
            if method in ("run", "eval"):  # ``sess.run(op)``, ``op.run(feed)``, ``t.eval()``: either may be fetched
                fetched = call_arg(node, 0, "fetches")
                parts = [func.value] if fetched is None else [func.value, fetched.value]
                if not all([_root(context, part, scope, roots) for part in parts]):
                    return None
            elif _hands_on(name, method):
                for arg in node.args:
                    _root(context, arg.value, scope, roots, fetch=False)
        todo.extend((child, node if type(node) in DEFS else scope) for child in code_children(node))
    return reached(context.module, roots, strict=False) if session else None


def _hands_on(name, method: Optional[str]) -> bool:
    """A call that may run what it is given: a function (not a TensorFlow op nor a method building ops),
    or an API that collects its arguments for a later run (summaries, collections)."""
    return method not in OP_BUILDERS if name is None else any(word in name.path for word in COLLECTING)


def _root(context, expr: cst.BaseExpression, scope: Scope, roots, fetch: bool = True) -> bool:
    """Queue ``expr``; False when a fetch holds a call other than a TensorFlow op (a call handed to a
    function is seen on its own)."""
    if fetch and any(type(node) is cst.Call and context.tf_name(node.func, context.module_scope) is None
                     for node in descendants(expr)):
        return False
    roots.append((expr, scope))
    return True


def never_run(context) -> bool:
    """The module-level node the traversal is at belongs to a script none of whose runs may be built from it."""
    runs = context.script_runs
    return runs is not None and id(context.node) not in runs.nodes
