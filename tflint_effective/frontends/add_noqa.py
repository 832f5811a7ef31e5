"""``check --add-noqa``: every reported line gets ``# noqa: CODE`` (see ``noqa.add_noqa``)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from ..engine.lint import parses_as_python3
from .documents import NotebookError
from .files import SourceError
from .noqa import add_noqa
from .one_file import _display_name, _document, _lint, _load, _one_file, _write, unreadable


def _document_line(document, finding) -> int:
    """A finding's line in the linted module (notebooks: the cells joined)."""
    if finding.cell is None:
        return finding.line
    cell = next(c for c in document.cells if c.number == finding.cell)
    return cell.first_line + finding.line - 1


@_one_file
def add_noqa_file(path: str, options, data: Optional[bytes] = None):
    """``check --add-noqa`` on one file: comment every reported line, then report what remains.

    ``FileResult.fixed`` counts the lines that got a comment; standard input is written to
    ``output``.  A result that would not parse is not written (a warning says so).
    """
    try:
        name, document, encoding, data = _load(path, options, data)
    except (SourceError, NotebookError) as error:
        return unreadable(_display_name(path, options), error)
    result = _lint(name, document, options)
    result.output = document.text if path == "-" else ""
    if result.error or not result.findings:
        return result
    pairs = [(_document_line(document, f), f.code) for f in result.findings if f.suppressed is None]
    source, changed = add_noqa(document.source, pairs)
    if not changed:
        return result
    new_text = document.rewrite(source)
    if new_text is None or (parses_as_python3(document.source) and not parses_as_python3(source)):
        result.warnings.append(f"{name}: warning: could not add # noqa comments that parse; "
                               "file left unchanged")
        return result
    if path != "-":
        refused = _write(Path(path), new_text, encoding, options, data)
        if refused:
            result.warnings.append(f"{name}: {refused}; file left unchanged")
            result.error = refused.startswith("error")
            return result
    result = _lint(name, _document(name, new_text), options)
    result.fixed, result.output = changed, new_text if path == "-" else ""
    return result


def added_line(results) -> str:
    """``Added 3 noqa comments to 2 files.``"""
    from .output.summary import plural

    files = [r for r in results if r.fixed]
    return (f"Added {plural(sum(r.fixed for r in files), 'noqa comment')} "
            f"to {plural(len(files), 'file')}.")
