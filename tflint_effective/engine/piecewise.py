"""Parse a large module a few statements at a time, to bound libcst's memory.

libcst's native parser holds about 0.8 MB per KB of the text it is given until
it returns (a 440 KB test file peaked at 390 MB), while the tree it returns is
a twentieth of that.  So a file longer than ``PIECE`` characters is cut between
top-level statements into pieces of at most that size, and a class or function
too big for one piece is cut between the statements of its body: each group is
parsed under a copy of the ``class ...:`` / ``def ...:`` line and its
statements are moved into the first group's node.  Cuts fall where libcst would
give the lines between two statements to the second one (the blocks that close
before it keep, as their footer, every line up to the last that starts with the
outermost one's indentation, as text), so the joined tree is the one
``libcst.parse_module`` builds from the whole text.  A block or a line ending
records its text only when it differs from the module's default indent or
newline, which libcst takes from the first indented block and the first line
ending it sees: every piece but the first is parsed after a two-statement
prelude that has the whole file's, then the prelude is dropped.  Anything unusual (a
tokenizer error, a lone ``\\r``, a form feed, a piece libcst refuses) and the
text is parsed whole, so errors read as before.

While parsing, libcst's per-node validation is switched off (``node_init.py``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Sequence, Tuple

import libcst as cst

from .node_init import unvalidated
from .token_scan import STRING

PIECE = 32_000  # characters libcst parses at once, where the file allows
_CLAUSES = {"else", "elif", "except", "finally"}  # continue a statement, never start one
_SPLITTABLE = (cst.ClassDef, cst.FunctionDef)


class _Unsplittable(Exception):
    pass


@dataclass(frozen=True)
class _Logical:
    start: int  # first physical line, 0-based
    end: int  # the physical line after its NEWLINE
    depth: int  # INDENTs open
    col: int  # column of its first token
    first: str  # its first token


def parse_module(source: str) -> cst.Module:
    with unvalidated():
        return _parse_module(source)


def _parse_module(source: str) -> cst.Module:
    if len(source) <= PIECE or "\f" in source or "\r" in source.replace("\r\n", ""):
        return cst.parse_module(source)
    try:
        return _Pieces(source).module()
    except (cst.ParserSyntaxError, _Unsplittable):
        return cst.parse_module(source)


class _Pieces:
    def __init__(self, source: str):
        self.source = source
        self.offsets = [0] + [match.end() for match in re.finditer("\n", source)] + [len(source)]
        self.lines, self.indent = _scan(source)
        newline = re.search("\r\n|\n", source)
        self.newline = newline.group() if newline else "\n"
        # parsed first, it makes libcst take the whole file's defaults for a piece
        self.prelude = f"if 1:{self.newline}{self.indent}pass{self.newline}None{self.newline}"

    def _parse(self, start: int, text: str) -> cst.Module:
        """``text``, which starts at offset ``start`` of the file, parsed as a module whose
        default indent and newline (what a block or a line ending that differs from them
        records) are the whole file's: the first piece has them already, the others are
        parsed after a prelude that has them, whose two statements are then dropped."""
        if start == 0:
            return cst.parse_module(text)
        module = cst.parse_module(self.prelude + text)
        return module.with_changes(body=module.body[2:])

    def module(self) -> cst.Module:
        starts = self._starts(0, len(self.lines), 0)
        if not starts:
            raise _Unsplittable  # comments only
        cuts = [0] + [self._cut(i) for i in starts[1:]] + [len(self.source)]
        units = list(zip(starts, cuts, cuts[1:]))
        pieces, piece = [], []
        for unit in units:
            if piece and unit[2] - piece[0][1] > PIECE - len(self.prelude):
                pieces.append(piece)
                piece = []
            piece.append(unit)
        pieces.append(piece)
        modules = [self._parse_units(piece) for piece in pieces]
        return _join(modules).with_changes(default_indent=self.indent, default_newline=self.newline)

    def _starts(self, begin: int, end: int, depth: int) -> List[int]:
        """Logical lines in [begin, end) that start a statement at ``depth``."""
        return [i for i in range(begin, end)
                if self.lines[i].depth == depth and self.lines[i].first not in _CLAUSES
                and not (i > begin and self.lines[i - 1].first == "@" and self.lines[i - 1].depth == depth)]

    def _cut(self, statement: int) -> int:
        """Offset where the text of the statement starting at logical line ``statement``
        begins.  The blank and comment lines before it go to it, but for those that the
        blocks closing before it keep as their footer: libcst gives the outermost one
        every line up to the last that starts with its indentation (as text: a tab is not
        four spaces)."""
        line, previous = self.lines[statement], self.lines[statement - 1]
        cut = previous.end
        if previous.depth > line.depth:  # blocks close
            block = next(self.lines[i] for i in range(statement - 1, -1, -1)
                         if self.lines[i].depth == line.depth + 1)
            indent = self.source[self.offsets[block.start]:self.offsets[block.start] + block.col]
            for physical in range(previous.end, line.start):
                if self.source.startswith(indent, self.offsets[physical]):
                    cut = physical + 1
        return self.offsets[cut]

    def _parse_units(self, units: Sequence[Tuple[int, int, int]]) -> cst.Module:
        start, end = units[0][1], units[-1][2]
        if len(units) == 1 and end - start > PIECE - len(self.prelude):
            try:
                return self._parse_split(*units[0])
            except (_Unsplittable, cst.ParserSyntaxError):
                pass
        return self._parse(start, self.source[start:end])

    def _parse_split(self, first: int, start: int, end: int) -> cst.Module:
        """One class or function, parsed a group of its body's statements at a time."""
        header = next(i for i in range(first, len(self.lines)) if self.lines[i].first != "@")
        if self.lines[header].first not in ("class", "def", "async"):
            raise _Unsplittable
        body_end = next((i for i in range(header + 1, len(self.lines)) if self.lines[i].depth == 0),
                        len(self.lines))
        starts = self._starts(header + 1, body_end, 1)
        if not starts or starts[0] != header + 1:
            raise _Unsplittable  # a one-line body, or text in an unexpected place
        cuts = [start] + [self._cut(i) for i in starts[1:]] + [end]
        line = self.lines[header]
        header_text = self.source[self.offsets[line.start]:self.offsets[line.end]]
        groups, group_start = [], start
        for left, right in zip(cuts[1:-1], cuts[2:]):  # the text of statements 1, 2, ...
            if right - group_start > PIECE - len(self.prelude) - len(header_text):
                groups.append((group_start, left))
                group_start = left
        groups.append((group_start, end))
        modules = [self._parse(a, ("" if a == start else header_text) + self.source[a:b]) for a, b in groups]
        definitions = [_only_definition(module) for module in modules]
        for module, definition in zip(modules[:-1], definitions[:-1]):
            if module.footer or definition.body.footer:
                raise _Unsplittable
        for module, definition in zip(modules[1:], definitions[1:]):
            if module.header or definition.leading_lines or type(definition) is not type(definitions[0]):
                raise _Unsplittable
        body = definitions[0].body.with_changes(
            body=[statement for definition in definitions for statement in definition.body.body],
            footer=definitions[-1].body.footer)
        return modules[0].with_changes(
            body=[definitions[0].with_changes(body=body)], footer=modules[-1].footer,
            has_trailing_newline=modules[-1].has_trailing_newline)


