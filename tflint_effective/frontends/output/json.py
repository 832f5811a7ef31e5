"""A stable JSON document (schema version 1), described in README.md, "Output formats"."""
from __future__ import annotations

import json

from ...registry import rule_by_code
from .summary import counts

SCHEMA_VERSION = 1


def finding(f) -> dict:
    rule = rule_by_code(f.code)
    return {
        "path": f.path,
        "cell": f.cell,
        "line": f.line,
        "column": f.column,
        "end_line": f.end_line,
        "end_column": f.end_column,
        "code": f.code,
        "rule": rule.name() if rule else None,
        "severity": f.severity,
        "message": f.message,
        "fix": None if f.fix_safety is None else {"safety": f.fix_safety, "diff": f.diff},
        "suppressed": f.suppressed,
    }


def document(run) -> dict:
    return {"schema_version": SCHEMA_VERSION,
            "findings": [finding(f) for f in run.findings],
            "summary": counts(run)}


def render(run, colour: bool = False) -> str:
    return json.dumps(document(run), indent=2, ensure_ascii=False) + "\n"
