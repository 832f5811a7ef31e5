"""What the language server computes for one buffer, as plain data (no pygls here).

The findings are ``check``'s, from the same pipeline (``one_file._lint``) and the same
per-file configuration; positions are converted to LSP's lines and characters in the
encoding negotiated with the client (UTF-16 unless the client offers another).
Edits are ``(start, end, new text)`` with ``start``/``end`` as ``(line, character)``.
"""
from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from ..levels import PARSE_ERROR, SAFE
from .config import ConfigError, Resolver
from .output import Finding

Position = Tuple[int, int]
Edit = Tuple[Position, Position, str]
NEWLINE = re.compile(r"\r\n|\r|\n")
UNTITLED = "untitled.py"  # an unsaved buffer is configured as a file at the workspace root


class Positions:
    """Code-point columns (the linter's) to the client's units, and offsets to positions."""

    def __init__(self, source: str, encoding: str = "utf-16"):
        self.lines = NEWLINE.split(source)
        self.starts = [0] + [m.end() for m in NEWLINE.finditer(source)]
        self.encoding = encoding

    def units(self, line: int, column: int) -> int:
        """Client units before code point ``column`` of 0-based ``line``."""
        prefix = self.lines[line][:column] if 0 <= line < len(self.lines) else ""
        if self.encoding == "utf-8":
            return len(prefix.encode("utf-8", "surrogatepass"))
        if self.encoding == "utf-32":
            return len(prefix)
        return len(prefix.encode("utf-16-le", "surrogatepass")) // 2

    def position(self, line: int, column: int) -> Position:
        """(line, character) for a 1-based line and 1-based code-point column."""
        return line - 1, self.units(line - 1, column - 1)

    def at_offset(self, offset: int) -> Position:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, self.units(line, offset - self.starts[line])


@dataclass
class Buffer:
    """One analysed version of a document."""

    text: str
    path: str  # the name configured (a file path, or untitled.py at the workspace root)
    findings: List[Finding] = field(default_factory=list)
    problem: Optional[str] = None  # a broken configuration: shown as one diagnostic


def configured_path(path: Optional[str], root: Optional[str]) -> str:
    """The path a buffer is configured as: its own, or for an unsaved one the workspace root's."""
    return path or os.path.join(root or os.getcwd(), UNTITLED)


def analyse(text: str, path: str, root: Optional[str] = None) -> Buffer:
    """Lint a buffer as ``check`` would lint the file ``path``; never raises.

    The configuration is read afresh (a saved pyproject.toml applies at once); a file the
    configuration excludes gets no findings.
    """
    from ..engine.threads import on_deep_stack
    from .discovery import excluded_named
    from .documents import PythonFile
    from .one_file import Options, _lint

    buffer = Buffer(text, path)
    options = Options(configs=Resolver(cwd=root or os.getcwd()), fix_details=True)
    try:
        if os.path.basename(path) != UNTITLED and excluded_named(path, options.configs):
            return buffer
        buffer.findings = on_deep_stack(_lint, path, PythonFile(text), options).findings
    except ConfigError as error:
        buffer.problem = f"tflint-effective: {error}"
    except Exception as error:  # never take the server down: one diagnostic says why
        from ..engine.diagnostics import internal_error

        message = internal_error(path, error).message
        buffer.findings = [Finding(path, 1, 1, 1, 1, PARSE_ERROR, message, "error")]
    return buffer


def finding_range(finding: Finding, positions: Positions) -> Tuple[Position, Position]:
    start = positions.position(finding.line, finding.column)
    end = positions.position(finding.end_line, finding.end_column)
    return start, max(start, end)


def _edits(old: str, new: str, positions: Positions) -> List[Edit]:
    from .one_file import _edits as line_edits

    return [(positions.at_offset(offset), positions.at_offset(offset + length), text)
            for offset, length, text in line_edits(old, new)]


def quick_fix(buffer: Buffer, finding: Finding, positions: Positions) -> Optional[List[Edit]]:
    """The edits of a finding's safe fix (None: it has none)."""
    if finding.fix_safety != SAFE or not finding.edits:
        return None
    return [(positions.at_offset(offset), positions.at_offset(offset + length), text)
            for offset, length, text in finding.edits]


def noqa_edit(buffer: Buffer, finding: Finding, positions: Positions) -> List[Edit]:
    """``# noqa: CODE`` for one finding, where ``check --add-noqa`` would put it."""
    from .noqa import add_noqa

    new, _ = add_noqa(buffer.text, [(finding.line, finding.code)])
    return _edits(buffer.text, new, positions)


def fix_all(buffer: Buffer, positions: Positions) -> List[Edit]:
    """Every safe fix, applied as ``fix`` would (to a fixed point); [] when none applies."""
    from ..engine.fix import FixError, fix_source
    from ..engine.threads import on_deep_stack
    from .noqa import JoinedNoqa

    if buffer.problem or not any(f.fix_safety == SAFE for f in buffer.findings):
        return []
    config = Resolver(cwd=os.path.dirname(buffer.path)).config_for(buffer.path)
    joined = JoinedNoqa(buffer.text)
    try:
        fixed = on_deep_stack(fix_source, buffer.text, buffer.path, *config.selection(buffer.path),
                              accept=lambda d: config.reports(d.severity) and not joined.silences(d),
                              tensorflow_modules=config.tensorflow_modules,
                              function_decorators=config.function_decorators,
                              tensorflow_versions=config.tensorflow_versions,
                              tf1_directory=config.tf1_directory)
    except (FixError, ConfigError):
        return []
    return _edits(buffer.text, fixed.source, positions)
