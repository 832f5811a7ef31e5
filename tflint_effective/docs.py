"""Generated documentation: the README's rule table.

``python -m tflint_effective.docs`` rewrites the part of README.md between the
rule-table markers; a test fails when the committed README is stale.
"""
from __future__ import annotations

import sys
from pathlib import Path

from .engine import all_rules

START, END = "<!-- rules:start -->", "<!-- rules:end -->"


def rule_table() -> str:
    lines = ["| code | rule | severity | fix | summary |", "| --- | --- | --- | --- | --- |"]
    for rule in all_rules():
        lines.append(f"| {rule.CODE} | `{rule.name()}` | {rule.default_severity()} | "
                     f"{rule.FIX_SAFETY} | {rule.summary()} |")
    return "\n".join(lines)


def with_rule_table(readme: str) -> str:
    head, start, rest = readme.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"README has no {START} ... {END} section")
    return f"{head}{START}\n{rule_table()}\n{END}{tail}"


def main(argv=None) -> int:
    root = Path(__file__).resolve().parent.parent
    readme = root / "README.md"
    readme.write_text(with_rule_table(readme.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
