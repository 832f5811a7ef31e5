"""Jupyter notebooks: the code cells linted as one module, reported and fixed per cell.

The code cells are joined in order, so an import in cell 1 resolves a name in
cell 7; each is preceded by a marker comment, which lets a fixed module be cut
back into cells.  IPython line magics, ``!shell`` and ``?help`` lines become
``pass`` placeholders (same line count) and are put back on writing, so is the first line of a
cell magic whose body is Python (``%%time``, ``%%capture``); a cell under any other cell magic
(``%%bash``, ``%%writefile``) is not Python here and is skipped.  As IPython does, a
cell whose first non-blank line is indented loses that indentation on every line that
starts with it (findings keep the cell's own columns; fixes put it back).  When the joined cells do
not parse and are not Python 2 (which the engine reads whole), each cell that does not parse on its
own -- Jupyter would refuse to run it -- is left out, with a TFE000 of its own, and the others are
checked (``skip_broken_cells``).  Cells are
numbered from 1 over all cells, markdown included, as ruff does.  Fixes may
touch only one cell; the notebook is written back with only the text of the
changed cells' ``source`` values replaced, in the layout of the value it replaces
(a list of lines or one string, its separators, its escaping): every other byte
-- line endings, numbers, duplicate keys, outputs -- stays as it was.
"""
from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ..engine.diagnostics import Diagnostic, syntax_error
from ..engine.ipython import mask_magics, unmask_magics

SUFFIX = ".ipynb"
MARKER = "# <tflint-effective cell {}>"
MARKER_LINE = re.compile(r"^# <tflint-effective cell (\d+)>$", re.MULTILINE)
CELL_MAGIC = re.compile(r"\s*%%(\w*)")
# Cell magics whose body is Python run in the notebook's namespace: read like other cells, the magic
# line masked like a line magic.  Any other (``%%bash``, ``%%writefile``, ``%%python3``: another process) is skipped.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
# the indentation of a cell's first non-blank line, a comment's too (IPython's leading_indent)
LEADING_INDENT = re.compile(r"(?:[ \t\f]*\r?\n)*([ \t]+)\S")
# A call that switches the execution mode: a cell left out with one would change how the others read.
MODE_SWITCH = re.compile(r"\b(?:enable|disable)_(?:eager_execution|v2_behavior)\b|\brun_functions_eagerly\b")
ON_LINE = re.compile(r"\bon line (\d+)\b")  # a syntax error's reference to an earlier line


class NotebookError(ValueError):
    """Not a notebook we can read (invalid JSON, nbformat 3, ...)."""


@dataclass
class Cell:
    number: int  # 1-based over all cells
    index: int  # position in data["cells"]
    text: str  # the cell's source as stored
    code: str  # what is linted: magics replaced, ending in a newline
    magics: List[str]  # the replaced lines, in order
    first_line: int = 0  # line of the cell's first code line in the joined module
    indent: str = ""  # the leading indentation IPython removes from the cell's lines
    broken: bool = False  # does not parse on its own: left out of the joined module

    def dedented(self) -> str:
        return _dedent(self.text, self.indent)

    def indented(self, text: str) -> Optional[str]:
        """``text``, a new version of the cell's dedented text, with the indentation back;
        None when putting it back would not give the cell's own text for its own lines."""
        if not self.indent:
            return text
        if _indent(self.dedented(), self.indent) != self.text:
            return None  # a less indented line (in a string): its place is unknown
        return _indent(text, self.indent)


def _dedent(text: str, indent: str) -> str:
    return "".join(line[len(indent):] if indent and line.startswith(indent) else line for line in _split(text))


def _indent(text: str, indent: str) -> str:
    return "".join(indent + line if line.strip() else line for line in _split(text))


def _split(text: str) -> List[str]:
    """The lines of ``text`` as the joined module counts them, each with its newline."""
    return re.findall(r"[^\n]*\n|[^\n]+", text)


def _table(data, key: str) -> dict:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _python(data: dict) -> bool:
    metadata = _table(data, "metadata")
    language = (_table(metadata, "kernelspec").get("language")
                or _table(metadata, "language_info").get("name") or "python")
    return str(language).lower() == "python"


def _cell_text(raw, number: int) -> str:
    """A cell's source: a string or a list of strings (nbformat 4 allows both)."""
    source = raw.get("source") if isinstance(raw, dict) else None
    if isinstance(source, list) and all(isinstance(part, str) for part in source):
        return "".join(source)
    if isinstance(source, str) or (source is None and isinstance(raw, dict)):
        return source or ""
    raise NotebookError(f"cannot parse this notebook: cell {number} has no text `source`")


