"""The one assignment a name holds where it is read, when the statements before the read show it.

Walking back from the read through the statements before it in its block, then out through the
blocks around it up to its function, the first statement that touches the name decides: a plain
assignment (``loss = ...``, ``image, label = ...``) is what every run reads there; a statement
that binds or fills it otherwise (under ``if``, in a loop or ``try``, ``+=``, ``losses.append``)
leaves it unknown, as does a loop around the read that touches it (the next iteration's value) or,
for a read in an ``except`` handler, its ``try``.
A ``with`` block before the read is searched from its end.  So of ``loss`` bound in both
branches of an ``if``, a read in the ``else`` branch after its own assignment holds that one.

``reaching.Reaching`` answers the same question for the semantic model, for the read the traversal
is at and only when every assignment of the name runs once, in order; this walk answers for any
path, and so for the names a device scope's value reads, followed from assignment to assignment.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import libcst as cst

from .loops import bound_names
from .syntax import MUTATORS, bindings_in, code_children

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_UNKNOWN = object()  # the search stops without an answer


def holding_assignment(name: str, path: Sequence[cst.CSTNode]) -> Optional[Tuple[cst.Assign, List[cst.CSTNode]]]:
    """The assignment ``name`` holds at the last node of ``path`` (its ancestors, outermost
    first), with the path to that assignment's statement; None when the code does not show one."""
    for depth in range(len(path) - 1, 0, -1):
        node, parent = path[depth], path[depth - 1]
        if isinstance(parent, _SCOPES):
            return None
        if isinstance(parent, (cst.For, cst.While)) and _touches(parent, name) or isinstance(
                parent, (cst.With, cst.ExceptHandler)) and name in _header_names(parent) or isinstance(
                parent, cst.Try) and node is not parent.body and _touches(parent, name):
            return None
        if isinstance(parent, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and _last_small(
                parent, parent.body[:_index(parent.body, node)], name) is not None:
            return None  # ``loss = f(); opt.minimize(loss)``: rare, left unknown
        if isinstance(parent, (cst.Module, cst.IndentedBlock)):
            found = _last(parent.body[:_index(parent.body, node)], name, list(path[:depth]))
            if found is not None:
                return None if found is _UNKNOWN else found
    return None


def _index(items, item) -> int:
    return next((i for i, s in enumerate(items) if s is item), 0)


def _last(statements, name: str, path: List[cst.CSTNode]):
    """The last statement of ``statements`` that touches ``name``: its assignment (and path),
    _UNKNOWN when it touches it otherwise, None when none does."""
    for statement in reversed(statements):
        if type(statement) is cst.With and type(statement.body) is cst.IndentedBlock:
            found = _last(statement.body.body, name, path + [statement, statement.body])
            if found is not None:
                return found
            if name in _header_names(statement):
                return _UNKNOWN
            continue
        if type(statement) is cst.SimpleStatementLine:  # the last small statement touching it decides
            small = _last_small(statement, statement.body, name)
            if small is not None:
                return (small, path + [statement]) if type(small) is cst.Assign and not _fills(
                    small, name) else _UNKNOWN
        elif _touches(statement, name):
            return _UNKNOWN
    return None


def _last_small(line, smalls, name: str):
    """The last of ``smalls`` (small statements of ``line``) that binds or fills ``name``, or None."""
    bound = {id(node) for n, node in bindings_in([line]) if n == name}
    return next((small for small in reversed(smalls) if id(small) in bound or _fills(small, name)), None)


def _touches(node: cst.CSTNode, name: str) -> bool:
    return any(n == name for n, _ in bindings_in([node])) or _fills(node, name)


def _fills(node: cst.CSTNode, name: str) -> bool:
    """``name.append(...)`` or another in-place change of a container, or ``name[i] = ...``, in ``node``."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Call and type(current.func) is cst.Attribute and current.func.attr.value in MUTATORS \
                and type(current.func.value) is cst.Name and current.func.value.value == name:
            return True
        if kind is cst.AssignTarget and type(current.target) is cst.Subscript and type(
                current.target.value) is cst.Name and current.target.value.value == name:
            return True
        stack.extend(code_children(current))
    return False


def _header_names(node) -> set:
    """Names a ``with`` binds (``as scope``) or an ``except`` handler binds."""
    if type(node) is cst.ExceptHandler:
        return bound_names(node.name.name) if node.name else set()
    return {n for item in node.items if item.asname for n in bound_names(item.asname.name)}
