"""Tokens and notable constructs of Python source, priced with a model of libcst's parser.

``scan`` tokenizes the text with one regular expression (strings with every
prefix, f-string fields, comments and continuations are told apart from code:
logical lines match ``tokenize``'s on 6,002 corpus files), counts long operator
and trailer chains, right-nested operators and nesting per bracket level and
statement, and prices them with the model below, fitted on generated inputs
(``benchmarks/bench_pathological.py``).  ``guard.py`` holds the budgets and
decides what to refuse.
"""
from __future__ import annotations

import functools
import keyword
import re
from typing import List, NamedTuple

# The model of libcst's CPU time and memory (libcst 1.9, Python 3.11, one core); each
# term covers its slowest shape, and `bench_pathological.py --fit` prints it against
# measurements.  Boolean operators, comparisons, string concatenation, comprehension
# clauses, `elif` ladders and long argument lists cost what their tokens cost.
SECONDS_PER_TOKEN = 15e-6  # 7-15 µs on data literals and ordinary code
MB_PER_TOKEN = 2.6e-3  # 1.8-2.5 KB in one statement (2.8 KB in a whole ordinary file)
# `a + a + ...`: 4,000 `+` 4.3 s; 3,000 `@` 5.4 s; 1,000 `+` between calls of 10 arguments 1.7 s
CHAIN_LINEAR = 1.0e-7  # s per operator x token of a chain of `+`; other operators weigh more:
CHAIN_CUBIC = 2.0e-11  # s per operator ** 3
_WEIGHTS = {"+": 1.0, "*": 1.0, "|": 1.1, "&": 1.1, "^": 1.1, "<<": 1.1, "-": 1.45, "/": 1.45, ">>": 1.45,
            "//": 1.85, "%": 2.2, "@": 2.8, "~": 1.0}
# `x.a().b()...`: 2,000 method calls 7.3 s; `x[0][0]...`: 2,000 subscripts 4.7 s
TRAILER_LINEAR = 2.9e-7  # s per trailer x token of a primary
TRAILER_CUBIC = 1.6e-10  # s per trailer ** 3
# `a if c else a if c else ...`: 2,000 of them 1.2 s and 690 MB; `**` 470 MB
NESTED_SECONDS = 3.0e-7  # s per right-nested operator ** 2
NESTED_MB = 1.8e-4  # MB per right-nested operator ** 2
UNARY_SECONDS, UNARY_MB = 1.1e-7, 6.5e-5  # per unary operator ** 2 of a run (`- - - x`): 3,000 0.9 s, 500 MB
# 10,000 elements 50 brackets deep: 1.4 s, 650 MB; 190 nested calls: 0.2 s, 84 MB; 20
# statements of 190 nested lists: 1.8 s, 590 MB (the parser holds each one's memory)
NEST_SECONDS = 2.2e-6  # s per token per enclosing bracket beyond the first
NEST_MB = 1.2e-3
DEPTH_SECONDS = 5.0e-6  # s per bracket per enclosing bracket
DEPTH_MB = 3.0e-4
MAX_DEPTH = 200  # brackets: deeper is a syntax error for CPython (nesting.py reports it)
_MIN = 24  # a shorter chain costs what its tokens cost: not worth a note
_MIN_TOKENS = 4_000  # a statement with fewer tokens and no note is not recorded
_MIN_NEST = 500

_KEYWORDS = frozenset(keyword.kwlist) - {"True", "False", "None"}
_COMPOUND = frozenset("if elif else for while try except finally with def class async match case @".split())
# Unterminated strings end at the end of their line (or of the text), as for tokenize.
STRING = (r"'''[^'\\]*+(?:(?:\\(?:\r\n|.|\Z)|'(?!''))[^'\\]*+)*+(?:'''|\Z)"
           r'|"""[^"\\]*+(?:(?:\\(?:\r\n|.|\Z)|"(?!""))[^"\\]*+)*+(?:"""|\Z)'
           r"|'[^'\\\r\n]*+(?:\\(?:\r\n|.|\Z)[^'\\\r\n]*+)*+'?"
           r'|"[^"\\\r\n]*+(?:\\(?:\r\n|.|\Z)[^"\\\r\n]*+)*+"?')
