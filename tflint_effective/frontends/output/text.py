"""flake8's format with the severity after the code: ``path:line:col: CODE [severity] message``.

Editors' problem matchers, nbqa and reviewdog still read ``path:line:col: CODE``; the
severity is the first word of the message for them.  ``--show-source`` (``full``) adds
the line under each finding with carets under the code it is about.
"""
from __future__ import annotations

import unicodedata
from typing import List

from .colour import SEVERITY, paint

SUPPRESSED = {"noqa": "# noqa", "file": "# tflint-effective: disable"}


def line(finding, colour: bool = False) -> str:
    position = finding.location[len(finding.path):]
    style = SEVERITY.get(finding.severity, ())
    text = (f"{paint(finding.path, 'bold', on=colour)}{position}: "
            f"{paint(finding.code, *style, on=colour)} "
            f"{paint(f'[{finding.severity}]', *style[1:], on=colour)} {finding.message}")
    if finding.suppressed:
        text += paint(f" [suppressed by {SUPPRESSED[finding.suppressed]}]", "dim", on=colour)
    return text


def _width(text: str) -> int:
    """Terminal columns: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def source(finding, colour: bool = False) -> List[str]:
    """``  12 | code`` and ``     |    ^^^^`` under the finding's columns (to the end of the
    line when the code goes on); nothing when the line is not known."""
    text = finding.source_line
    if text is None:
        return []
    text = text.rstrip("\r\n")
    start = min(finding.column - 1, len(text))
    multi_line = finding.end_line != finding.line or finding.end_column <= finding.column
    end = len(text.rstrip()) if multi_line else min(finding.end_column - 1, len(text))
    indent = "".join(c if c == "\t" else " " * _width(c) for c in text[:start])
    carets = "^" * max(_width(text[start:end]), 1)
    gutter = str(finding.line)
    style = SEVERITY.get(finding.severity, ())[1:]
    under = paint(" " * len(gutter) + " |", "blue", on=colour)
    return [f"{paint(f'{gutter} |', 'blue', on=colour)} {text}".rstrip(),
            f"{under} {indent}{paint(carets, *style, on=colour)}"]


def render(run, colour: bool = False, show_source: bool = False) -> str:
    lines = []
    for finding in run.findings:
        lines.append(line(finding, colour))
        if show_source:
            lines += source(finding, colour)
    return "".join(text + "\n" for text in lines)
