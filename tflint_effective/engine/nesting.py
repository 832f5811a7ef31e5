"""A cheap look at how deeply a file may nest, before libcst parses it.

libcst's native parser takes time and memory that grow with the square of the
nesting depth (50,000 nested parentheses took more than 20 GB), while CPython
refuses such files: more than 200 nested brackets is a syntax error ("too many
nested parentheses"), and its parser gives up on a few thousand nested unary
operators or lambdas.  So when the text *may* nest that deeply, CPython's parser
is asked first and its verdict stands.  Ordinary files pay for one scan of their
brackets (brackets inside strings and comments are counted too: that only costs
a needless ``ast.parse``).
"""
from __future__ import annotations

import ast
import itertools
import re

MAX_BRACKET_DEPTH = 200  # CPython's tokenizer limit
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"()[]{}")
_DEPTH_STEP = [0] * 256
for _opening, _closing in zip(b"([{", b")]}"):
    _DEPTH_STEP[_opening], _DEPTH_STEP[_closing] = 1, -1
# Long runs of right-nesting prefixes: `- - - x`, `not not x`, `lambda: lambda: x`,
# `await await x`; one pattern each, so that the regex engine can skip ahead.
PREFIX_RUN = 500
_PREFIX_RUNS = [re.compile(pattern.replace("RUN", str(PREFIX_RUN - 1))) for pattern in (
    r"[-+~](?:\s*[-+~]){RUN}", r"not(?:\s+not\b){RUN}",
    r"lambda\b[^:\n]{0,40}:(?:\s*lambda\b[^:\n]{0,40}:){RUN}", r"await(?:\s+await\b){RUN}")]


def may_nest_deeply(source: str) -> bool:
    brackets = source.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    if max(itertools.accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) > MAX_BRACKET_DEPTH:
        return True
    return any(run.search(source) for run in _PREFIX_RUNS)


def refuse_too_deep(source: str) -> None:
    """Raise what CPython raises (SyntaxError, MemoryError, RecursionError) for a file
    nested beyond what it accepts; return quietly for every other file."""
    if may_nest_deeply(source):
        ast.parse(source)
