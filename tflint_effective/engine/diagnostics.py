"""What a lint run reports: Diagnostics (TFE000 for files that cannot be analysed) and a
document's whole Analysis."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, List, Optional, Tuple

from ..levels import PARSE_ERROR
from .suppressions import Suppressions

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from ..rule import Fix


@dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int  # 1-based
    col: int  # 0-based, like flake8 and libcst
    code: str
    message: str
    severity: str
    end_line: int = 0
    end_col: int = 0
    fix: Optional["Fix"] = field(default=None, compare=False, repr=False)

    @property
    def fix_safety(self) -> Optional[str]:
        return None if self.fix is None else self.fix.safety


@dataclass
class Analysis:
    """What one document gave: findings kept, findings silenced (with why), the parsed tree."""

    diagnostics: List[Diagnostic] = field(default_factory=list)
    suppressed: List[Tuple[Diagnostic, str]] = field(default_factory=list)
    module: Optional["cst.Module"] = None  # None when skipped or unparsable
    suppressions: Optional[Suppressions] = None
    notes: List[str] = field(default_factory=list)  # said once for the file (read as Python 2)

    @property
    def failed(self) -> bool:
        """The document could not be parsed or analysed (a TFE000 finding)."""
        return any(d.code == PARSE_ERROR for d in self.diagnostics)


class Refused(Exception):
    """A file not analysed, and why (too large, or what libcst would take too long on):
    parsing raises it, ``syntax_error`` makes it a TFE000 giving the reason."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def syntax_error(path: str, source: str, error: Exception) -> Diagnostic:
    """TFE000 where the file stops parsing, in CPython's words when it has some."""
    if isinstance(error, Refused):
        return Diagnostic(path, 1, 0, PARSE_ERROR, f"cannot analyse this file: {error.reason}",
                          "error", 1, 0)
    if isinstance(error, (RecursionError, MemoryError)):
        return Diagnostic(path, 1, 0, PARSE_ERROR,
                          "cannot analyse this file: expressions nested too deeply", "error", 1, 0)
    try:
        ast.parse(source)
    except SyntaxError as python_error:
        line, col = python_error.lineno or 1, max((python_error.offset or 1) - 1, 0)
        message = f"syntax error: {python_error.msg}"
    except (RecursionError, MemoryError, ValueError):
        line, col, message = 1, 0, "cannot parse this file"
    else:  # valid Python that libcst cannot parse (newer grammar)
        line, col = getattr(error, "raw_line", 1), getattr(error, "raw_column", 0)
        message = "cannot parse this file with libcst: " + getattr(error, "message", str(error))
    return Diagnostic(path, line, col, PARSE_ERROR, message, "error", line, col)


def internal_error(path: str, error: Exception) -> Diagnostic:
    return Diagnostic(path, 1, 0, PARSE_ERROR,
                      f"internal error in tflint-effective, please report: "
                      f"{type(error).__name__}: {error}", "error", 1, 0)
