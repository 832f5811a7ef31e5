"""Reading Python 2 source as Python 3: a tolerant tokenizer and token-level rewrites of print
and exec statements, ``raise E, v``, ``except E, e``, backticks, ``<>``, old octal and long
literals, ``ur`` strings, ambiguous tab indentation and tuple parameters (``python2_params``).

``expand_tabs`` does only the tab expansion, for Python 3 files whose indentation libcst cannot tokenize.
``translate`` keeps lines one-to-one (same count, same line endings); only columns
move, and ``Translation.original`` maps a position in the translation back to the
same token in the original. Columns are ``str`` indices, as in libcst's positions.
Standard library only, so this module can be used and tested on its own.
"""
from __future__ import annotations

import keyword
import re
from typing import NamedTuple, Union

from .python2_params import tuple_parameters
from .translation import Segment, Translation

__all__ = ["Python2Error", "Translation", "expand_tabs", "looks_like_python2", "translate"]


class Python2Error(ValueError):
    """The text cannot be tokenized or translated; the message names the line."""


# ---------------------------------------------------------------- tokenizer

_DIGITS = r"\d(?:_?\d)*"
_STRING_PREFIX = r"(?:[uUbBfF][rR]?|[rR][bBfF]?)?"
_STRING_BODY = (r"'''(?:[^'\\]|\\[\s\S]|'(?!''))*'''" r'|"""(?:[^"\\]|\\[\s\S]|"(?!""))*"""'
                r"|'(?:[^'\\\r\n]|\\(?:\r\n|[\s\S]))*'" r'|"(?:[^"\\\r\n]|\\(?:\r\n|[\s\S]))*"')
_NUMBER = (r"0[xX](?:_?[0-9a-fA-F])+[lL]?|0[oO](?:_?[0-7])+[lL]?|0[bB](?:_?[01])+[lL]?"
           rf"|(?:{_DIGITS}\.(?:{_DIGITS})?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?[jJ]?"
           rf"|{_DIGITS}(?:[eE][+-]?{_DIGITS}[jJ]?|[jJ]|[lL])?")
_OPERATOR = (r"\*\*=|>>=|<<=|//=|\.\.\.|->|:=|<>|!=|==|<=|>=|\*\*|//|<<|>>|[-+*/%&|^@]="
             r"|[-+*/%&|^~<>=@()\[\]{}:,;.`!]")
_TOKEN = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in [
    ("space", r"[ \t\f]+"), ("comment", r"#[^\r\n]*"), ("continuation", r"\\(?:\r\n|\r|\n)"),
    ("newline", r"\r\n|\r|\n"), ("string", _STRING_PREFIX + f"(?:{_STRING_BODY})"),
    ("number", _NUMBER), ("name", r"(?:[^\W\d]|[^\x00-\x7f])(?:\w|[^\x00-\x7f])*"), ("op", _OPERATOR)]))
_STRING_START = re.compile(_STRING_PREFIX + "['\"]")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_OPENERS, _CLOSERS = "([{", ")]}"
_KEYWORDS = (frozenset(keyword.kwlist) - {"True", "False", "None"}) | {"print", "exec"}  # not operands


class _Token(NamedTuple):
    kind: str  # name, number, string, op or newline (the end of a logical line)
    text: str
    line: int  # 0-based
    col: int
    end_line: int
    end_col: int
    depth: int  # brackets (backticks included) open around the token; a pair shares one


