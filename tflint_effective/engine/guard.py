"""A cheap look at the shapes libcst parses slowly or hugely, before libcst is imported.

libcst's native parser costs 10-15 µs and 2-3 KB a token on ordinary code, but
far more on some valid shapes: long operator chains and trailer chains (time
cubic in their length), right-nested ``if``-``else`` and ``**`` (memory
quadratic), tokens inside nested brackets (once per enclosing bracket), and one
huge statement, which no piecewise parse can split.  ``token_scan.scan``
counts those constructs per bracket level and statement and prices them with a
model fitted on generated inputs.  ``refusal`` says why a file is over the
budgets below; ``salvage`` leaves the offending statements out when that is enough.
"""
from __future__ import annotations

from typing import Iterable, List, NamedTuple, Optional

from .token_scan import (CHAIN_CUBIC, CHAIN_LINEAR, DEPTH_MB, DEPTH_SECONDS, MAX_DEPTH, MB_PER_TOKEN, NEST_MB,
                         NEST_SECONDS, NESTED_MB, NESTED_SECONDS, SECONDS_PER_TOKEN, TRAILER_CUBIC, TRAILER_LINEAR,
                         UNARY_MB, UNARY_SECONDS, Statement, _COMPOUND, _LINES, _NEWLINES, _TOKEN, scan)

# Budgets: one statement (no piecewise parse can split it), and the whole file.
STATEMENT_SECONDS = 1.0
STATEMENT_MB = 200.0
FILE_SECONDS = 3.0  # about 200,000 tokens: with the analysis, about 5 s in all
FILE_MB = 300.0  # beyond 2-3 KB a token: what nesting costs, summed over the statements

class Offence(NamedTuple):
    """A statement libcst would spend too long or too much on (lines 1-based, inclusive)."""
    start_line: int
    end_line: int
    reason: str


def _surely_fine(source: str, file_seconds: float) -> bool:
    """Whether counts of characters already bound every estimate below the budgets: each
    token, operator, trailer, ``**`` or ``else`` takes at least one of those characters."""
    size = len(source)
    if size > 12_000:
        return False
    ops = sum(map(source.count, "+-*/%@|&^<>~"))
    brackets = sum(map(source.count, "([{"))
    trailers = brackets + source.count(".")
    nested = source.count("*") + source.count("else")
    nest, depths = brackets * size, brackets * brackets // 2  # at most
    seconds = (size * SECONDS_PER_TOKEN + 2.8 * (ops * size * CHAIN_LINEAR + ops ** 3 * CHAIN_CUBIC)
               + trailers * size * TRAILER_LINEAR + trailers ** 3 * TRAILER_CUBIC + ops ** 2 * UNARY_SECONDS
               + nested ** 2 * NESTED_SECONDS + nest * NEST_SECONDS + depths * DEPTH_SECONDS)
    megabytes = nested ** 2 * NESTED_MB + nest * NEST_MB + depths * DEPTH_MB + ops ** 2 * UNARY_MB
    return (brackets <= MAX_DEPTH and seconds <= min(STATEMENT_SECONDS, file_seconds)
            and size * MB_PER_TOKEN + megabytes <= STATEMENT_MB and megabytes <= FILE_MB)


def _lines(text: str, offsets: Iterable[int]) -> dict:
    """The (1-based) line of each offset, in one pass."""
    numbers, line, last = {}, 1, 0
    for offset in sorted(set(offsets)):
        line += (text.count("\n", last, offset) + text.count("\r", last, offset)
                 - text.count("\r\n", last, offset))
        numbers[offset], last = line, offset
    return numbers


def _over(statement: Statement) -> Optional[str]:
    """What in the statement is over which budget, or None."""
    token_seconds = statement.tokens * SECONDS_PER_TOKEN
    seconds = statement.seconds + token_seconds
    megabytes = statement.megabytes + statement.tokens * MB_PER_TOKEN
    over = [f"{seconds:,.1f} s (limit {STATEMENT_SECONDS:g} s)"] if seconds > STATEMENT_SECONDS else []
    if megabytes > STATEMENT_MB:
        over.append(f"{megabytes:,.0f} MB (limit {STATEMENT_MB:g} MB)")
    if not over:
        return None
    what = statement.worst
    if not what or (statement.seconds < token_seconds and statement.megabytes < megabytes / 2):
        what = f"one statement of {statement.tokens:,} tokens"
        if statement.elements:
            what += f" (a literal of about {statement.elements + 1:,} elements)"
    return f"{what}: libcst would need about {' and '.join(over)} to parse it"