class Notebook:
    """A parsed .ipynb file; ``source`` is the module the linter sees."""

    def __init__(self, text: str, python_cell_magics=PYTHON_CELL_MAGICS):
        self.text = text
        try:
            self.data = json.loads(text)
        except json.JSONDecodeError as error:
            raise NotebookError(f"cannot parse this notebook: invalid JSON: {error}") from None
        if not isinstance(self.data, dict) or not isinstance(self.data.get("cells"), list):
            raise NotebookError("cannot parse this notebook: no `cells` list (nbformat 4 is supported)")
        self.cells: List[Cell] = []
        parts: List[str] = []
        line = 1
        for index, raw in enumerate(self.data["cells"] if _python(self.data) else ()):
            cell_text = _cell_text(raw, index + 1)
            magic = CELL_MAGIC.match(cell_text)
            if raw.get("cell_type") != "code" or magic and magic.group(1) not in python_cell_magics:
                continue
            leading = LEADING_INDENT.match(cell_text)
            indent = leading.group(1) if leading else ""
            code, magics = mask_magics(_dedent(cell_text, indent))
            cell = Cell(index + 1, index, cell_text, code, magics, first_line=line + 1, indent=indent)
            self.cells.append(cell)
            parts += [MARKER.format(cell.number), "\n", code]
            line += 1 + code.count("\n")
        self.source = self.read_source = "".join(parts)  # read_source: before cells are left out
        self.cell_errors: List[Diagnostic] = []
        self._starts = [cell.first_line for cell in self.cells]

    def skip_broken_cells(self, name: str) -> bool:
        """When the joined module does not parse, blank each cell that does not parse on its own
        (its lines stay, empty), keep its syntax error, at its place in ``source``, in
        ``cell_errors`` and say so; nothing when the module parses, when it reads as Python 2
        (the engine translates it whole), when no cell parses, or when a cell left out would
        switch the execution mode (the others would be read in the wrong one)."""
        from ..engine.lint import parses_as_python3
        from ..engine.python2 import looks_like_python2

        if self.cell_errors or parses_as_python3(self.source) or looks_like_python2(self.source):
            return False
        broken = [cell for cell in self.cells if not parses_as_python3(cell.code)]
        if len(broken) == len(self.cells) or any(MODE_SWITCH.search(cell.code) for cell in broken):
            return False  # the joined module's one error
        lines = self.source.split("\n")
        for cell in broken:
            error = syntax_error(name, cell.code, SyntaxError())  # CPython's words for the cell alone
            line, shift = cell.first_line + error.line - 1, cell.first_line - 1
            message = ON_LINE.sub(lambda m: f"on line {int(m.group(1)) + shift}", error.message)
            self.cell_errors.append(Diagnostic(name, line, error.col, error.code, message, "error", line, error.col))
            cell.broken = True
            count = cell.code.count("\n")
            lines[cell.first_line - 1:cell.first_line - 1 + count] = [""] * count
        self.source = "\n".join(lines)
        return True

    # -- positions -------------------------------------------------------------
    def locate(self, line: int) -> Tuple[Optional[int], int]:
        """(cell number, line within the cell) for a line of ``source``."""
        at = bisect.bisect_right(self._starts, line) - 1
        if at < 0:
            return None, line
        cell = self.cells[at]
        return cell.number, line - cell.first_line + 1

    def message(self, text: str, line: int) -> str:
        """A syntax error's ``text`` about ``line`` (of ``source``), its ``on line N`` in cell terms."""
        def cell_line(match) -> str:
            cell, within = self.locate(int(match.group(1)))
            return f"on line {within}" + (f" of cell {cell}" if cell != self.locate(line)[0] else "")
        return ON_LINE.sub(cell_line, text)

    def prefix(self, line: int) -> str:
        """The indentation the cell of ``line`` (of ``source``) lost on that line."""
        at = bisect.bisect_right(self._starts, line) - 1
        if at < 0 or not self.cells[at].indent:
            return ""
        cell = self.cells[at]
        lines = _split(cell.text)
        within = line - cell.first_line
        return cell.indent if within < len(lines) and lines[within].startswith(cell.indent) else ""

    def same_cell(self, diagnostic) -> bool:
        """Whether a finding (and so its fix) lies within one cell."""
        end = max(diagnostic.line, diagnostic.end_line)
        return self.locate(diagnostic.line)[0] == self.locate(end)[0]

    # -- rewriting ---------------------------------------------------------------
    def changed_cells(self, fixed_source: str) -> Optional[Dict[int, str]]:
        """Cell index -> new source text, for the cells a fixed module changes.

        None when the fixed module cannot be cut back into the same cells.
        """
        pieces = MARKER_LINE.split(fixed_source)
        numbers = [int(n) for n in pieces[1::2]]
        if numbers != [cell.number for cell in self.cells]:
            return None
        head, bodies = pieces[0], pieces[2::2]
        changed = {}
        for position, (cell, body) in enumerate(zip(self.cells, bodies)):
            body = body[1:] if body.startswith("\n") else body  # the marker's own newline
            if position == 0:
                body = head + body  # an import added above the first marker
            if cell.broken:
                if body.strip():
                    return None  # a fix wrote into a cell left out
                continue
            text = unmask_magics(body, cell.magics)
            if text is None:
                return None
            if not cell.text.endswith("\n") and text.endswith("\n"):
                text = text[:-1]
            if text != cell.dedented():
                text = cell.indented(text)
                if text is None:
                    return None
                changed[cell.index] = text
        return changed

    def rewrite(self, fixed_source: str) -> Optional[str]:
        """The notebook's new JSON text, or None if the fixes moved code between cells."""
        changed = self.changed_cells(fixed_source)
        return None if changed is None else self.render(changed)

    def render(self, changed: Dict[int, str]) -> str:
        """The notebook's text with new sources for ``changed`` cells: only the bytes of
        those ``source`` values change."""
        spans = source_spans(self.text)
        text = self.text
        for index in sorted(changed, reverse=True):
            start, end = spans[index]
            text = text[:start] + _source_value(self.text, start, end, changed[index]) + text[end:]
        return text

    def diff(self, fixed_source: str, name: str) -> str:
        """Unified diff of the cells ``fixed_source`` changes (headers name the cell)."""
        import difflib

        changed = self.changed_cells(fixed_source) or {}
        chunks = []
        for cell in self.cells:
            if cell.index in changed:
                label = f"{name}:cell {cell.number}"
                chunks += difflib.unified_diff(_lines(cell.text), _lines(changed[cell.index]),
                                               f"a/{label}", f"b/{label}")
        return "".join(chunks)


