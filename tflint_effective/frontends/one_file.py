"""What the CLI does to one file: check it or fix it, returning plain data (``FileResult``).

Plain data lets files be spread over processes (``parallel``) and results be
cached (``cache``) without touching the reporting.
"""
from __future__ import annotations

import difflib
import functools
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional, Tuple

from ..engine.suppressions import Suppressions
from ..levels import PARSE_ERROR
from ..registry import all_rules
from .config import Config
from .documents import SUFFIX as NOTEBOOK, Notebook, NotebookError, PythonFile
from .files import MissingPath, SourceError, decode, outside, read_source, reason, write_atomic
from .output import Finding

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.diagnostics import Diagnostic


@dataclass(frozen=True)
class Options:
    """Everything the per-file functions read; plain data."""

    config: Config = Config()
    stdin_filename: str = "-"
    unsafe_fixes: bool = False
    diff: bool = False
    show_suppressed: bool = False
    fix_details: bool = False  # per-finding diffs and edits (json, sarif)
    prefilter: bool = True  # skip files that import no TensorFlow (prefilter.py)
    roots: Tuple[str, ...] = ()  # real paths ``fix`` may write below (symbolic links)

    def config_for(self, path: str) -> Config:
        """The effective configuration of one file."""
        return self.config


@dataclass
class FileResult:
    path: str
    findings: List[Finding] = field(default_factory=list)
    error: bool = False  # could not be read, parsed or fixed
    changed: bool = False
    fixed: int = 0
    output: str = ""  # --diff text, or the fixed standard input
    warnings: List[str] = field(default_factory=list)
    missing: bool = False  # a path named on the command line that does not exist




def _load(path: str, options: Options):
    """(display name, document, encoding); SourceError / NotebookError when unreadable."""
    name = _display_name(path, options)
    source = decode(sys.stdin.buffer.read(), name) if path == "-" else read_source(Path(path))
    return name, _document(name, source.text), source.encoding


def _display_name(path: str, options: Options) -> str:
    """``path``, or for ``-`` (standard input) the name ``--stdin-filename`` gives it."""
    return options.stdin_filename if path == "-" else path


def _document(name: str, text: str):
    return Notebook(text) if name.endswith(NOTEBOOK) else PythonFile(text)


def unreadable(path: str, error: Exception) -> FileResult:
    if isinstance(error, MissingPath):  # a wrong argument rather than a bad file: no finding
        return FileResult(path, error=True, warnings=[f"tflint-effective: {error}"], missing=True)
    return FileResult(path, [Finding(path, 1, 1, 1, 1, PARSE_ERROR, reason(path, error), "error")],
                      error=True)