def refusal(source: str, *, file_seconds: Optional[float] = None) -> Optional[str]:
    """Why libcst should not be given ``source`` (one line), or None when each statement and
    the file are within the budgets.  Call ``nesting.refuse_too_deep`` first: it reports
    brackets nested beyond Python's limit as Python does (this refuses them too)."""
    file_seconds = FILE_SECONDS if file_seconds is None else file_seconds
    if _surely_fine(source, file_seconds):
        return None
    result = scan(source)
    if result.too_deep >= 0:
        return (f"line {_lines(source, [result.too_deep])[result.too_deep]}: brackets nested more "
                f"than {MAX_DEPTH} deep, beyond what Python accepts")
    for statement in result.statements:
        over = _over(statement)
        if over:
            return f"line {_lines(source, [statement.start])[statement.start]}: {over}"
    seconds, megabytes = result.seconds(), result.megabytes()
    if seconds > file_seconds:
        what = "" if result.tokens * SECONDS_PER_TOKEN > file_seconds else " and long expressions"
        return (f"{result.tokens:,} tokens{what}: libcst would need about {seconds:,.1f} s "
                f"to parse the file (limit {file_seconds:g} s)")
    if megabytes > FILE_MB:
        return (f"nested brackets and expressions throughout: libcst would need about {megabytes:,.0f} MB "
                f"beyond 2-3 KB a token to parse the file (limit {FILE_MB:g} MB)")
    return None


def offending_spans(source: str, *, file_seconds: Optional[float] = None) -> List[Offence]:
    """The statements to leave out so that the rest is within the budgets: those over the
    statement budgets, then the costliest while the file is over its own.  Empty when the
    file is fine, or when leaving statements out cannot help (too many tokens in all)."""
    file_seconds = FILE_SECONDS if file_seconds is None else file_seconds
    if _surely_fine(source, file_seconds):
        return []
    result = scan(source)
    if result.too_deep >= 0:
        return []
    chosen = {s: over for s in result.statements for over in [_over(s)] if over}
    seconds = result.seconds() - sum(s.seconds + s.tokens * SECONDS_PER_TOKEN for s in chosen)
    megabytes = result.megabytes() - sum(s.megabytes for s in chosen)
    for statement in sorted(result.statements, key=lambda s: -s.seconds / file_seconds - s.megabytes / FILE_MB):
        if seconds <= 0.95 * file_seconds and megabytes <= 0.95 * FILE_MB:  # `pass` and blank lines stay
            break
        if statement not in chosen and statement.worst:
            chosen[statement] = f"{statement.worst}: left out to keep the file within the parsing budgets"
            seconds -= statement.seconds + statement.tokens * SECONDS_PER_TOKEN
            megabytes -= statement.megabytes
    if seconds > file_seconds or megabytes > FILE_MB:
        return []
    lines = _lines(source, [offset for s in chosen for offset in (s.start, s.end)])
    return [Offence(lines[s.start], lines[s.end], f"line {lines[s.start]}: {chosen[s]}") for s in sorted(chosen)]


def blank_out(source: str, offences: Iterable[Offence]) -> Optional[str]:
    """``source`` with each statement of ``offences`` replaced by ``pass`` and blank lines (every
    other position stays); None if one is a compound statement's header or a decorator."""
    lines = _LINES.findall(source)
    for start, end, _ in offences:
        first = _TOKEN.match(lines[start - 1])
        if not first or first.lastindex in (6, 10) or first.group(first.lastindex) in _COMPOUND:
            return None
        endings = [e.group() if (e := _NEWLINES.search(line)) else "" for line in lines[start - 1:end]]
        lines[start - 1:end] = [first.group()[:-len(first.group(first.lastindex))] + "pass"
                                + endings[0], *endings[1:]]
    return "".join(lines)


def salvage(source: str, *, file_seconds: Optional[float] = None):
    """``(patched source, offences)`` when blanking the offending statements out makes a refused
    file acceptable; None when it needs no salvage or cannot be salvaged."""
    offences = offending_spans(source, file_seconds=file_seconds)
    patched = blank_out(source, offences) if offences else None
    if patched is None or refusal(patched, file_seconds=file_seconds) is not None:
        return None
    return patched, offences
