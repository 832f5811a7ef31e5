"""Source ranges of a few nodes, as libcst's PositionProvider gives them, without computing all."""
from __future__ import annotations

import contextlib
from typing import Dict, Iterable, List, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState  # private: code generation with positions
from libcst.metadata.position_provider import NEWLINE_RE


class _Done(Exception):
    """Every wanted range is known: the rest of the module need not be generated."""


class _PositionState(CodegenState):
    """libcst's PositionProvider, computed for a few nodes only.

    Code generation tracks the line and column everywhere (as the provider does)
    but records ranges only inside the wanted nodes, whose ranges may be hoisted
    from their children's, and stops once every wanted node has its range.
    """

    def __init__(self, module: cst.Module, wanted: Iterable[cst.CSTNode]):
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.line, self.column = 1, 0
        self.wanted = {id(node) for node in wanted}
        self.ranges: Dict[int, Tuple[Tuple[int, int], Tuple[int, int]]] = {}
        self.starts: List[Tuple[int, int]] = []
        self.depth = 0  # > 0 inside a wanted node
        self.remaining = len(self.wanted)

    def _advance(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)
        for token in self.indent_tokens:
            self._advance(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self._advance(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.depth or id(node) in self.wanted:
            self.depth += 1
            self.starts.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        if not self.depth:
            return
        self.depth -= 1
        start = self.starts.pop()
        key = id(node)
        if key not in self.ranges:  # a syntactic range recorded inside wins
            self.ranges[key] = (start, (self.line, self.column))
        if key in self.wanted:
            self.wanted.discard(key)
            if not self.wanted:
                raise _Done

    @contextlib.contextmanager
    def _syntactic(self, node, start_node, end_node):
        start = (self.line, self.column)
        try:
            yield
        finally:
            end = (self.line, self.column)
            if start_node is not None:
                start = self.ranges[id(start_node)][0]
            if end_node is not None:
                end = self.ranges[id(end_node)][1]
            self.ranges[id(node)] = (start, end)

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        if not self.depth:
            return _NOTHING
        return self._syntactic(node, start_node, end_node)


_NOTHING = contextlib.nullcontext()


def positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> Dict[int, Tuple[Tuple[int, int], Tuple[int, int]]]:
    """``id(node) -> ((line, column), (end line, end column))`` for ``nodes``: what
    libcst's PositionProvider gives them (line 1-based, column 0-based)."""
    state = _PositionState(module, nodes)
    if state.wanted:
        try:
            module._codegen(state)
        except _Done:
            pass
    return state.ranges
