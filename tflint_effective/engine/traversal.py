"""One depth-first walk of a parsed module calling every rule's visitor methods.

libcst's own ``visit`` rebuilds every node it passes; this walk reads the
fields and builds nothing, skipping whitespace, comments and punctuation unless
a visitor asks for one of those types.  Statements that follow a ``return``,
``raise``, ``continue`` or ``break`` in the same indented block never run and
are not walked: nothing is reported in them.  At a module's top level they are
(a notebook's cells run one at a time, so a ``raise`` ending one cell does not
stop the next).
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from ..analysis.context import SCOPE_NODES, Context
from ..analysis.syntax import JUMPS, fields_for_code, inherits

_JUMP_TYPES = frozenset(JUMPS)
# Whitespace, comments and punctuation: they hold nothing but more of the same.
TRIVIA = (cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.EmptyLine, cst.Newline,
          cst.Comment, cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.ImportStar,
          cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
          cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Asynchronous, cst.BaseBinaryOp,
          cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp)


class _FieldOrder(cst.CSTVisitor):
    """Records the fields libcst visits of one node, in its order (children are not entered)."""

    def __init__(self, node: cst.CSTNode):
        self.node = node
        self.fields: List[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node is self.node

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if node is self.node:
            self.fields.append(attribute)


_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}


def child_fields(node: cst.CSTNode) -> Tuple[str, ...]:
    """The fields of ``node`` in the order libcst's visitors see them (learnt once per type);
    fields libcst visits only when set (an f-string's ``format_spec``) come last."""
    kind = type(node)
    order = _CHILD_FIELDS.get(kind)
    if order is None:
        recorder = _FieldOrder(node)
        node.visit(recorder)
        order = tuple(dict.fromkeys([*recorder.fields, *(f.name for f in dataclasses.fields(kind))]))
        _CHILD_FIELDS[kind] = order
    return order


_CODE_FIELDS: Dict[type, Tuple[str, ...]] = {}


def code_fields(node: cst.CSTNode) -> Tuple[str, ...]:
    """``child_fields`` without those whose annotation admits only trivia, strings or sentinels
    (``lpar``, ``whitespace_*``, a ``Name``'s ``value``): a walk that skips trivia need not read them."""
    kind = type(node)
    fields = _CODE_FIELDS.get(kind)
    if fields is None:
        fields = _CODE_FIELDS[kind] = fields_for_code(kind, child_fields(node), TRIVIA)
    return fields


_VISITOR_NAMES: Dict[type, Tuple[str, ...]] = {}


def _visitor_names(kind: type) -> Tuple[str, ...]:
    """The ``visit_*`` / ``leave_*`` methods of a class that do something (what libcst's
    ``get_visitors`` returns, without its ``inspect.getmembers`` over every attribute of
    an instance, which cost 0.3 s per process): the names defined along the MRO, the
    nearest definition deciding, libcst's no-op stubs left out."""
    names: Dict[str, bool] = {}
    for klass in reversed(kind.__mro__):
        names.update(_defined(klass))
    return tuple(sorted(name for name, wanted in names.items() if wanted))


@functools.lru_cache(maxsize=None)
def _defined(klass: type) -> Dict[str, bool]:
    """Visitor names ``klass`` itself defines -> whether each does something (once per
    class: libcst's base classes define some 600 stubs)."""
    return {name: callable(value) and not getattr(value, "_is_no_op", False)
            for name, value in vars(klass).items() if name.startswith(("visit_", "leave_"))}


def _visitor_methods(visitor: cst.BatchableCSTVisitor) -> Dict[str, object]:
    kind = type(visitor)
    names = _VISITOR_NAMES.get(kind)
    if names is None:
        names = _VISITOR_NAMES[kind] = _visitor_names(kind)
    return {name: getattr(visitor, name) for name in names}


_IS_TRIVIA: Dict[type, bool] = {}


def _is_trivia(kind: type) -> bool:
    """``issubclass(kind, TRIVIA)``, memoized per type."""
    trivia = _IS_TRIVIA.get(kind)
    if trivia is None:
        trivia = _IS_TRIVIA[kind] = inherits(kind, TRIVIA)
    return trivia


class Traversal(cst.CSTVisitor):
    """One depth-first walk calling every visitor, in libcst's order, with the context
    kept up to date around each node.

    libcst's own ``visit`` rebuilds every node it passes (and validates it again);
    ``walk`` reads the fields and builds nothing.  It skips whitespace, comments
    and punctuation unless a visitor asks for one of those types.  Given to
    ``node.visit``, the traversal walks that node itself.
    """

    def __init__(self, context: Context, visitors: Sequence[cst.BatchableCSTVisitor]):
        self.context = context
        self.visits: Dict[str, list] = {}
        self.leaves: Dict[str, list] = {}
        for visitor in visitors:
            for name, method in _visitor_methods(visitor).items():
                kind, _, node_type = name.partition("_")  # visit_Call_func would never match
                table = self.visits if kind == "visit" else self.leaves
                table.setdefault(node_type, []).append(method)
        self.skip_trivia = not any(_is_trivia(getattr(cst, name, None)) for name in (*self.visits, *self.leaves))
        # the type of any value met in a field -> () when it is not walked, else its node type's plan:
        # (fields, visit methods, leave methods); around a node that may open or close a scope, the
        # context's own ``enter_scope`` runs first and its ``leave_scope`` last
        self.plans: Dict[type, tuple] = {}
        self.ancestors = context.ancestors  # the context's own list, kept here around every node

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.walk(node)
        return False

    def _plan(self, value) -> tuple:
        """The plan for a value's type: () for no node, skipped trivia, or a leaf that nothing
        visits (entering it and leaving it again would change nothing anyone sees)."""
        kind = type(value)
        plan = ()
        if isinstance(value, cst.CSTNode) and not (self.skip_trivia and _is_trivia(kind)):
            fields = code_fields(value) if self.skip_trivia else child_fields(value)
            visits, leaves = tuple(self.visits.get(kind.__name__, ())), tuple(self.leaves.get(kind.__name__, ()))
            if kind in SCOPE_NODES:
                visits, leaves = (self.context.enter_scope, *visits), (*leaves, self.context.leave_scope)
            if fields or visits or leaves:
                plan = (fields, visits, leaves)
        self.plans[kind] = plan
        return plan

    def walk(self, node: cst.CSTNode) -> None:
        plan = self.plans.get(type(node))
        plan = self._plan(node) if plan is None else plan
        if plan:
            self._walk(node, plan, self.ancestors[-1] if self.ancestors else None)
        self.context.parent = None  # outside the traversal

    def _walk(self, node: cst.CSTNode, plan: tuple, parent: Optional[cst.CSTNode]) -> None:
        fields, visits, leaves = plan
        plans, context = self.plans, self.context
        self.ancestors.append(node)
        if visits:
            context.parent = parent  # a plain attribute, read by most visitors: set for them
            for method in visits:
                method(node)
        for name in fields:
            value = getattr(node, name)
            kind = type(value)
            if kind is tuple or kind is list:
                block = type(node) is cst.IndentedBlock
                for item in value:
                    plan = plans.get(type(item))
                    if plan is None:
                        plan = self._plan(item)
                    if plan:
                        self._walk(item, plan, node)
                    if block and type(item) is cst.SimpleStatementLine and type(item.body[-1]) in _JUMP_TYPES:
                        break  # the rest of the block never runs
            else:
                plan = plans.get(kind)
                if plan is None:
                    plan = self._plan(value)
                if plan:
                    self._walk(value, plan, node)
        if leaves:
            context.parent = parent
            for method in leaves:
                method(node)
        self.ancestors.pop()
