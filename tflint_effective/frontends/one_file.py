"""What the CLI does to one file: check it or fix it, returning plain data (``FileResult``).

Plain data lets files be spread over processes (``parallel``) and results be
cached (``cache``) without touching the reporting.
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional, Tuple

from ..engine.suppressions import NEWLINE, OURS, Suppressions
from ..levels import PARSE_ERROR
from ..registry import all_rules
from .config import Config, Resolver
from .documents import SUFFIX as NOTEBOOK, Notebook, NotebookError, PythonFile
from .noqa import JoinedNoqa
from .files import (DEFAULT_MAX_FILE_SIZE, ChangedOnDisk, MissingPath, NotRegularFile, ReadOnlyFile,
                    SourceError, decode, outside, read_bytes, reason, too_large, write_atomic)
from .output import Finding

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.diagnostics import Diagnostic


@dataclass(frozen=True)
class Options:
    """Everything the per-file functions read; plain data."""

    configs: Resolver = field(default_factory=lambda: Resolver(Config()))  # per file (ruff's model)
    stdin_filename: str = "-"
    unsafe_fixes: bool = False
    diff: bool = False
    show_suppressed: bool = False
    fix_details: bool = False  # per-finding diffs and edits (json, sarif)
    prefilter: bool = True  # skip files that import neither TensorFlow nor Keras (prefilter.py)
    roots: Tuple[str, ...] = ()  # real paths ``fix`` may write below (symbolic links)

    def config_for(self, path: str) -> Config:
        """The effective configuration of one file (its displayed name; ``-``: the working
        directory's)."""
        return self.configs.config_for(path)


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




NOTEBOOK_ALLOWANCE = 50  # a notebook's outputs (plots, tables) may make its file this many times the cap


def max_file_size(options: Options, name: str) -> int:
    """The size cap (bytes) for analysing a file: ``max-file-size`` of its configuration.  For a
    notebook it caps the code cells, and the file may be ``read_scale`` times larger."""
    return getattr(options.config_for(name), "max_file_size", DEFAULT_MAX_FILE_SIZE)


def read_scale(name: str) -> int:
    return NOTEBOOK_ALLOWANCE if name.endswith(NOTEBOOK) else 1


def _load(path: str, options: Options, data: Optional[bytes] = None):
    """(display name, document, encoding, the bytes read); SourceError / NotebookError when
    unreadable.  ``data``: the file's bytes, already read (once) by the caller."""
    name = _display_name(path, options)
    limit, scale = max_file_size(options, name), read_scale(name)
    if data is None and path == "-":
        data = sys.stdin.buffer.read(limit * scale + 1) if limit else sys.stdin.buffer.read()
        too_large(name, len(data), limit, scale)
    elif data is None:
        data = read_bytes(Path(path), limit, scale)
    source = decode(data, name)
    document = _document(name, source.text)
    if isinstance(document, Notebook):
        too_large(name, len(document.source.encode("utf-8")), limit, what=" of code cells")
    return name, document, source.encoding, data


def _display_name(path: str, options: Options) -> str:
    """``path``, or for ``-`` (standard input) the name ``--stdin-filename`` gives it."""
    return options.stdin_filename if path == "-" else path


def _document(name: str, text: str):
    return Notebook(text) if name.endswith(NOTEBOOK) else PythonFile(text)


def unreadable(path: str, error: Exception) -> FileResult:
    if isinstance(error, MissingPath):  # a wrong argument rather than a bad file: no finding
        return FileResult(path, error=True, warnings=[f"tflint-effective: {error}"], missing=True)
    if isinstance(error, NotRegularFile):  # a FIFO, device or socket: skipped, not checked
        return FileResult(path, warnings=[f"tflint-effective: warning: {error}"], missing=True)
    return FileResult(path, [Finding(path, 1, 1, 1, 1, PARSE_ERROR, reason(path, error), "error")],
                      error=True)


def _edits(old: str, new: str) -> Tuple[Tuple[int, int, str], ...]:
    """Whole-line replacements turning ``old`` into ``new``: (char offset, length, text)."""
    from difflib import SequenceMatcher

    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    return tuple((starts[i1], starts[i2] - starts[i1], "".join(b[j1:j2]))
                 for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
                 if tag != "equal")


def _finding(d: Diagnostic, name: str, document, module=None, suppressed=None, lines=()) -> Finding:
    cell, line = document.locate(d.line)
    end_cell, end_line = document.locate(max(d.end_line, d.line))
    prefix = document.prefix(d.line)  # a notebook cell's indentation, which IPython removes
    col = d.col + len(prefix)
    end_col = d.end_col + len(document.prefix(d.end_line)) if d.end_line else col
    if end_cell != cell:  # a node across cells: clip to the first cell's line
        end_line, end_col = line, col
    diff, edits = None, ()
    if module is not None and d.fix is not None:
        from ..engine.fix import apply_fixes

        fixed = apply_fixes(module, [d.fix])[0].code
        diff = document.diff(fixed, name)
        edits = _edits(document.source, fixed) if isinstance(document, PythonFile) else ()
    source_line = prefix + lines[d.line - 1] if 0 < d.line <= len(lines) else None  # --show-source
    message = document.message(d.message, d.line) if d.code == PARSE_ERROR else d.message
    return Finding(name, line, col + 1, end_line, end_col + 1, d.code, message, d.severity,
                   cell, d.fix_safety, diff, edits, suppressed, source_line)


def _unknown_codes(suppressions: Suppressions) -> List[Tuple[int, str]]:
    """Codes of ours in suppression comments that name no rule; the rules (and libcst) load
    only when a comment names a code of ours (a file without TensorFlow never does)."""
    if not any(code.upper().startswith(OURS) for _, code in suppressions.named):
        return []
    return suppressions.unknown_codes(_known_codes())


def _known_codes() -> List[str]:
    return [rule.CODE for rule in all_rules()] + [PARSE_ERROR]


def _lint(name: str, document, options: Options) -> FileResult:
    """Findings for one loaded document, suppressions and the minimum severity applied."""
    from ..engine.lint import lint_document

    config = options.config_for(name)

    def analysed():
        return lint_document(document.source, name, *config.selection(name),
                             prefilter=options.prefilter, tensorflow_modules=config.tensorflow_modules,
                             function_decorators=config.function_decorators,
                             tensorflow_versions=config.tensorflow_versions, tf1_directory=config.tf1_directory,
                             severity=config.severity)

    analysis = analysed()
    if analysis.failed and analysis.module is None and document.skip_broken_cells(name):
        analysis = analysed()  # the notebook's cells that parse
    kept, silenced = analysis.diagnostics, analysis.suppressed
    if document.cell_errors:  # notebook cells left out: each its TFE000
        kept = sorted([*document.cell_errors, *kept], key=lambda d: (d.line, d.col))
    lines = NEWLINE.split(document.read_source) if kept or silenced else []  # for --show-source
    if analysis.failed and analysis.module is None:
        return FileResult(name, [_finding(d, name, document, lines=lines) for d in kept], error=True)
    if kept:
        kept, joined = JoinedNoqa(document.source).split(kept)  # # noqa after a continued line
        silenced = silenced + joined
    suppressions = analysis.suppressions or Suppressions.parse(document.source)
    module = analysis.module
    details = module if options.fix_details else None
    result = FileResult(name)
    result.findings = [_finding(d, name, document, details, lines=lines) for d in kept
                       if d.code == PARSE_ERROR or config.reports(d.severity)]
    if options.show_suppressed:
        result.findings += [_finding(d, name, document, details, why, lines) for d, why in silenced
                            if config.reports(d.severity)]
        result.findings.sort(key=lambda f: (f.cell or 0, f.line, f.column, f.code))
    result.error = any(f.code == PARSE_ERROR for f in result.findings)
    result.warnings += [f"{name}: note: {note}" for note in analysis.notes]
    for line, code in _unknown_codes(suppressions):
        cell, line = document.locate(line)
        where = f"{name}:cell {cell}:{line}" if cell is not None else f"{name}:{line}"
        result.warnings.append(f"{where}: warning: {code} in a suppression comment is not a rule code")
    return result


def _one_file(per_file):
    """A crash on one file becomes an internal-error finding for it; the run goes on."""
    @functools.wraps(per_file)
    def guarded(path: str, options: Options, data: Optional[bytes] = None) -> FileResult:
        try:
            return per_file(path, options, data)
        except Exception as error:
            from ..engine.diagnostics import internal_error

            return unreadable(_display_name(path, options),
                               internal_error(path, error).message)
    return guarded


@_one_file
def check_file(path: str, options: Options, data: Optional[bytes] = None) -> FileResult:
    """Lint one file (``-``: standard input; ``data``: its bytes, when already read)."""
    try:
        name, document, _, _ = _load(path, options, data)
    except (SourceError, NotebookError) as error:
        return unreadable(_display_name(path, options), error)
    return _lint(name, document, options)


@_one_file
def fix_file(path: str, options: Options, data: Optional[bytes] = None) -> FileResult:
    """Fix one file in place (or into ``output`` for ``--diff`` and standard input)."""
    try:
        name, document, encoding, data = _load(path, options, data)
    except (SourceError, NotebookError) as error:
        return unreadable(_display_name(path, options), error)
    config = options.config_for(name)
    select, ignore = config.selection(name)

    joined = JoinedNoqa(document.source)

    def accept(d):
        return config.reports(d.severity) and document.same_cell(d) and not joined.silences(d)

    from ..engine.fix import FixError, fix_source

    document.skip_broken_cells(name)
    try:
        fixed = fix_source(document.source, name, select, ignore, options.unsafe_fixes,
                           accept=accept, prefilter=options.prefilter,
                           tensorflow_modules=config.tensorflow_modules,
                           function_decorators=config.function_decorators,
                           tensorflow_versions=config.tensorflow_versions, tf1_directory=config.tf1_directory)
    except FixError as error:
        result = _lint(name, document, options)
        result.warnings.append(f"{name}: warning: {error}")
        result.error = True
        return result
    changed = fixed.source != document.source
    new_text = document.rewrite(fixed.source) if changed else document.text
    if new_text is None:
        result = _lint(name, document, options)
        result.warnings.append(f"{name}: warning: the fixed code cannot be put back into the cells; "
                               "notebook left unchanged")
        return result
    output = ""
    if changed and options.diff:
        output = document.diff(fixed.source, name)
    elif changed and path != "-":
        refused = _write(Path(path), new_text, encoding, options, data)
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


def _write(path: Path, text: str, encoding: str, options: Options, data: bytes) -> Optional[str]:
    """Write the fixed file, unless it is no longer the ``data`` it was made from; the
    reason when it was not written."""
    target = outside(path, options.roots)
    if target is not None:
        return (f"warning: not fixed: a symbolic link to {target}, outside the current directory "
                "and the paths being fixed")
    try:
        write_atomic(path, text, encoding, expected=data)
    except (ReadOnlyFile, ChangedOnDisk) as refusal:
        return f"warning: not fixed: {refusal}"
    except OSError as error:
        return f"error: cannot write the fixed file: {error.strerror or error}"
    return None
