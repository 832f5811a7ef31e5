"""What one call of a function of the module returns, given what the call passes.

The call's arguments decide the function's tests of a parameter against None (``if act is None:``,
``if act:``, ``if not act:``, ``is not None``): only the branches the call can take are read.  The
one ``return`` left is seen through the one assignment left of the name it returns.  A returned
call of a parameter applies what the call passes for it, as the layer helpers of many tutorials
do (``add_layer(x, 784, 10, activation_function=tf.nn.softmax)`` returning
``activation_function(Wx_plus_b)``).
"""
from __future__ import annotations

from typing import Callable, Dict, NamedTuple, Optional, Tuple, Union

import libcst as cst

from .names import OTHER, Assigned, Scope
from .syntax import code_children, ends_with_jump, is_none

Value = Tuple[cst.BaseExpression, Scope]


class Returned(NamedTuple):
    value: cst.BaseExpression
    scope: Scope  # the function's
    applied: Optional[Value]  # what the call passes for the parameter ``value`` calls, if it calls one


def live_return(function: cst.FunctionDef, scope: Scope, arguments: Dict[str, Value],
                is_function: Callable[[cst.BaseExpression, Scope], bool]) -> Optional[Returned]:
    """The value ``function`` (its scope ``scope``) returns when its parameters hold ``arguments``
    (passed or default); ``is_function`` tells an argument that is certainly a function."""
    def not_none(name: str) -> Optional[bool]:
        argument = arguments.get(name)
        if argument is None:
            return None
        return False if is_none(argument[0]) else (True if is_function(*argument) else None)

    returns, assigned = [], set()
    stack = [function.body]
    while stack:
        node = stack.pop()
        kind = type(node)  # concrete node classes: cheaper than isinstance on libcst's ABCs
        if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
            continue
        if kind is cst.Yield or kind is cst.Await:
            return None
        if kind is cst.Return:
            returns.append(node.value)
        elif kind is cst.Assign:
            assigned.add(id(node.value))
        elif kind is cst.If:
            branch = _taken(node, not_none)
            if branch is not False:
                stack.extend(() if branch is None else (branch,))
                continue
        elif kind is cst.IndentedBlock:  # what follows a taken branch that returns cannot run
            statements = list(node.body)
            ends = [i for i, s in enumerate(statements) if type(s) is cst.If and _taken_jumps(s, not_none)]
            stack.extend(statements[:ends[0] + 1] if ends else statements)
            continue
        stack.extend(code_children(node))
    if len(returns) != 1 or returns[0] is None:
        return None
    value = returns[0]
    if type(value) is cst.Name:
        bindings = scope.bindings.get(value.value, ())
        if not all(type(b) is Assigned for b in bindings):
            return None
        live = [b.value for b in bindings if id(b.value) in assigned]
        if len(live) != 1:
            return None
        value = live[0]
    applied = None
    if type(value) is cst.Call and type(value.func) is cst.Name and scope.bindings.get(value.func.value) == [OTHER]:
        applied = arguments.get(value.func.value)  # a parameter the function never rebinds
    return Returned(value, scope, applied)


def _taken(node: cst.If, not_none) -> Union[None, bool, cst.CSTNode]:
    """The branch of ``node`` the call takes (None: an ``else`` it does not have); False if undecided."""
    taken = _decided(node.test, not_none)
    if taken is None:
        return False
    return node.body if taken else node.orelse


def _taken_jumps(node: cst.If, not_none) -> bool:
    branch = _taken(node, not_none)
    suite = branch.body if type(branch) is cst.Else else branch
    return isinstance(suite, cst.BaseSuite) and ends_with_jump(suite)


def _decided(test: cst.BaseExpression, not_none: Callable[[str], Optional[bool]]) -> Optional[bool]:
    """Whether ``test`` holds, when it tests a parameter whose None-ness the call decides."""
    kind = type(test)
    if kind is cst.Name:
        return not_none(test.value)  # a function is true, None false
    if kind is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = _decided(test.expression, not_none)
        return None if inner is None else not inner
    if kind is cst.Comparison and len(test.comparisons) == 1 and type(test.left) is cst.Name:
        target = test.comparisons[0]
        if not is_none(target.comparator):
            return None
        known = not_none(test.left.value)
        operator = type(target.operator)
        if known is None or operator not in (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual):
            return None
        return known if operator in (cst.IsNot, cst.NotEqual) else not known
    return None
