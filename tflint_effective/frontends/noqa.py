"""``check --add-noqa``, and ``# noqa`` on the last line of a stretch Python joins (flake8's rule).

A backslash continuation or a multi-line string joins physical lines: a comment
cannot go on any of them but the last, so (as flake8 does) a ``# noqa`` anywhere
in such a stretch applies to all of its lines.  ``JoinedNoqa`` adds that to the
engine's line-by-line ``# noqa``; ``add_noqa`` writes the comment there.
"""
from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, Iterable, List, Optional, Tuple

from ..engine.suppressions import CODE, NOQA, Suppressions
from ..levels import PARSE_ERROR

LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")


def _tokens(source: str) -> Optional[list]:
    """tokenize's tokens (line endings made ``\\n``: same line numbers); None if it fails."""
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


def joined_lines(tokens) -> Dict[int, Tuple[int, int]]:
    """Line -> (first, last) of the stretch it belongs to, for stretches over several lines
    (flake8's ``_noqa_line_mapping``: from one NEWLINE / NL token to the next)."""
    stretches: Dict[int, Tuple[int, int]] = {}
    first = last = None
    for token in tokens or ():
        if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        first = token.start[0] if first is None else min(first, token.start[0])
        last = token.end[0] if last is None else max(last, token.end[0])
        if token.type in (tokenize.NEWLINE, tokenize.NL):
            if last > first:
                stretches.update(dict.fromkeys(range(first, last + 1), (first, last)))
            first = last = None
    return stretches


class JoinedNoqa:
    """The ``# noqa`` comments that silence a finding from another line of its stretch."""

    def __init__(self, source: str):
        self.source = source
        joins = "\\\n" in source or "\\\r" in source or '"""' in source or "'''" in source
        self.noqa = Suppressions.parse(source).lines if joins and "noqa" in source.lower() else {}
        self._stretches: Optional[dict] = None  # tokenized on first use

    def silences(self, diagnostic) -> bool:
        if not self.noqa:
            return False
        if self._stretches is None:
            self._stretches = joined_lines(_tokens(self.source))
        first, last = self._stretches.get(diagnostic.line, (diagnostic.line, diagnostic.line))
        for line in range(first, last + 1):
            if line != diagnostic.line and line in self.noqa:  # its own line: the engine's
                codes = self.noqa[line]
                if codes is None or diagnostic.code.startswith(tuple(codes)):
                    return diagnostic.code != PARSE_ERROR
        return False

    def split(self, diagnostics) -> Tuple[list, List[tuple]]:
        """(kept, [(silenced diagnostic, "noqa"), ...])."""
        kept, silenced = [], []
        for diagnostic in diagnostics:
            if self.silences(diagnostic):
                silenced.append((diagnostic, "noqa"))
            else:
                kept.append(diagnostic)
        return kept, silenced


def _comments(tokens) -> Dict[int, int]:
    """Line -> column where its comment starts."""
    return {t.start[0]: t.start[1] for t in tokens or () if t.type == tokenize.COMMENT}


def _with_codes(text: str, start: int, codes: List[str]) -> Optional[str]:
    """``text`` (a line whose comment starts at ``start``) with ``codes`` added to its ``# noqa``,
    or a new ``# noqa`` comment; None when nothing needs adding."""
    match = NOQA.search(text, start) if start < len(text) else None
    if match is None:
        return text.rstrip(" \t") + "  # noqa: " + ", ".join(codes)
    if match.group("codes") is None:
        return None  # a bare # noqa silences everything
    named = CODE.findall(match.group("codes").upper())
    missing = [c for c in codes if not c.startswith(tuple(named))]
    if not missing:
        return None
    listed = match.group("codes")
    kept = listed.rstrip(", \t")
    return (text[:match.start("codes")] + kept + ", " + ", ".join(missing)
            + listed[len(kept):] + text[match.end("codes"):])


def add_noqa(source: str, findings: Iterable[Tuple[int, str]]) -> Tuple[str, int]:
    """``source`` with ``# noqa: CODE`` for each ``(line, code)`` (merged into a ``# noqa``
    already there, never twice), on the last line of the finding's stretch; and the number
    of lines changed."""
    tokens = _tokens(source)
    stretches, comments = joined_lines(tokens), _comments(tokens)
    wanted: Dict[int, List[str]] = {}
    for line, code in findings:
        if code == PARSE_ERROR:
            continue
        target = stretches.get(line, (line, line))[1]
        if code not in wanted.setdefault(target, []):
            wanted[target].append(code)
    lines = [m.groups() for m in LINE.finditer(source)][:-1]  # (text, ending); the last match is empty
    unknown = tokens is None  # no tokens: look for a # noqa anywhere on the line
    changed = 0
    for target, codes in sorted(wanted.items()):
        if not 0 < target <= len(lines):
            continue
        text, ending = lines[target - 1]
        new = _with_codes(text, 0 if unknown else comments.get(target, len(text)), sorted(codes))
        if new is not None:
            lines[target - 1] = (new, ending)
            changed += 1
    return "".join(text + ending for text, ending in lines), changed
