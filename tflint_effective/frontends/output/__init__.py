"""Report formats: ``--output-format text|full|grouped|json|sarif|github`` (``--format``).

``concise`` is ruff's name for ``text``, ``full`` is ``text`` with ``--show-source``.

Every format renders a ``Run``: plain data (no libcst objects), so a run's
findings can come from worker processes or a cache.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from ...levels import SAFE, UNSAFE


@dataclass(frozen=True)
class Finding:
    path: str  # as displayed
    line: int  # 1-based; within the cell for notebooks
    column: int  # 1-based
    end_line: int
    end_column: int  # 1-based, one past the last character
    code: str
    message: str
    severity: str
    cell: Optional[int] = None  # notebooks: 1-based cell number
    fix_safety: Optional[str] = None  # safe / unsafe; None: no automatic fix
    diff: Optional[str] = None  # unified diff applying only this fix (json, sarif)
    edits: Tuple[Tuple[int, int, str], ...] = ()  # (char offset, length, new text)
    suppressed: Optional[str] = None  # "noqa" or "file" when shown with --show-suppressed
    source_line: Optional[str] = None  # the text of the (first) line, for --show-source

    @property
    def location(self) -> str:
        """``path:line:col`` or, in a notebook, ``path:cell N:line:col``."""
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{self.line}:{self.column}"

    def fixable(self, unsafe_fixes: bool = False) -> bool:
        return self.fix_safety == SAFE or (unsafe_fixes and self.fix_safety == UNSAFE)


@dataclass
class Run:
    findings: List[Finding] = field(default_factory=list)
    files: int = 0  # files checked
    unsafe_fixes: bool = False

    @property
    def reported(self) -> List[Finding]:
        return [f for f in self.findings if f.suppressed is None]


FORMATS = ("text", "grouped", "json", "sarif", "github")
ALIASES = {"concise": "text", "full": "text"}  # ruff's names


def render(fmt: str, run: Run, colour: bool = False, show_source: bool = False) -> str:
    """The whole report, ending in a newline unless it is empty."""
    from importlib import import_module

    if fmt in ("text", *ALIASES):
        from .text import render as text

        return text(run, colour, show_source=show_source or fmt == "full")
    return import_module(f"{__name__}.{fmt}").render(run, colour)
