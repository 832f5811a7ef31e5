"""Python 2 tuple parameters (``def f(a, (b, c))``, ``lambda (k, v): k``) as Python 3 parameters.

Each tuple parameter becomes one name that no name token of the file spells: its names joined
with ``_``, then ``_`` or a number (``(k)`` alone stays ``k``). The tuple's names are unbound in
the body, which the analysis reads as unknown names. Lines are kept: a tuple spanning lines is
removed from its later lines. Standard library only, like ``python2``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .python2 import _Token

__all__ = ["tuple_parameters"]


def tuple_parameters(tokens: list[_Token]) -> list[tuple[int, int, int, str]]:
    """(line, start col, end col, new text) edits that turn each tuple parameter into one name."""
    taken = {t.text for t in tokens if t.kind == "name"}
    groups: dict[int, int] = {}  # the index of a tuple parameter's "(" -> the index of its ")"
    for i, token in enumerate(tokens):
        if token.kind == "name" and token.text in ("def", "lambda"):
            for start in _parameter_starts(tokens, i):
                if tokens[start].text == "(" and tokens[start].kind == "op":
                    end = start + 1
                    while tokens[end].depth > tokens[start].depth:  # a pair shares one depth
                        end += 1
                    groups[start] = end
    edits: list[tuple[int, int, int, str]] = []
    for start, end in sorted(groups.items()):
        group = tokens[start:end + 1]
        names = [t.text for t in group if t.kind == "name"]
        name = names[0] if len(names) == 1 and all(t.text != "," for t in group) else _fresh("_".join(names), taken)
        for line in sorted({t.line for t in group}):
            on_line = [t for t in group if t.line == line]
            edits.append((line, on_line[0].col, on_line[-1].end_col, name if line == group[0].line else ""))
    return edits


def _parameter_starts(tokens: list[_Token], i: int) -> list[int]:
    """Indexes of the tokens that start a parameter of the ``def`` or ``lambda`` at ``tokens[i]``:
    the first one and each one after a comma of its parameter list (a lambda in a default is
    followed to its own colon)."""
    if tokens[i].text == "def":
        if tokens[i + 1].kind != "name" or tokens[i + 2].text != "(":
            return []
        depth, j, own = tokens[i + 2].depth + 1, i + 3, 0  # inside the parentheses, up to ")"
    else:
        depth, j, own = tokens[i].depth, i + 1, 1  # up to the lambda's colon
    starts, lambdas = [j], own  # lambdas: those whose colon is still to come
    while tokens[j].kind != "newline" and tokens[j].depth >= depth:
        token = tokens[j]
        if token.depth == depth and token.text == "lambda":
            lambdas += 1
        elif token.depth == depth and token.text == ":" and lambdas:
            lambdas -= 1
            if lambdas < own:
                break
        elif token.depth == depth and token.text == "," and lambdas == own:
            starts.append(j + 1)
        j += 1
    return starts


def _fresh(base: str, taken: set[str]) -> str:
    name, number = base + "_", 1
    while name in taken:
        name, number = f"{base}_{number}", number + 1
    taken.add(name)
    return name
