"""flake8's format, ``path:line:col: CODE message``, which editors, nbqa and reviewdog parse."""
from __future__ import annotations

from .colour import SEVERITY, paint

SUPPRESSED = {"noqa": "# noqa", "file": "# tflint-effective: disable"}


def line(finding, colour: bool = False) -> str:
    position = finding.location[len(finding.path):]
    text = (f"{paint(finding.path, 'bold', on=colour)}{position}: "
            f"{paint(finding.code, *SEVERITY.get(finding.severity, ()), on=colour)} {finding.message}")
    if finding.suppressed:
        text += paint(f" [suppressed by {SUPPRESSED[finding.suppressed]}]", "dim", on=colour)
    return text


def render(run, colour: bool = False) -> str:
    return "".join(line(f, colour) + "\n" for f in run.findings)