def _tokenize(source: str) -> tuple[list[_Token], list[tuple[int, int]]]:
    """The significant tokens of ``source`` and the (line, col) where each logical line starts."""
    tokens: list[_Token] = []
    starts: list[tuple[int, int]] = []
    stack: list[tuple[str, int]] = []  # open brackets and the line each opened on
    pos = 1 if source.startswith("\ufeff") else 0
    line, line_start, in_logical_line = 0, 0, False
    after_operand = False  # a backtick there closes (`a + `b``), anywhere else it opens
    while pos < len(source):
        match = _TOKEN.match(source, pos)
        if match is None:
            what = "unterminated string" if _STRING_START.match(source, pos) else \
                f"unexpected character {source[pos]!r}"
            raise Python2Error(f"line {line + 1}: {what}")
        kind, text, col = match.lastgroup, match.group(), pos - line_start
        breaks = text.count("\n") + text.count("\r") - text.count("\r\n")
        end_line = line + breaks
        if breaks:
            last_break = max(text.rfind("\n"), text.rfind("\r"))
            end_col, next_line_start = len(text) - last_break - 1, pos + last_break + 1
        else:
            end_col, next_line_start = col + len(text), line_start
        depth = len(stack)
        if kind == "newline":
            if in_logical_line and not stack:
                tokens.append(_Token("newline", text, line, col, line, col + len(text), 0))
                in_logical_line = after_operand = False
        elif kind not in ("space", "comment", "continuation"):
            if not in_logical_line:
                starts.append((line, col))
                in_logical_line = True
            closes = text in _CLOSERS or (text == "`" and after_operand)
            if closes:  # a backtick matches a backtick: find() is -1 for both
                if not stack or _CLOSERS.find(text) != _OPENERS.find(stack[-1][0]):
                    raise Python2Error(f"line {line + 1}: unmatched {text!r}")
                stack.pop()
                depth = len(stack)
            elif text in _OPENERS or text == "`":
                stack.append((text, line))
            after_operand = closes or kind in ("number", "string") or (kind == "name" and text not in _KEYWORDS)
            tokens.append(_Token(kind, text, line, col, end_line, end_col, depth))
        pos, line, line_start = match.end(), end_line, next_line_start
    if stack:
        raise Python2Error(f"line {stack[-1][1] + 1}: {stack[-1][0]!r} is never closed")
    if in_logical_line:
        tokens.append(_Token("newline", "", line, pos - line_start, line, pos - line_start, 0))
    return tokens, starts


# ---------------------------------------------------------------- rewrites

class _Moved(NamedTuple):
    """Original text placed elsewhere in the translation (the target of ``print >>f``)."""
    line: int
    col: int
    text: str


_Piece = Union[str, _Moved]  # a str is new text, anchored at the start of what it replaces


class _Edit(NamedTuple):
    line: int
    start: int
    end: int
    order: int  # edits starting at one column apply in the order they were made
    pieces: tuple[_Piece, ...]


def _is_group(tokens: list[_Token]) -> bool:
    """Whether ``tokens`` are exactly one parenthesized group, ``( ... )``."""
    return (len(tokens) >= 2 and tokens[0].text == "(" and tokens[-1].text == ")"
            and tokens[0].depth == tokens[-1].depth and all(t.depth > tokens[0].depth for t in tokens[1:-1]))


def _top_level(tokens: list[_Token], text: str) -> list[int]:
    """Indexes of the tokens spelled ``text`` outside any bracket of the statement."""
    return [i for i, t in enumerate(tokens) if t.text == text and t.kind in ("op", "name") and t.depth == 0]


# What may follow the keyword of a print or exec statement: after anything else (``print = f``,
# ``print << x``, ``print in x``) the name is a Python 3 expression; ">>" is print's own.
_EXPRESSION_OPS = {"(", "[", "{", "-", "+", "~", "`", "...", ">>"}
_NOT_AN_OPERAND = {"in", "is", "and", "or", "if", "else", "for"}


def _is_statement(args: list[_Token]) -> bool:
    return not args or (args[0].text in _EXPRESSION_OPS if args[0].kind == "op" else
                        args[0].text not in _NOT_AN_OPERAND)


