"""Flow-sensitive kinds of names within a function (part of the semantic model).

Each function (and the module) has a table name -> kind, updated as
assignments are left, so at any node the table describes the program point
before it.  Branches merge: a name keeps a kind only if every path reaching
the use agrees.  At a loop head, a name bound in the loop keeps its kind only
if every binding in the loop re-establishes it (checked to a fixed point
before the body is entered); after ``try`` the names bound in its body are
unknown to the handlers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Set, Tuple

import libcst as cst

from .kinds import SCALAR, TENSOR, arithmetic, merge
from .syntax import assigned_pairs, bindings_in, ends_with_jump, target_names


@dataclass
class _Frame:
    """Flow-sensitive kinds of the names a function (or the module) owns."""

    scope: object
    kinds: Dict[str, str] = field(default_factory=dict)
    escaped: Set[str] = field(default_factory=set)  # rebound by ``global`` / ``nonlocal``
    # Parameters not rebound yet, whose kind the module summaries give when first asked
    lazy: Set[str] = field(default_factory=set)


@dataclass
class _Branch:
    saved: Dict[str, str]
    outs: List[Dict[str, str]] = field(default_factory=list)
    after_body: Optional[Dict[str, str]] = None  # try: the normal path
    else_jumps: bool = False  # if: the else block never falls through
    merged: bool = False


def _refines(kind: Optional[str], hypothesis: Optional[str]) -> bool:
    return kind == hypothesis or (hypothesis == TENSOR and kind == SCALAR)


def _merge_all(envs: List[Optional[Dict[str, str]]]) -> Dict[str, str]:
    envs = [env for env in envs if env is not None]
    if not envs:
        return {}
    result = dict(envs[0])
    for env in envs[1:]:
        for name in list(result):
            kind = merge(result[name], env.get(name))
            if kind is None:
                del result[name]
            else:
                result[name] = kind
    return result


class Flow:
    """The visitor methods that keep ``frames[-1].kinds`` right at every program point."""

    frames: List[_Frame]
    branches: List[_Branch]
    loops: List[Dict[str, str]]

    # == bindings =========================================================
    @property
    def env(self) -> Dict[str, str]:
        return self.frames[-1].kinds

    def _set_env(self, kinds: Dict[str, str]) -> None:
        self.frames[-1].kinds = kinds
        self._cache.clear()

    def _bind(self, pairs: Iterable[Tuple[str, Optional[str]]]) -> None:
        frame = self.frames[-1]
        for name, kind in list(pairs):
            if self.context.owner(name) is not frame.scope:
                continue  # a class attribute, a global: judged flow-insensitively
            frame.lazy.discard(name)
            if kind is None or name in frame.escaped:
                frame.kinds.pop(name, None)
            else:
                frame.kinds[name] = kind
        self._cache.clear()

    def _kill(self, bindings: Iterable[Tuple[str, object]]) -> None:
        self._bind((name, None) for name, _ in bindings)

    def leave_Assign(self, node: cst.Assign) -> None:
        self._bind((name, self._value_kind(value)) for target in node.targets
                   for name, value in assigned_pairs(target.target, node.value))

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind((name, self._value_kind(value)) for name, value in assigned_pairs(node.target, node.value))

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind([(name, self._augmented_kind(node)) for name in target_names(node.target)])

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind((name, self.kind(node.value)) for name in target_names(node.target))

    def leave_Del(self, node: cst.Del) -> None:
        self._kill((name, node) for name in target_names(node.target))

    def visit_AsName(self, node: cst.AsName) -> None:
        if isinstance(self.context.parent, cst.WithItem):
            self._kill((name, node) for name in target_names(node.name))

    def _value_kind(self, value: Optional[cst.BaseExpression]) -> Optional[str]:
        return None if value is None else self.kind(value)

    def _augmented_kind(self, node: cst.AugAssign) -> Optional[str]:
        operator = type(node.operator).__name__.replace("Assign", "")
        if not isinstance(node.target, cst.Name):
            return None
        return arithmetic(operator, self.kind(node.target), self.kind(node.value))

    # == control flow =====================================================
    def visit_If(self, node: cst.If) -> None:
        self.branches.append(_Branch(dict(self.env)))

    def leave_If(self, node: cst.If) -> None:
        branch = self.branches.pop()
        self._set_env(_merge_all([*branch.outs, None if branch.else_jumps else self.env]))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_block(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_block(node)

    def _enter_block(self, node: cst.BaseSuite) -> None:
        parent = self.context.parent
        if type(parent) is cst.If and parent.body is node and self._tests_eager(parent.test):
            self.function_mode[node] = "E"  # a graph or tf.function never runs it
            self.mode_stack.append(node)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._leave_block(node)

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._leave_block(node)

    def _leave_block(self, node: cst.BaseSuite) -> None:
        if self.mode_stack and self.mode_stack[-1] is node:
            self.mode_stack.pop()
        parent = self.context.parent
        kind = type(parent)  # exact types: isinstance of a libcst class goes through ABCMeta
        if kind is cst.If and parent.body is node:
            branch = self.branches[-1]
            if not ends_with_jump(node):
                branch.outs.append(self.env)
            self._set_env(dict(branch.saved))
        elif (kind is cst.Try or kind is cst.TryStar) and parent.body is node:
            self.branches[-1].after_body = self.env

    def visit_Try(self, node: cst.Try) -> None:
        branch = _Branch(dict(self.env))
        for name, _ in bindings_in(node.body.body):
            branch.saved.pop(name, None)  # a handler may start anywhere in the body
        self.branches.append(branch)

    visit_TryStar = visit_Try

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._set_env(dict(self.branches[-1].saved))
        if node.name is not None:
            self._kill((name, node) for name in target_names(node.name.name))

    visit_ExceptStarHandler = visit_ExceptHandler

    def leave_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if not ends_with_jump(node.body):
            self.branches[-1].outs.append(self.env)

    leave_ExceptStarHandler = leave_ExceptHandler

    def visit_Else(self, node: cst.Else) -> None:
        parent = self.context.parent
        if isinstance(parent, (cst.Try, cst.TryStar)):
            self._set_env(self.branches[-1].after_body)
        elif isinstance(parent, (cst.For, cst.While)):
            self._set_env(dict(self.loops[-1]))  # runs when the loop head exits

    def leave_Else(self, node: cst.Else) -> None:
        parent = self.context.parent
        if isinstance(parent, (cst.Try, cst.TryStar)):
            self.branches[-1].after_body = self.env
        elif isinstance(parent, cst.If):
            self.branches[-1].else_jumps = ends_with_jump(node.body)

    def visit_Finally(self, node: cst.Finally) -> None:
        branch = self.branches[-1]
        self._set_env(_merge_all([branch.after_body, *branch.outs]))
        branch.merged = True

    def leave_Try(self, node: cst.Try) -> None:
        branch = self.branches.pop()
        if not branch.merged:
            self._set_env(_merge_all([branch.after_body, *branch.outs]))

    leave_TryStar = leave_Try

    def visit_Match(self, node: cst.Match) -> None:
        self.branches.append(_Branch(dict(self.env)))

    def visit_MatchCase(self, node: cst.MatchCase) -> None:
        self._set_env(dict(self.branches[-1].saved))

    def leave_MatchCase(self, node: cst.MatchCase) -> None:
        self.branches[-1].outs.append(self.env)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self._kill([(node.name.value, node)])

    def leave_Match(self, node: cst.Match) -> None:
        branch = self.branches.pop()
        self._set_env(_merge_all([*branch.outs, branch.saved]))

    def visit_For(self, node: cst.For) -> None:
        self._enter_loop([node], node)

    def visit_While(self, node: cst.While) -> None:
        self._enter_loop(node.body.body, node)

    def _enter_loop(self, statements, node) -> None:
        """Kinds at the loop head: a name bound in the loop keeps its kind only if
        every binding in the loop gives it again, assuming the others do (fixed point)."""
        bound = list(bindings_in(statements if isinstance(node, cst.While) else [node]))
        if isinstance(node, cst.While) and node.orelse is not None:
            bound += bindings_in(node.orelse.body.body)
        self.frames[-1].lazy.difference_update(name for name, _ in bound)
        head = dict(self.env)
        changed = True
        while changed:
            changed = False
            self._set_env(head)
            for name, binding in bound:
                if name in head and not _refines(self._binding_kind(name, binding), head[name]):
                    kind = merge(head.pop(name), self._binding_kind(name, binding))
                    if kind is not None:
                        head[name] = kind
                    changed = True
                    break
        self._set_env(dict(head))
        self.loops.append(head)

    def _binding_kind(self, name: str, binding: cst.CSTNode) -> Optional[str]:
        if isinstance(binding, cst.Assign):
            kinds = [self._value_kind(value) for target in binding.targets
                     for bound, value in assigned_pairs(target.target, binding.value) if bound == name]
            return kinds[0] if len(set(kinds)) == 1 else None
        if isinstance(binding, cst.AnnAssign):
            return next((self._value_kind(v) for n, v in assigned_pairs(binding.target, binding.value) if n == name),
                        None)
        if isinstance(binding, cst.AugAssign):
            return self._augmented_kind(binding)
        return None

    def leave_For(self, node: cst.For) -> None:
        self._set_env(dict(self.loops.pop()))

    leave_While = leave_For
