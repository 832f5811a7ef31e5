"""Report formats: ``--format text|grouped|json|sarif|github``.

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


def render(fmt: str, run: Run, colour: bool = False) -> str:
    """The whole report, ending in a newline unless it is empty."""
    from importlib import import_module

    return import_module(f"{__name__}.{fmt}").render(run, colour)