class _Rewriter:
    def __init__(self, source: str):
        self.lines = _LINE.findall(source)
        self.tokens, self.starts = _tokenize(source)
        self.edits: list[_Edit] = []

    def edit(self, line: int, start: int, end: int, *pieces: _Piece) -> None:
        self.edits.append(_Edit(line, start, end, len(self.edits), pieces))

    def replace(self, token: _Token, *pieces: _Piece) -> None:
        self.edit(token.line, token.col, token.end_col, *pieces)

    def insert_after(self, token: _Token, *pieces: _Piece) -> None:
        self.edit(token.end_line, token.end_col, token.end_col, *pieces)

    def replace_gap(self, before: _Token, after: _Token, text: str) -> None:
        """Replace the space between two tokens, or insert after ``before`` when they are on two lines."""
        end = after.col if after.line == before.end_line else before.end_col
        self.edit(before.end_line, before.end_col, end, text)

    def replace_through(self, token: _Token, after: _Token, text: str) -> None:
        """Replace ``token`` and the space after it up to ``after`` (on its line)."""
        end = after.col if after.line == token.end_line else token.end_col
        self.edit(token.line, token.col, end, text)

    def run(self) -> list[_Edit]:
        self.reindent()
        self.rename_tokens()
        for edit in tuple_parameters(self.tokens):
            self.edit(*edit)
        future_print = self.has_print_function()
        handlers = {"exec": self.exec_, "raise": self.raise_, "except": self.except_}
        if not future_print:
            handlers["print"] = self.print_
        tokens, at_start = self.tokens, True
        for i, token in enumerate(tokens):
            if at_start and token.kind == "name" and token.text in handlers:
                stops = (";", ":") if token.text == "except" else (";",)
                end = i + 1
                while tokens[end].kind != "newline" and (tokens[end].depth or tokens[end].text not in stops):
                    end += 1
                handlers[token.text](token, tokens[i + 1:end])
            at_start = token.kind == "newline" or (token.text in (";", ":") and token.depth == 0)
        return self.edits

    def reindent(self, always: bool = False) -> None:
        """Expand tabs in indentation (to multiples of 8, as Python 2 does) where Python 3
        would find them ambiguous, or ``always``; other files keep their indentation as it is."""
        indents = []
        for line, col in self.starts:
            prefix = self.lines[line][:col]
            if prefix.strip(" \t\f"):
                continue  # a byte order mark
            width = alt_width = 0
            for char in prefix:
                width, alt_width = ((0, 0) if char == "\f" else (width + 1, alt_width + 1) if char == " "
                                    else ((width // 8 + 1) * 8, alt_width + 1))
            indents.append((line, col, width, alt_width))
        widths, alt_widths, ambiguous = [0], [0], False  # CPython's tokenizer's check
        for _, _, width, alt_width in indents:
            if width > widths[-1]:
                ambiguous |= alt_width <= alt_widths[-1]
                widths.append(width)
                alt_widths.append(alt_width)
                continue
            while len(widths) > 1 and width < widths[-1]:
                widths.pop()
                alt_widths.pop()
            ambiguous |= width == widths[-1] and alt_width != alt_widths[-1]
        if ambiguous or always:
            for line, col, width, _ in indents:
                if "\t" in self.lines[line][:col] or "\f" in self.lines[line][:col]:
                    self.edit(line, 0, col, " " * width)

    def rename_tokens(self) -> None:
        """``0777``, ``10L``, ``ur""``, ``<>`` and backticks, wherever they are."""
        open_backticks = set()
        for token in self.tokens:
            text = token.text
            if token.kind == "number":
                new = text[:-1] if text[-1] in "lL" else text
                if re.fullmatch(r"0+[1-7][0-7]*", new):
                    new = "0o" + new[1:]
                if new != text:
                    self.replace(token, new)
            elif token.kind == "string" and text[:2].lower() == "ur":
                self.edit(token.line, token.col, token.col + 2, text[1])  # keep the r's case
            elif text == "<>":
                self.replace(token, "!=")
            elif text == "`":
                closes = token.depth in open_backticks
                (open_backticks.discard if closes else open_backticks.add)(token.depth)
                self.replace(token, ")" if closes else "repr(")

    def has_print_function(self) -> bool:
        tokens = self.tokens
        for i, token in enumerate(tokens[:-2]):
            if token.text == "from" and tokens[i + 1].text == "__future__" and tokens[i + 2].text == "import":
                j = i + 3
                while tokens[j].kind != "newline" and tokens[j].text != ";":
                    if tokens[j].text == "print_function":
                        return True
                    j += 1
        return False

    def print_(self, keyword: _Token, args: list[_Token]) -> None:
        """``print x, y`` -> ``print(x, y)``; a trailing comma -> ``end=" "``; ``>>f`` -> ``file=f``."""
        if not _is_statement(args) or _is_group(args):
            return
        if not args:
            self.insert_after(keyword, "()")
            return
        file: tuple[_Piece, ...] = ()
        if args[0].text == ">>":
            commas = _top_level(args, ",")
            target = args[1:commas[0]] if commas else args[1:]
            rest = args[commas[0] + 1:] if commas else []
            last = args[commas[0]] if commas else target[-1] if target else args[0]
            if not target or (commas and not rest):
                raise Python2Error(f"line {keyword.line + 1}: 'print >>' without a file or values")
            if last.end_line != keyword.line:
                raise Python2Error(f"line {keyword.line + 1}: 'print >>': its file expression must stay on "
                                   "the line of 'print'")
            if not rest:  # print >>f  ->  print(file=f)
                self.replace_gap(keyword, target[0], "(file=")
                self.insert_after(target[-1], ")")
                return
            moved = self.lines[keyword.line][target[0].col:target[-1].end_col]
            file = (", file=", _Moved(target[0].line, target[0].col, moved))
            end = rest[0].col if rest[0].line == keyword.line else last.end_col
            self.edit(keyword.line, keyword.end_col, end, "(")  # drops ">>f, "
            args = rest
        else:
            self.replace_gap(keyword, args[0], "(")
        if args[-1].text == "," and args[-1].depth == 0:
            self.replace(args[-1], ', end=" "', *file, ")")
        else:
            self.insert_after(args[-1], *file, ")")

    def exec_(self, keyword: _Token, args: list[_Token]) -> None:
        """``exec code in g, l`` -> ``exec(code, g, l)``."""
        if not args or not _is_statement(args) or args[0].text == ">>" or _is_group(args):
            return
        self.replace_gap(keyword, args[0], "(")
        for i in _top_level(args, "in")[:1]:
            before, word = args[i - 1], args[i]
            start = before.end_col if before.end_line == word.line else word.col
            self.edit(word.line, start, word.end_col, ",")
        self.insert_after(args[-1], ")")

    def raise_(self, keyword: _Token, args: list[_Token]) -> None:
        """``raise E, v`` -> ``raise E(v)``; ``raise E, v, tb`` -> ``raise E(v).with_traceback(tb)``."""
        commas = _top_level(args, ",")
        bounds = [0, *commas, len(args)]
        if not 1 <= len(commas) <= 2 or any(a + 1 >= b for a, b in zip(bounds[1:], bounds[2:])):
            return  # not Python 2's raise either
        value = args[commas[0] + 1:bounds[2]]
        close = "" if _is_group(value) else ")"  # raise E, (a, b) means E(a, b)
        self.replace_through(args[commas[0]], value[0], "(" if close else "")
        if len(commas) == 2:
            self.replace_through(args[commas[1]], args[commas[1] + 1], close + ".with_traceback(")
            close = ")"
        if close:
            self.insert_after(args[-1], close)

    def except_(self, keyword: _Token, args: list[_Token]) -> None:
        """``except E, e:`` -> ``except E as e:``."""
        commas = _top_level(args, ",")
        if len(commas) == 1 and commas[0] + 1 < len(args):
            comma, target = args[commas[0]], args[commas[0] + 1]
            tight = target.line == comma.line and target.col == comma.end_col
            self.replace(comma, " as " if tight else " as")


def translate(source: str) -> Translation:
    """``source`` (Python 2) as Python 3; raises ``Python2Error`` when it cannot be tokenized."""
    rewriter = _Rewriter(source)
    rewriter.run()
    return _applied(rewriter)


def expand_tabs(source: str) -> Translation:
    """``source`` (Python 3) with the tabs of its indentation expanded to multiples of 8, as
    CPython reads them: libcst's tokenizer rejects some mixes of tabs and spaces CPython accepts."""
    rewriter = _Rewriter(source)
    rewriter.reindent(always=True)
    return _applied(rewriter)


def _applied(rewriter: _Rewriter) -> Translation:
    """The text with the rewriter's edits made, and the way back."""
    edits = sorted(rewriter.edits, key=lambda e: (e.line, e.start, e.end, e.order))
    lines, segments = list(rewriter.lines), {}
    by_line: dict[int, list[_Edit]] = {}
    for edit in edits:
        by_line.setdefault(edit.line, []).append(edit)
    for line, line_edits in by_line.items():
        original, parts, segs, done = lines[line], [], [], 0

        def add(text: str, segment: Segment) -> None:
            if text:
                segs.append(segment._replace(new_col=sum(map(len, parts))))
                parts.append(text)

        for edit in line_edits:
            if edit.start < done:
                raise Python2Error(f"line {line + 1}: overlapping rewrites")
            add(original[done:edit.start], Segment(0, line + 1, done, True))
            for piece in edit.pieces:
                if isinstance(piece, _Moved):
                    add(piece.text, Segment(0, piece.line + 1, piece.col, True))
                else:
                    add(piece, Segment(0, line + 1, edit.start, False))
            done = edit.end
        add(original[done:], Segment(0, line + 1, done, True))
        lines[line], segments[line + 1] = "".join(parts), segs
    return Translation("".join(lines), segments)


_MARKERS = re.compile(r"\b(?:print|exec|raise|except|def|lambda)\b|`|<>|\b0\d|\d[lL]\b|\b[uU][rR]['\"]|^[ \t]*\t", re.M)


def looks_like_python2(source: str) -> bool:
    """Whether ``source`` has Python 2 syntax that ``translate`` rewrites (meant for a file
    that Python 3 could not parse: a cheap pattern check, then the tokenizer)."""
    if not _MARKERS.search(source):
        return False
    try:
        return bool(_Rewriter(source).run())
    except Python2Error:
        return False
