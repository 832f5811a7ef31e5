"""GitHub Actions workflow commands: ``::warning file=...,line=...::message`` annotations.

Notebook findings are annotated on the file, with the cell and line in the
title (GitHub cannot place a line of a cell in the notebook's JSON).
Suppressed findings are not annotated.
"""
from __future__ import annotations

from ...registry import rule_by_code

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f) -> str:
    rule = rule_by_code(f.code)
    title = f"{f.code} {rule.name()}" if rule else f.code
    if f.cell is None:
        where = (f"line={f.line},col={f.column},"
                 f"endLine={f.end_line},endColumn={f.end_column},")
    else:
        where, title = "", f"{title} (cell {f.cell}, line {f.line})"
    return (f"::{LEVEL.get(f.severity, 'warning')} file={_property(f.path)},{where}"
            f"title={_property(title)}::{_data(f.message)}")


def render(run, colour: bool = False) -> str:
    return "".join(annotation(f) + "\n" for f in run.reported)