def _lines(text: str) -> List[str]:
    return [line if line.endswith("\n") else line + "\n" for line in text.splitlines(keepends=True)]


# -- where each cell's source is in the text -----------------------------------------
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()


def _members(text: str, at: int):
    """(key, value start, value end) of the JSON object starting at ``at``."""
    at = _skip(text, at + 1)
    if text.startswith("}", at):
        return
    while True:
        if not text.startswith('"', at):
            raise ValueError("expected a key")
        key, at = json.decoder.scanstring(text, at + 1)
        at = _skip(text, at)
        if not text.startswith(":", at):
            raise ValueError("expected ':'")
        start = _skip(text, at + 1)
        end = _DECODER.raw_decode(text, start)[1]
        yield key, start, end
        at = _skip(text, end)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
        elif text.startswith("}", at):
            return
        else:
            raise ValueError("expected ',' or '}'")


def _elements(text: str, at: int) -> List[Tuple[int, int]]:
    """(start, end) of each element of the JSON array starting at ``at``."""
    spans = []
    at = _skip(text, at + 1)
    while not text.startswith("]", at):
        end = _DECODER.raw_decode(text, at)[1]
        spans.append((at, end))
        at = _skip(text, end)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
        elif not text.startswith("]", at):
            raise ValueError("expected ',' or ']'")
    return spans


def source_spans(text: str) -> Dict[int, Tuple[int, int]]:
    """Cell index -> (start, end) of its ``source`` value in the notebook's text; the last
    of duplicate keys, as ``json.loads`` takes it."""
    start = _skip(text, 0)
    cells = None
    for key, value, end in _members(text, start):
        if key == "cells":
            cells = value
    spans = {}
    for index, (cell, _) in enumerate(_elements(text, cells) if cells is not None else ()):
        if text.startswith("{", cell):
            for key, value, end in _members(text, cell):
                if key == "source":
                    spans[index] = (value, end)
    return spans


def _source_value(text: str, start: int, end: int, new: str) -> str:
    """``new`` as a JSON value laid out like the one at ``text[start:end]``: one string, or
    a list of lines with the same separators; escaped like the file (non-ASCII or not)."""
    ascii_only = text.isascii()
    old = text[start:end]
    if not old.startswith("["):
        return json.dumps(new, ensure_ascii=ascii_only)
    lines = _split(new)
    items = _elements(text, start)
    opening = text[start + 1:items[0][0]] if items else ""
    closing = text[items[-1][1]:end - 1] if items else ""
    if len(items) >= 2:
        separator = text[items[0][1]:items[1][0]]
    else:
        separator = "," + opening if "\n" in opening else ", "
    if not lines:
        return "[]"
    if not items:  # an empty list: one line per item, unindented
        opening = closing = ""
    return "[" + opening + separator.join(json.dumps(line, ensure_ascii=ascii_only) for line in lines) + closing + "]"


class PythonFile:
    """A .py file; same interface as ``Notebook``."""

    def __init__(self, text: str):
        self.text = self.source = self.read_source = text  # as stored / as linted
        self.cell_errors = ()

    def locate(self, line: int) -> Tuple[Optional[int], int]:
        return None, line

    def prefix(self, line: int) -> str:
        return ""

    def skip_broken_cells(self, name: str) -> bool:
        return False

    def message(self, text: str, line: int) -> str:
        return text

    def same_cell(self, diagnostic) -> bool:
        return True

    def rewrite(self, fixed: str) -> Optional[str]:
        return fixed

    def diff(self, fixed: str, name: str) -> str:
        import difflib

        return "".join(difflib.unified_diff(self.source.splitlines(keepends=True),
                                            fixed.splitlines(keepends=True), f"a/{name}", f"b/{name}"))