# One token per match, with the blanks before it; the group says which kind.
_TOKEN = re.compile(
    r"[ \t\f]*+(?:"
    r"((?![rRbBuUfFtT]{1,2}['\"])[^\W\d]\w*+)"  # 1 name (not a string prefix)
    r"|(\.(?![.\d]))"  # 2 attribute dot
    r"|([(\[{])"  # 3 opening bracket
    r"|([)\]}])"  # 4 closing bracket
    r"|(,)"  # 5 comma
    r"|(\r?\n|\r)"  # 6 newline
    r"|(\*\*=|//=|>>=|<<=|->|:=|[-+*/%@|&^<>=!]=|<(?!<)|>(?!>)|[=:;!])"  # 7 separator
    r"|(\*\*)"  # 8 power
    r"|(//|<<|>>|[-+*/%@|&^~])"  # 9 left-associative (or unary) operator
    r"|(#[^\r\n]*+)"  # 10 comment
    r"|((?:[bB][rR]|[rR][bB]|[rRbBuU])?(?:" + STRING + r"))"  # 11 string
    r"|((?:[rR][fFtT]|[fFtT][rR]?)(?:'''|\"\"\"|'|\"))"  # 12 f-string start
    r"|((?:\d|\.\d)[\w.]*+(?:(?<=[eE])[-+]\w*+)?)"  # 13 number
    r"|(\.\.\.)"  # 14 ellipsis
    r"|(\\(?:\r\n|\n|\r))"  # 15 line continuation
    r"|(.))",  # 16 anything else: after blanks, every position matches (so: linear)
    re.S)
_NEWLINES = re.compile(r"\r\n|\r|\n")
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@functools.lru_cache(maxsize=None)  # compiled when a file first has such an f-string
def _literal_pattern(quote: str, raw: bool) -> "re.Pattern[str]":
    """An f-string's literal text, then (group 1) ``{``, ``}``, its end or a newline."""
    q, single = re.escape(quote[0]), len(quote) == 1
    parts = [r"[^{}\\%s%s]++" % (q, r"\r\n" if single else "")]
    if not single:
        parts.append(r"%s(?!%s%s)" % (q, q, q))
    if not raw:
        parts.append(r"\\N\{[^}\r\n]*\}")
    parts += [r"\\(?:\r\n|[^{}]|(?=[{}])|\Z)", r"\{\{", r"\}\}"]
    end = re.escape(quote) + (r"|[{}\r\n]|\Z" if single else r"|[{}]|\Z")
    return re.compile(r"(?:%s)*+(%s)" % ("|".join(parts), end), re.S)


class Statement(NamedTuple):
    start: int  # offset of the line where it begins
    end: int  # offset of its newline
    tokens: int
    seconds: float  # what its notable constructs cost beyond their tokens
    megabytes: float
    worst: str  # the costliest of them, described ("" if none)
    elements: int  # the most commas of one of its brackets


class Scan(NamedTuple):
    tokens: int
    statements: List[Statement]  # those with a notable construct or many tokens
    too_deep: int = -1  # offset of a bracket nested deeper than MAX_DEPTH
    nest: int = 0  # nesting in the statements not recorded (see _nesting)
    depths: int = 0

    def seconds(self) -> float:
        return (self.tokens * SECONDS_PER_TOKEN + sum(s.seconds for s in self.statements)
                + self.nest * NEST_SECONDS + self.depths * DEPTH_SECONDS)

    def megabytes(self) -> float:  # beyond 2-3 KB a token, which a piecewise parse bounds
        return sum(s.megabytes for s in self.statements) + self.nest * NEST_MB + self.depths * DEPTH_MB


def _costs(notes: list, ops: int, weight: float, run: int, nested: int, chain_tokens: int, run_tokens: int):
    if ops >= _MIN:
        notes.append((weight * (chain_tokens * CHAIN_LINEAR + ops ** 2 * CHAIN_CUBIC), 0.0,
                      f"{ops:,} binary operators chained in one expression"))
    if run >= _MIN:
        notes.append((run * run_tokens * TRAILER_LINEAR + run ** 3 * TRAILER_CUBIC, 0.0,
                      f"a chain of {run:,} attribute/call/subscript trailers"))
    if nested >= _MIN:
        notes.append((nested ** 2 * NESTED_SECONDS, nested ** 2 * NESTED_MB,
                      f"{nested:,} right-nested `**`/`if`-`else` operators in one expression"))


def _nesting(notes: list, nest: int, depths: int, deepest: int, squares: int):
    if nest >= _MIN_NEST or depths >= _MIN_NEST:
        notes.append((nest * NEST_SECONDS + depths * DEPTH_SECONDS, nest * NEST_MB + depths * DEPTH_MB,
                      f"brackets nested {deepest} deep"))
    if squares >= _MIN_NEST:
        notes.append((squares * UNARY_SECONDS, squares * UNARY_MB, "long runs of unary operators (`- - - x`)"))


