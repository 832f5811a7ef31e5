"""Which assignment a name read where the traversal is holds, in code that runs in order.

``out = tf.layers.dense(x, 10)``, then ``out = tf.nn.softmax(out)``, then ``tf.log(out)``: a
name assigned several times has one value at each read when every assignment of it in its scope
runs once, in order (statements of the scope's body and of its ``with`` blocks, not under
``if``, a loop or ``try``: ``Assigned.position``), and the read is in the same scope.  The read
is placed by the statement around the node being visited (the traversal's ancestors), or, for a
name inside a value an earlier answer reached (the ``out`` of ``out = softmax(out)``), by the
position of that value's assignment: it reads the assignment before it, never its own output.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from .names import OTHER, Assigned, Binding, Scope
from .syntax import code_children, parameter

_BODIES = (cst.Module, cst.FunctionDef, cst.ClassDef)
_NESTED = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
MAX_BINDINGS = 64  # beyond this a name is a counter or a buffer, and not worth placing


class Reaching:
    """Answers for one context (passed in: a reference to it would be a cycle); keeps the names
    of the last statement it placed a read in."""

    def __init__(self):
        self._statement: Optional[cst.CSTNode] = None
        self._names: frozenset = frozenset()
        self._reached: Dict[int, Assigned] = {}  # answers whose names are not placed yet
        self._walked: Set[int] = set()
        self._placed: Dict[int, Tuple[Scope, Tuple[int, ...]]] = {}  # id(name) -> its scope, position

    def reached(self, binding: Binding) -> None:
        """An answer's binding: the names read in its value are read at its position."""
        if type(binding) is Assigned and binding.position is not None and id(binding) not in self._walked:
            self._reached[id(binding)] = binding

    def value(self, context, name: cst.Name, bindings: Sequence[Binding]) -> Optional[Binding]:
        """The assignment of ``name`` that reaches this read, when certain (a parameter: OTHER)."""
        scope = context.scope
        if len(bindings) > MAX_BINDINGS or type(scope.node) not in _BODIES or context.owner(
                name.value) is not scope:
            return None
        # a parameter is bound before the body runs (``*args`` / ``**kwargs`` are not placed)
        first = 1 if bindings[0] is OTHER and type(scope.node) is cst.FunctionDef and parameter(
            scope.node, name.value) is not None else 0
        assigned = bindings[first:]
        if not assigned or any(type(b) is not Assigned or b.position is None for b in assigned):
            return None
        here = self._position(context, name) or self._position_in_reached(scope, name)
        if here is None:
            return None
        before = [b for b in assigned if b.position < here]
        if before:
            return before[-1]  # bindings are recorded in source order
        return bindings[0] if first else None  # read before any assignment: the parameter (OTHER)

    def _position_in_reached(self, scope, name: cst.Name) -> Optional[Tuple[int, ...]]:
        for key, binding in self._reached.items():
            self._walked.add(key)
            stack = [binding.value]
            while stack:  # nested scopes (lambdas, comprehensions) read their names elsewhere
                node = stack.pop()
                if type(node) is cst.Name:
                    self._placed[id(node)] = (binding.scope, binding.position)
                elif not isinstance(node, _NESTED):
                    stack.extend(code_children(node))
        self._reached.clear()
        placed = self._placed.get(id(name))
        return placed[1] if placed is not None and placed[0] is scope else None

    def _position(self, context, name: cst.Name) -> Optional[Tuple[int, ...]]:
        """The position of the statement around the visited node (as ``Assigned.position``), if
        ``name`` is in it."""
        ancestors, scope_node = context.ancestors, context.scope.node
        start = next((i for i in range(len(ancestors) - 1, -1, -1) if ancestors[i] is scope_node), None)
        if start is None:
            return None
        if type(scope_node) is cst.Module:
            statements, at = scope_node.body, start + 1
        else:
            body = scope_node.body
            if start + 1 >= len(ancestors) or ancestors[start + 1] is not body or type(body) is not cst.IndentedBlock:
                return None  # decorators, parameters, a one-line body
            statements, at = body.body, start + 2
        path: Tuple[int, ...] = ()
        while at < len(ancestors):
            statement = ancestors[at]
            index = _index(statements, statement)
            if index is None:
                return None
            if type(statement) is cst.SimpleStatementLine:
                small = _index(statement.body, ancestors[at + 1]) if at + 1 < len(ancestors) else None
                if small is None:
                    return None
                return (*path, index, small) if self._holds(statement.body[small], name) else None
            block = statement.body if type(statement) is cst.With else None
            if block is not None and type(block) is cst.IndentedBlock and at + 1 < len(ancestors) \
                    and ancestors[at + 1] is block:
                path, statements, at = (*path, index), block.body, at + 2
                continue
            return (*path, index) if self._holds(statement, name) else None
        return None

    def _holds(self, statement: cst.CSTNode, name: cst.Name) -> bool:
        if statement is not self._statement:
            found: List[int] = []
            stack = [statement]
            while stack:
                node = stack.pop()
                if type(node) is cst.Name:
                    found.append(id(node))
                else:
                    stack.extend(code_children(node))
            self._statement, self._names = statement, frozenset(found)
        return id(name) in self._names


def _index(items, item) -> Optional[int]:
    return next((i for i, each in enumerate(items) if each is item), None)
