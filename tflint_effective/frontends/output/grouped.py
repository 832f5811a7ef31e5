"""Findings grouped under their file, positions only, for reading in a terminal."""
from __future__ import annotations

from itertools import groupby

from .colour import SEVERITY, paint
from .text import SUPPRESSED


def render(run, colour: bool = False) -> str:
    blocks = []
    for path, findings in groupby(run.findings, key=lambda f: f.path):
        lines = [paint(f"{path}:", "bold", on=colour)]
        for f in findings:
            where = f"cell {f.cell}:" if f.cell is not None else ""
            style = SEVERITY.get(f.severity, ())
            text = (f"  {where}{f.line}:{f.column}  {paint(f.code, *style, on=colour)} "
                    f"{paint(f'[{f.severity}]', *style[1:], on=colour)} {f.message}")
            if f.suppressed:
                text += paint(f" [suppressed by {SUPPRESSED[f.suppressed]}]", "dim", on=colour)
            lines.append(text)
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)