def scan(source: str) -> Scan:
    """Count the tokens, and price the notable constructs of each statement."""
    statements: List[Statement] = []
    end = len(source.rstrip(" \t\f"))  # blanks at the end would match nothing
    notes: list = []  # (seconds, megabytes, description) in the current statement
    keywords = _KEYWORDS
    stack: list = []  # the enclosing levels' counters
    fstrings: list = []  # open f-strings: (quote, raw, len(stack) when they began)
    # The innermost bracket level's counters: operators of the current chain and its
    # first token; right-nested operators; trailers of the current primary and its
    # first token; commas; and its kind, a bracket or "L"/"S" for an f-string's
    # replacement field opened in literal text / in a format spec.
    ops = nested = run = elements = seg = run_tok = opened = weight = 0
    kind = ""
    # Per statement: tokens inside nested brackets, summed over them (the tokens'
    # depths beyond the first); depths of brackets, summed; the deepest.
    nest = depths = deepest = small_nest = small_depths = 0
    prefix = squares = 0  # the current run of unary operators; its length squared, summed
    unary = -2  # the last unary operator
    atom = dot = False  # the previous token ends an atom / is an attribute dot
    stmt_tok = stmt_pos = most = pos = ntok = 0
    comment = -1
    mode = "code"
    while True:
        if mode != "code":  # in an f-string's literal text or format spec
            quote, raw, _ = fstrings[-1]
            match = _literal_pattern(quote, raw).match(source, pos)
            pos, delimiter = match.end(), match.group(1)
            if delimiter == "{":
                depth = len(stack)
                if depth >= MAX_DEPTH:
                    return Scan(ntok, statements, pos)
                depths += depth
                deepest = max(deepest, depth + 1)
                stack.append((ops, weight, seg, nested, run, run_tok, elements, kind, opened))
                ops = nested = run = elements = weight = 0
                seg, run_tok, opened = ntok, ntok, ntok - 1
                kind, mode, atom = ("L" if mode == "literal" else "S"), "code", False
            elif delimiter == "}":
                if mode == "spec":  # the end of the field
                    returning, inside = kind, ntok - opened - 1
                    ops, weight, seg, nested, run, run_tok, elements, kind, opened = stack.pop()
                    if stack:
                        nest += inside
                    mode = "literal" if returning == "L" else "spec"
            else:  # the closing quote; or a newline or the end: unterminated
                if delimiter in ("\r", "\n"):
                    pos = match.start(1)
                depth = fstrings.pop()[2]
                while len(stack) > depth:
                    ops, weight, seg, nested, run, run_tok, elements, kind, opened = stack.pop()
                mode, atom, dot = "code", True, False
            continue
        i = ntok - 1
        for i, m in enumerate(_TOKEN.finditer(source, pos, end), ntok):
            k = m.lastindex
            if k == 1:  # a name
                if dot:  # an attribute's
                    atom, dot = True, False
                elif m[1] in keywords:
                    if ops >= _MIN or run >= _MIN:
                        _costs(notes, ops, weight, run, 0, i - seg, i - run_tok)
                    if m[1] == "else":
                        nested += 1
                    ops = run = weight = 0
                    seg, atom = i + 1, False
                else:  # a new primary
                    if run >= _MIN:
                        _costs(notes, 0, 0, run, 0, 0, i - run_tok)
                    run, run_tok, atom = 0, i, True
            elif k == 2:
                run += 1
                atom, dot = False, True
            elif k == 3:  # an opening bracket: a trailer after an atom, else an atom
                if atom:
                    run += 1
                else:
                    if run >= _MIN:
                        _costs(notes, 0, 0, run, 0, 0, i - run_tok)
                    run, run_tok = 0, i
                depth = len(stack)
                if depth >= MAX_DEPTH:
                    return Scan(i, statements, m.start(3))
                if depth:
                    depths += depth
                    if depth >= deepest:
                        deepest = depth + 1
                stack.append((ops, weight, seg, nested, run, run_tok, elements, kind, opened))
                ops = nested = run = elements = weight = 0
                seg = run_tok = i + 1
                opened, kind, atom, dot = i, m.group(3), False, False
            elif k == 4:
                if not stack or (kind in ("L", "S") and m.group(4) != "}"):
                    continue  # unbalanced: libcst reports it
                if ops >= _MIN or run >= _MIN or nested >= _MIN:
                    _costs(notes, ops, weight, run, nested, i - seg, i - run_tok)
                if elements > most:
                    most = elements
                returning, inside = kind, i - opened - 1
                ops, weight, seg, nested, run, run_tok, elements, kind, opened = stack.pop()
                if stack:
                    nest += inside
                atom, dot = True, False
                if returning in ("L", "S"):  # the end of an f-string's replacement field
                    mode, pos, ntok = ("literal" if returning == "L" else "spec"), m.end(), i + 1
                    break
            elif k == 5 or k == 7:  # a comma or another separator
                if ops >= _MIN or run >= _MIN or nested >= _MIN:
                    _costs(notes, ops, weight, run, nested, i - seg, i - run_tok)
                ops = nested = run = weight = 0
                seg, atom, dot = i + 1, False, False
                if k == 5:
                    elements += 1
                elif kind in ("L", "S") and m.group(7) in (":", "!", ":="):  # a format spec
                    mode, pos, ntok = "spec", m.end(), i + 1
                    break
            elif k == 6:  # a newline
                if stack:
                    continue
                if i == stmt_tok or comment == i - 1 == stmt_tok:  # a blank or comment line
                    stmt_tok, stmt_pos = i + 1, m.end()
                    continue
                if ops >= _MIN or run >= _MIN or nested >= _MIN:
                    _costs(notes, ops, weight, run, nested, i - seg, i - run_tok)
                if nest >= _MIN_NEST or depths >= _MIN_NEST or squares >= _MIN_NEST:
                    _nesting(notes, nest, depths, deepest, squares)
                else:
                    small_nest, small_depths = small_nest + nest, small_depths + depths
                if notes or i - stmt_tok >= _MIN_TOKENS:
                    statements.append(_statement(notes, stmt_pos, m.start(6), i - stmt_tok, most))
                ops = nested = run = most = nest = depths = deepest = weight = squares = 0
                seg = run_tok = stmt_tok = i + 1
                stmt_pos, atom, dot = m.end(), False, False
            elif k == 8 or k == 9:  # an operator
                if run >= _MIN:
                    _costs(notes, 0, 0, run, 0, 0, i - run_tok)
                if not atom:  # unary (`-x`, `*args`, `**kwargs`, a decorator)
                    prefix = prefix + 1 if unary == i - 1 else 1
                    squares, unary = squares + 2 * prefix - 1, i
                elif k == 8:
                    nested += 1
                else:
                    ops, weight = ops + 1, weight + _WEIGHTS.get(m[9], 1.0)
                run, atom, dot = 0, False, False
            elif k == 10:
                comment = i
            elif k == 15:  # a line continuation: the statement has not begun if nothing came before
                if i == stmt_tok:
                    stmt_tok, stmt_pos = i + 1, m.end()
            elif k == 16:
                atom = dot = False
            else:  # an atom: a string, a number, an ellipsis, an f-string
                if run >= _MIN:
                    _costs(notes, 0, 0, run, 0, 0, i - run_tok)
                run, run_tok, atom, dot = 0, i, True, False
                if k == 12:
                    start = m.group(12)
                    quote = start[-3:] if start[-3:] in ("'''", '"""') else start[-1]
                    fstrings.append((quote, int("r" in start.lower()), len(stack)))
                    mode, pos, ntok = "literal", m.end(), i + 1
                    break
        else:  # the end of the text
            ntok = i + 1
            break
    # The last statement, when the text does not end with a newline (or inside brackets).
    for saved in stack:  # levels left open: an invalid text
        _costs(notes, saved[0], saved[1], 0, 0, ntok - saved[2], 0)
    _costs(notes, ops, weight, run, nested, ntok - seg, ntok - run_tok)
    _nesting(notes, nest, depths, deepest, squares)
    blank = ntok == stmt_tok or comment == ntok - 1 == stmt_tok
    if notes or (not blank and ntok - stmt_tok >= _MIN_TOKENS):
        statements.append(_statement(notes, stmt_pos, len(source), ntok - stmt_tok, most))
    return Scan(ntok, statements, -1, small_nest, small_depths)


def _statement(notes: list, start: int, end: int, tokens: int, elements: int) -> Statement:
    statement = Statement(start, end, tokens, sum(n[0] for n in notes), sum(n[1] for n in notes),
                          max(notes)[2] if notes else "", elements)
    notes.clear()
    return statement
