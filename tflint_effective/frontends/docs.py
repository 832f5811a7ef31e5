"""Rule documentation generated from the rule classes: README's table, docs/rules.md, explain.

``python -m tflint_effective.frontends.docs`` rewrites the part of README.md between the
rule-table markers and the whole of docs/rules.md; tests fail when either is
stale.  ``tflint-effective explain`` and the SARIF rule help use the same
sections, so every rule is documented one way everywhere.
"""
from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path
from typing import List, Optional, Tuple

from ..levels import MODE_NAMES, MODES
from ..registry import all_rules

START, END = "<!-- rules:start -->", "<!-- rules:end -->"
ROOT = Path(__file__).resolve().parents[2]
LABEL = re.compile(r"([A-Z][A-Za-z ]{1,30}):\s+(.*)", re.S)
HEADINGS = {"Why": "Why is this bad", "Fix safety": "Fix safety", "Known problems": "Known problems"}
CODE = "code"  # a section whose body is Python


# -- the README table ----------------------------------------------------------
def rule_table(link: Optional[str] = None) -> str:
    """Markdown table of every rule; codes link to ``link#anchor`` unless link is None."""
    lines = ["| code | rule | severity | fix | summary |", "| --- | --- | --- | --- | --- |"]
    for rule in all_rules():
        code = rule.CODE if link is None else f"[{rule.CODE}]({link}#{anchor(rule)})"
        lines.append(f"| {code} | `{rule.name()}` | {rule.default_severity()} | "
                     f"{rule.FIX_SAFETY} | {rule.summary()} |")
    return "\n".join(lines)


def with_rule_table(readme: str) -> str:
    head, start, rest = readme.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"README has no {START} ... {END} section")
    return f"{head}{START}\n{rule_table()}\n{END}{tail}"


# -- one rule's sections ---------------------------------------------------------
def _paragraphs(rule) -> List[str]:
    return [p.strip() for p in re.split(r"\n[ \t]*\n", rule.doc()) if p.strip()]


def title(rule) -> str:
    """The first line of the rule module's docstring."""
    paragraphs = _paragraphs(rule)
    return " ".join(paragraphs[0].split()) if paragraphs else rule.summary()


def _labelled(rule) -> Tuple[List[str], dict]:
    """(paragraphs before the first label, {label: text}) from the module docstring."""
    intro, labelled, current = [], {}, None
    for paragraph in _paragraphs(rule)[1:]:
        match = LABEL.fullmatch(paragraph)
        if match:
            current = match.group(1)
            labelled[current] = match.group(2)
        elif current:
            labelled[current] += "\n\n" + paragraph
        else:
            intro.append(paragraph)
    return intro, labelled


def sections(rule) -> List[Tuple[str, str, str]]:
    """(heading, body, kind) in the order every rule is documented."""
    intro, labelled = _labelled(rule)
    what = "\n\n".join([rule.summary(), *intro])
    found = [("What it does", what, ""),
             ("Why is this bad", labelled.pop("Why", "Not documented."), ""),
             ("Example", _code(rule.EXAMPLE_HEADER, rule.BAD), CODE),
             ("Use instead", _code(rule.EXAMPLE_HEADER, rule.GOOD), CODE),
             ("Fix safety", labelled.pop("Fix safety", rule.FIX_SAFETY + "."), ""),
             ("Known problems", labelled.pop("Known problems", "None documented."), "")]
    found += [(label, text, "") for label, text in labelled.items()]
    found = [(h, b[:1].upper() + b[1:] if kind != CODE else b, kind) for h, b, kind in found]
    modes = "\n".join(f"{MODE_NAMES[m]}: {rule.severity_in(m) or 'off'}" for m in MODES)
    found.append(("Severity per execution mode", modes, "modes"))
    return found


def _code(header: str, code: str) -> str:
    """An example as the tests run it: the rule's import header, then the code."""
    body = textwrap.dedent(code).strip("\n")
    return header + body if body else "(none)"


def anchor(rule) -> str:
    """GitHub's anchor for the heading ``TFE101 `reduction_without_axis```."""
    return f"{rule.CODE.lower()}-{rule.name()}"


def rule_url(rule) -> Optional[str]:
    """A link to the rule's section of docs/rules.md (the language server's ``codeDescription``):
    the page of this checkout or source tree, when it is there."""
    page = ROOT / "docs" / "rules.md"
    return f"{page.as_uri()}#{anchor(rule)}" if page.is_file() else None


def rule_markdown(rule) -> str:
    parts = [f"## {rule.CODE} `{rule.name()}`", title(rule),
             f"Default severity: {rule.default_severity()}. Fix: {rule.FIX_SAFETY}."]
    for heading, body, kind in sections(rule):
        parts.append(f"### {heading}")
        if kind == CODE:
            parts.append(f"```python\n{body}\n```")
        elif kind == "modes":
            rows = [(MODE_NAMES[m], rule.severity_in(m) or "off") for m in MODES]
            parts.append("| " + " | ".join(m for m, _ in rows) + " |\n"
                         + "| " + " | ".join("---" for _ in rows) + " |\n"
                         + "| " + " | ".join(s for _, s in rows) + " |")
        else:
            parts.append(body)
    return "\n\n".join(parts) + "\n"


def rule_text(rule) -> str:
    """The same sections as plain text, for ``tflint-effective explain``."""
    parts = [f"{rule.CODE} {rule.name()}: {title(rule)}",
             f"Default severity: {rule.default_severity()}. Fix: {rule.FIX_SAFETY}."]
    for heading, body, kind in sections(rule):
        parts.append(f"{heading}:\n" + textwrap.indent(body, "    " if kind == CODE else "  "))
    return "\n\n".join(parts) + "\n"


# -- docs/rules.md ------------------------------------------------------------------
def rules_page() -> str:
    head = ("# Rules\n\n"
            "Generated from the rule classes by `python -m tflint_effective.frontends.docs`; edit the rule "
            "modules, not this file. `tflint-effective explain CODE` prints the same text.\n\n"
            "Severity depends on the execution mode the code runs in: TF1 graph, `tf.function`, "
            "`tf.function(autograph=False)` or TF2 eager; \"off\" means the pattern is fine "
            "there and is not reported.\n\n")
    return head + rule_table(link="") + "\n\n" + "\n".join(rule_markdown(r) for r in all_rules())


def main(argv=None) -> int:
    readme = ROOT / "README.md"
    readme.write_text(with_rule_table(readme.read_text(encoding="utf-8")), encoding="utf-8")
    page = ROOT / "docs" / "rules.md"
    page.parent.mkdir(exist_ok=True)
    page.write_text(rules_page(), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
