"""Cache entries: a ``check`` result without the file's name, and back, checked field by field.

A finding is stored without its path, the headers of its diff (``--- a/NAME``)
and warnings that start with the file's name without it: the name a later run
displays is put back on loading.  Loading
accepts only what ``entry_for`` writes -- the same fields, each of its declared
type -- so a damaged, truncated or foreign entry is a miss, never a crash or a
wrong report.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from .one_file import FileResult
from .output import Finding

_SIMPLE = {"str": str, "int": int, "bool": bool, "float": (int, float)}
_EDITS = "Tuple[Tuple[int, int, str], ...]"


def entry_for(result: FileResult, name: str) -> Optional[dict]:
    """The entry for a result of a file shown as ``name``; None when it must not be kept
    (the file could not be analysed, or the result is not a plain check result)."""
    if result.error or result.missing or result.changed or result.output or result.path != name:
        return None
    findings = []
    for finding in result.findings:
        if finding.path != name:
            return None
        stored = {f.name: _json(getattr(finding, f.name)) for f in dataclasses.fields(Finding)
                  if f.name != "path"}
        if stored.get("diff"):
            stored["diff"] = _without_name(stored["diff"], name)
        findings.append(stored)
    warnings = [["name", w[len(name):]] if w.startswith(name) else ["text", w] for w in result.warnings]
    rest = {f.name: _json(getattr(result, f.name)) for f in dataclasses.fields(FileResult)
            if f.name not in ("path", "findings", "warnings")}
    return {"findings": findings, "warnings": warnings, "result": rest}


def _json(value):
    if isinstance(value, (tuple, list)):
        return [_json(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot keep a {type(value).__name__} in the cache")


def result_from(entry: dict, name: str) -> Optional[FileResult]:
    """The FileResult an entry holds, shown as ``name``; None unless the entry is well formed."""
    try:
        findings = [_finding(_fields(Finding, item, skip="path"), name) for item in _list(entry["findings"])]
        warnings = [_warning(item, name) for item in _list(entry["warnings"])]
        rest = _fields(FileResult, entry["result"], skip=("path", "findings", "warnings"))
        return FileResult(path=name, findings=findings, warnings=warnings, **rest)
    except (KeyError, TypeError, ValueError):
        return None


# Diff headers name the file: ``--- a/NAME`` (``--- a/NAME:cell 3``).  NUL stands for
# the name: decoded sources never hold one.
_HEADERS = ("--- a/", "+++ b/")
NAME_MARK = "\0"


def _without_name(diff: str, name: str) -> str:
    lines = diff.splitlines(keepends=True)
    for i, line in enumerate(lines):
        for header in _HEADERS:
            if line.startswith(header + name):
                lines[i] = header + NAME_MARK + line[len(header + name):]
    return "".join(lines)


def _with_name(diff: str, name: str) -> str:
    lines = diff.splitlines(keepends=True)
    for i, line in enumerate(lines):
        for header in _HEADERS:
            if line.startswith(header + NAME_MARK):
                lines[i] = header + name + line[len(header) + 1:]
    return "".join(lines)


def _finding(values: dict, name: str) -> Finding:
    if values.get("diff"):
        values["diff"] = _with_name(values["diff"], name)
    return Finding(path=name, **values)


class _Bad(ValueError):
    pass


def _list(value) -> list:
    if not isinstance(value, list):
        raise _Bad("not a list")
    return value


def _warning(item, name: str) -> str:
    if not (isinstance(item, list) and len(item) == 2 and item[0] in ("name", "text")
            and isinstance(item[1], str)):
        raise _Bad("not a warning")
    return name + item[1] if item[0] == "name" else item[1]


def _fields(kind: type, item, skip=()) -> dict:
    """``item``'s values for the fields of dataclass ``kind`` (all of them but ``skip``),
    each checked against the field's declared type."""
    wanted = {f.name: f.type for f in dataclasses.fields(kind) if f.name not in skip}
    if not isinstance(item, dict) or set(item) != set(wanted):
        raise _Bad(f"not a {kind.__name__}")
    return {key: _typed(str(wanted[key]), value) for key, value in item.items()}


def _typed(annotation: str, value):
    """``value`` as the declared type (JSON lists become tuples); _Bad when it is not one."""
    if annotation.startswith("Optional[") and annotation.endswith("]"):
        return None if value is None else _typed(annotation[len("Optional["):-1], value)
    kind = _SIMPLE.get(annotation)
    if kind is not None:
        if isinstance(value, kind) and (annotation == "bool" or not isinstance(value, bool)):
            return value
        raise _Bad(f"not a {annotation}")
    if annotation == _EDITS:
        return tuple(_edit(edit) for edit in _list(value))
    if annotation.startswith("Tuple"):  # another tuple field: plain values
        return _plain_tuple(value)
    raise _Bad(f"cannot check a {annotation}")


def _edit(edit) -> tuple:
    if (isinstance(edit, list) and len(edit) == 3 and all(type(n) is int for n in edit[:2])
            and isinstance(edit[2], str)):
        return tuple(edit)
    raise _Bad("not an edit")


def _plain_tuple(value) -> tuple:
    if isinstance(value, list):
        return tuple(_plain_tuple(item) if isinstance(item, list) else _scalar(item) for item in value)
    raise _Bad("not a list")


def _scalar(value):
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise _Bad("not a plain value")