def _edits(old: str, new: str) -> Tuple[Tuple[int, int, str], ...]:
    """Whole-line replacements turning ``old`` into ``new``: (char offset, length, text)."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    return tuple((starts[i1], starts[i2] - starts[i1], "".join(b[j1:j2]))
                 for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
                 if tag != "equal")


def _finding(d: Diagnostic, name: str, document, module=None, suppressed=None) -> Finding:
    cell, line = document.locate(d.line)
    end_cell, end_line = document.locate(max(d.end_line, d.line))
    end_col = d.end_col if d.end_line else d.col
    if end_cell != cell:  # a node across cells: clip to the first cell's line
        end_line, end_col = line, d.col
    diff, edits = None, ()
    if module is not None and d.fix is not None:
        from ..engine.fix import apply_fixes

        fixed = apply_fixes(module, [d.fix])[0].code
        diff = document.diff(fixed, name)
        edits = _edits(document.source, fixed) if isinstance(document, PythonFile) else ()
    return Finding(name, line, d.col + 1, end_line, end_col + 1, d.code, d.message, d.severity,
                   cell, d.fix_safety, diff, edits, suppressed)


def _known_codes() -> List[str]:
    return [rule.CODE for rule in all_rules()] + [PARSE_ERROR]


def _lint(name: str, document, options: Options) -> FileResult:
    """Findings for one loaded document, suppressions and the minimum severity applied."""
    from ..engine.lint import lint_document

    config = options.config_for(name)
    analysis = lint_document(document.source, name, *config.selection(name),
                             prefilter=options.prefilter, tensorflow_modules=config.tensorflow_modules)
    kept, silenced = analysis.diagnostics, analysis.suppressed
    if analysis.failed and analysis.module is None:
        return FileResult(name, [_finding(d, name, document) for d in kept], error=True)
    suppressions = analysis.suppressions or Suppressions.parse(document.source)
    module = analysis.module
    details = module if options.fix_details else None
    result = FileResult(name)
    result.findings = [_finding(d, name, document, details) for d in kept
                       if d.code == PARSE_ERROR or config.reports(d.severity)]
    if options.show_suppressed:
        result.findings += [_finding(d, name, document, details, why) for d, why in silenced
                            if config.reports(d.severity)]
        result.findings.sort(key=lambda f: (f.cell or 0, f.line, f.column, f.code))
    result.error = any(f.code == PARSE_ERROR for f in result.findings)
    for line, code in suppressions.unknown_codes(_known_codes()):
        cell, line = document.locate(line)
        where = f"{name}:cell {cell}:{line}" if cell is not None else f"{name}:{line}"
        result.warnings.append(f"{where}: warning: {code} in a suppression comment is not a rule code")
    return result


def _one_file(per_file):
    """A crash on one file becomes an internal-error finding for it; the run goes on."""
    @functools.wraps(per_file)
    def guarded(path: str, options: Options) -> FileResult:
        try:
            return per_file(path, options)
        except Exception as error:
            from ..engine.diagnostics import internal_error

            return unreadable(_display_name(path, options),
                               internal_error(path, error).message)
    return guarded


@_one_file
def check_file(path: str, options: Options) -> FileResult:
    """Lint one file (``-``: standard input)."""
    try:
        name, document, _ = _load(path, options)
    except (SourceError, NotebookError) as error:
        return unreadable(_display_name(path, options), error)
    return _lint(name, document, options)


@_one_file
def fix_file(path: str, options: Options) -> FileResult:
    """Fix one file in place (or into ``output`` for ``--diff`` and standard input)."""
    try:
        name, document, encoding = _load(path, options)
    except (SourceError, NotebookError) as error:
        return unreadable(_display_name(path, options), error)
    config = options.config_for(name)
    select, ignore = config.selection(name)

    def accept(d):
        return config.reports(d.severity) and document.same_cell(d)

    from ..engine.fix import FixError, fix_source

    try:
        fixed = fix_source(document.source, name, select, ignore, options.unsafe_fixes,
                           accept=accept, prefilter=options.prefilter,
                           tensorflow_modules=config.tensorflow_modules)
    except FixError as error:
        result = _lint(name, document, options)
        result.warnings.append(f"{name}: warning: {error}")
        result.error = True
        return result
    changed = fixed.source != document.source
    new_text = document.rewrite(fixed.source) if changed else document.text
    if new_text is None:
        result = _lint(name, document, options)
        result.warnings.append(f"{name}: warning: the fixes would move code between cells; "
                               "notebook left unchanged")
        return result
    output = ""
    if changed and options.diff:
        output = document.diff(fixed.source, name)
    elif changed and path != "-":
        refused = _write(Path(path), new_text, encoding, options)
        if refused:
            result = _lint(name, document, options)
            result.warnings.append(f"{name}: {refused}; file left unchanged")
            result.error = refused.startswith("error")
            return result
    elif path == "-" and not options.diff:
        output = new_text
    result = _lint(name, _document(name, new_text), options)  # what remains
    result.changed, result.fixed, result.output = changed, fixed.applied, output
    return result


def _write(path: Path, text: str, encoding: str, options: Options) -> Optional[str]:
    """Write the fixed file; the reason when it was not written."""
    target = outside(path, options.roots)
    if target is not None:
        return (f"warning: not fixed: a symbolic link to {target}, outside the current directory "
                "and the paths being fixed")
    try:
        write_atomic(path, text, encoding)
    except OSError as error:
        return f"error: cannot write the fixed file: {error.strerror or error}"
    return None
