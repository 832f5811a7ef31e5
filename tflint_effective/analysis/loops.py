"""Python loops around a node, and the names an expression reads.

Shared by the rules that care about work repeated per iteration of a loop the
interpreter runs (TFE201) or about device scopes that change with a loop
variable (TFE501, TFE502).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional, Sequence, Set, Union

import libcst as cst

from .names import COMPREHENSIONS, FUNCTION_LIKE
from .syntax import bindings_in

LoopNode = Union[cst.For, cst.CompFor]


@dataclass(frozen=True)
class Loop:
    node: LoopNode  # a ``for`` statement or one ``for`` clause of a comprehension
    targets: frozenset

    @property
    def iter(self) -> cst.BaseExpression:
        return self.node.iter

    @property
    def is_statement(self) -> bool:
        return isinstance(self.node, cst.For)

    @property
    def varying(self) -> frozenset:
        """Names that may hold a new value in each iteration: the targets and, for a
        ``for`` statement, every name its body binds."""
        if not self.is_statement:
            return self.targets
        body = self.node.body
        statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
        return self.targets | {name for name, _ in bindings_in(statements)}


def enclosing_loops(ancestors: Sequence[cst.CSTNode]) -> Iterator[Loop]:
    """Loops whose every iteration runs the last of ``ancestors``, innermost first.

    Only loops of the same function count: a loop outside a ``def`` or a
    ``class`` binds names that the body does not necessarily see.
    """
    for depth in range(len(ancestors) - 2, -1, -1):
        node, child = ancestors[depth], ancestors[depth + 1]
        if isinstance(node, (*FUNCTION_LIKE, cst.ClassDef)):
            return
        if isinstance(node, cst.For) and child is node.body:
            yield Loop(node, frozenset(bound_names(node.target)))
        elif isinstance(node, COMPREHENSIONS) and not _in_first_iterable(node, ancestors, depth):
            clause = node.for_in
            while clause is not None:
                yield Loop(clause, frozenset(bound_names(clause.target)))
                clause = clause.inner_for_in


def _in_first_iterable(comprehension, ancestors, depth) -> bool:
    """The outermost iterable of a comprehension is evaluated once, outside it."""
    path = ancestors[depth + 1:depth + 3]
    first = comprehension.for_in
    return len(path) == 2 and path[0] is first and path[1] is first.iter


def bound_names(target: cst.BaseExpression) -> Set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(bound_names(e.value) for e in target.elements))
    if isinstance(target, cst.StarredElement):
        return bound_names(target.value)
    return set()


def names_in(nodes: Iterable[cst.CSTNode]) -> Set[str]:
    """Variable names read in ``nodes`` (not attribute or keyword names)."""
    found: Set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            found.add(node.value)
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        elif isinstance(node, cst.Arg):
            stack.append(node.value)
        else:
            stack.extend(node.children)
    return found


def is_builtin(context, func: cst.BaseExpression, name: str) -> bool:
    """``func`` is the builtin ``name``: nothing in scope rebinds it, no star import."""
    if not (isinstance(func, cst.Name) and func.value == name):
        return False
    scope = context.scope
    return context.owner(name, scope) is None and not context.module_scope.star_import


def range_arguments(context, iterable: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
    """The arguments of a builtin ``range(...)`` call; None for anything else."""
    if (isinstance(iterable, cst.Call) and is_builtin(context, iterable.func, "range")
            and not any(arg.star or arg.keyword for arg in iterable.args)):
        return [arg.value for arg in iterable.args]
    return None


def is_python_int(context, expr: cst.BaseExpression) -> bool:
    """Certainly a Python int when traced: literals, ``len(...)``, ``x.shape[0]``, arithmetic."""
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, cst.Name):
        value = context.assigned_value(expr)
        return value is not None and is_python_int(context, value)
    if isinstance(expr, cst.UnaryOperation):
        return is_python_int(context, expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return is_python_int(context, expr.left) and is_python_int(context, expr.right)
    if isinstance(expr, cst.Call):
        return is_builtin(context, expr.func, "len")
    return (isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute)
            and expr.value.attr.value == "shape")
