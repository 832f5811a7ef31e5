"""Loop counters: names that hold a Python ``int`` because every binding of them in their scope
is the target of ``for name in range(...)`` or the index of ``for name, item in enumerate(...)``
(statements and comprehensions).

Part of the semantic model: a call that passes a counter (or a number) shows that a
parameter documented as a ``Tensor`` is given Python numbers too (``summaries.py``).
"""
from __future__ import annotations

import libcst as cst

from .loops import is_builtin
from .names import NESTED_SCOPES, Scope
from .syntax import code_children

_COUNTING = {"range": 0, "xrange": 0, "enumerate": 1}  # builtin -> elements in its loop's target


def is_counter(expr: cst.BaseExpression, scope: Scope, context) -> bool:
    """``expr`` is a name every binding of which, in the scope that owns it, is a loop counter."""
    if type(expr) is not cst.Name:
        return False
    owner = context.owner(expr.value, scope)
    if owner is None or owner.is_class or expr.value in owner.global_names:
        return False
    counters = sum(1 for loop in _loops(owner.node) if _counts(loop, expr.value, owner, context))
    return counters == len(owner.bindings[expr.value])


def _counts(loop, name: str, scope: Scope, context) -> bool:
    call = loop.iter
    if type(call) is not cst.Call or type(call.func) is not cst.Name \
            or not is_builtin(context, call.func, call.func.value, scope):
        return False
    elements = _COUNTING.get(call.func.value)
    target = loop.target
    if elements == 0:
        return type(target) is cst.Name and target.value == name
    if elements == 1 and type(target) in (cst.Tuple, cst.List) and len(target.elements) == 2:
        index = target.elements[0].value
        return type(index) is cst.Name and index.value == name
    return False


def _loops(root: cst.CSTNode):
    """The ``for`` statements and clauses of the scope ``root`` opens, not of the scopes nested in it."""
    stack = list(code_children(root))
    while stack:
        node = stack.pop()
        if isinstance(node, NESTED_SCOPES):
            continue
        if type(node) is cst.For or type(node) is cst.CompFor:
            yield node
        stack.extend(code_children(node))