_LOGICAL = re.compile(
    r"(#[^\r\n]*+)"  # 1 a comment
    r"|(" + STRING + r")"  # 2 a string (a prefix ends the run before it)
    r"|([(\[{])|([)\]}])"  # 3, 4 brackets
    r"|(\\\r?\n)"  # 5 a line continuation
    r"|(\r?\n)"  # 6 a newline
    r"|[^#'\"()\[\]{}\\\r\n]++", re.S)  # a run of anything else
_FIRST = re.compile(r"[ \t]*+(\w+|[^\s#\\])?")  # blanks, then a logical line's first token


def _scan(source: str) -> Tuple[List[_Logical], str]:
    """The logical lines, and the default indent (libcst's: the first indented block's,
    else four spaces); what tokenize finds (its NEWLINE, INDENT and DEDENT tokens), at
    a fifth of its cost.  An unterminated string or bracket, an inconsistent dedent, or
    a statement opened by a line continuation: ``_Unsplittable``."""
    lines: List[_Logical] = []
    levels = [0]  # the open indentation columns, a tab advancing to a multiple of 8
    indent = None
    brackets = row = line_start = 0
    begun = None  # (row, column, first token) of the logical line being read
    for match in _LOGICAL.finditer(source):
        kind = match.lastindex
        if kind == 6 or kind == 5:
            if kind == 6 and not brackets and begun is not None:
                lines.append(_Logical(begun[0], row + 1, len(levels) - 1, begun[1], begun[2]))
                begun = None
            elif kind == 5 and begun is None:
                raise _Unsplittable
            row, line_start = row + 1, match.end()
            continue
        if kind == 1:
            continue
        if begun is None:
            first = _FIRST.match(source, match.start())
            if first.group(1) is None:
                continue  # the blanks before a comment or a newline
            blanks = source[line_start:first.start(1)]
            column = 0
            for char in blanks:
                column = column + 1 if char == " " else (column // 8 + 1) * 8
            if column > levels[-1]:
                levels.append(column)
                indent = blanks if indent is None else indent
            while column < levels[-1]:
                levels.pop()
                if column > levels[-1]:
                    raise _Unsplittable  # a dedent to no open level
            begun = (row, len(blanks), first.group(1))
        if kind == 2:
            text = match.group(2)
            if text[:3] in ("'''", '"""') and (len(text) < 6 or not text.endswith(text[:3])):
                raise _Unsplittable
            row += text.count("\n")
        elif kind == 3:
            brackets += 1
        elif kind == 4:
            brackets -= 1
            if brackets < 0:
                raise _Unsplittable
    if brackets:
        raise _Unsplittable
    if begun is not None:  # the last line has no line ending
        lines.append(_Logical(begun[0], row + 1, len(levels) - 1, begun[1], begun[2]))
    return lines, "    " if indent is None else indent


def _only_definition(module: cst.Module):
    if len(module.body) != 1 or not isinstance(module.body[0], _SPLITTABLE) \
            or not isinstance(module.body[0].body, cst.IndentedBlock):
        raise _Unsplittable
    return module.body[0]


def _join(modules: List[cst.Module]) -> cst.Module:
    """One module from consecutive pieces: lines a piece left at its end or found at
    its start (its footer, its header) lead the next piece's first statement."""
    body = list(modules[0].body)
    for previous, module in zip(modules, modules[1:]):
        statements = list(module.body)
        leading = (*previous.footer, *module.header, *statements[0].leading_lines)
        statements[0] = statements[0].with_changes(leading_lines=leading)
        body += statements
    return modules[0].with_changes(body=body, footer=modules[-1].footer,
                                   has_trailing_newline=modules[-1].has_trailing_newline)
