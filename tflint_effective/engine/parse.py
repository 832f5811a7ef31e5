"""Parsing a file with libcst: refused when it would take too long, in pieces when large,
on a thread with a deep stack (``threads.py``), collector paused."""
from __future__ import annotations

import libcst as cst

from . import piecewise
from .diagnostics import Refused
from .guard import refusal  # a cheap scan for inputs libcst would take too long on
from .nesting import refuse_too_deep
from .threads import collector_paused

PARSE_FAILURES = (cst.ParserSyntaxError, SyntaxError, RecursionError, MemoryError, Refused)


def parse(source: str) -> cst.Module:
    """The libcst tree of ``source``; raises one of ``PARSE_FAILURES`` (``Refused`` with the
    reason for a file libcst would take too long or too much memory on)."""
    refuse_too_deep(source)
    reason = refusal(source)
    if reason:
        raise Refused(reason)
    with collector_paused():
        return piecewise.parse_module(source)
