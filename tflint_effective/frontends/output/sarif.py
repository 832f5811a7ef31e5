"""SARIF 2.1.0 for GitHub code scanning: rule metadata, results, fixes, suppressions."""
from __future__ import annotations

import json
from pathlib import PurePath
from urllib.parse import quote

from ... import __version__
from ...levels import PARSE_ERROR
from ...registry import all_rules
from .text import SUPPRESSED

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def rule_descriptor(rule) -> dict:
    from ..docs import rule_markdown, rule_text, title

    return {
        "id": rule.CODE,
        "name": rule.name(),
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": title(rule)},
        "help": {"text": rule_text(rule), "markdown": rule_markdown(rule)},
        "defaultConfiguration": {"level": LEVEL[rule.default_severity()]},
        "properties": {"precision": "high", "tags": ["tensorflow"], "fix-safety": rule.FIX_SAFETY},
    }


PARSE_ERROR_DESCRIPTOR = {
    "id": PARSE_ERROR,
    "name": "parse_error",
    "shortDescription": {"text": "The file could not be read or parsed, so it was not checked."},
    "fullDescription": {"text": "The file could not be read or parsed, so it was not checked."},
    "help": {"text": "Fix the syntax error or the file's encoding; nothing else is reported for it."},
    "defaultConfiguration": {"level": "error"},
    "properties": {"precision": "very-high", "tags": ["tensorflow"]},
}


def uri(path: str) -> str:
    return quote(PurePath(path).as_posix())


def result(f, index: dict) -> dict:
    region = {"startLine": f.line, "startColumn": f.column,
              "endLine": f.end_line, "endColumn": f.end_column}
    entry = {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": LEVEL.get(f.severity, "warning"),
        "message": {"text": f.message},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(f.path)}, "region": region}}],
    }
    if f.cell is not None:  # the region counts lines within this cell, not in the JSON file
        entry["locations"][0]["logicalLocations"] = [{"name": f"cell {f.cell}", "kind": "module"}]
        entry["properties"] = {"cell": f.cell}
    if f.edits:
        entry["fixes"] = [{
            "description": {"text": f"{f.fix_safety} fix"},
            "artifactChanges": [{
                "artifactLocation": {"uri": uri(f.path)},
                "replacements": [{"deletedRegion": {"charOffset": offset, "charLength": length},
                                  "insertedContent": {"text": text}}
                                 for offset, length, text in f.edits],
            }],
        }]
    if f.suppressed:
        entry["suppressions"] = [{"kind": "inSource", "justification": SUPPRESSED[f.suppressed]}]
    return entry


def document(run) -> dict:
    descriptors = [rule_descriptor(rule) for rule in all_rules()] + [PARSE_ERROR_DESCRIPTOR]
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "tflint-effective", "version": __version__,
                                "rules": descriptors}},
            "columnKind": "unicodeCodePoints",
            "results": [result(f, index) for f in run.findings],
        }],
    }


def render(run, colour: bool = False) -> str:
    return json.dumps(document(run), indent=2, ensure_ascii=False) + "\n"
