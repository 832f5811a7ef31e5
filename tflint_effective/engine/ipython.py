"""IPython's own syntax in code meant for it: line magics (``%matplotlib inline``), shell
escapes (``!pip install x``, ``files = !ls``) and help (``tf.reduce_sum?``).

Notebook cells hold them, and so do ``.py`` files exported from notebooks.  Each such line
(with its backslash continuations) becomes a ``pass`` placeholder at the same indentation, so
the text keeps its lines and columns and Python can parse it; ``unmask_magics`` puts them back.
IPython reads a magic only where a logical line starts: a line inside brackets, a
triple-quoted string or after a backslash is code.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from .token_scan import STRING

PLACEHOLDER = "pass  # <tflint-effective magic>"
# A line IPython rewrites before Python sees it: %magic, !shell, ?name, name?, x = %magic, x = !cmd.
MAGIC = re.compile(r"[ \t]*(?:[%!?]|[\w.]+\?{1,2}[ \t]*$|[\w.]+[ \t]*=[ \t]*[%!])")
_CODE = re.compile(rf"{STRING}|#[^\n]*|([(\[{{])|([)\]}}])")  # strings and comments hide brackets
_TRIPLE = ("'''", '"""')
_TRIPLE_END = {quote: re.compile(rf"(?:[^{quote[0]}\\]|\\.|{quote[0]}(?!{quote[0]*2}))*+{quote}") for quote in _TRIPLE}
_FRESH = (0, "")


def mask_magics(text: str) -> Tuple[str, List[str]]:
    """``text`` with its magic lines replaced by placeholders (ending in a newline), and those lines."""
    lines, magics, continued, indent = text.split("\n"), [], False, ""
    state = _FRESH  # how the Python lines so far leave the logical line (IPython reads magics only at its start)
    for i, line in enumerate(lines):
        if continued or (state == _FRESH and MAGIC.match(line)):
            magics.append(line)
            if not continued:  # continuation lines keep the magic's indent
                indent = line[:len(line) - len(line.lstrip())]
            lines[i] = indent + PLACEHOLDER
            continued = line.endswith("\\")
        else:
            state = _after(state, line)
    code = "\n".join(lines)
    return (code if code.endswith("\n") else code + "\n"), magics


def _after(state: Tuple[int, str], line: str) -> Tuple[int, str]:
    """(open brackets, open triple quote or a final backslash) after ``line``, given the state
    before it: ``_FRESH`` when the logical line ends with it.  Each line is read once."""
    depth, quote = state
    start = 0
    if quote in _TRIPLE:
        end = _TRIPLE_END[quote].match(line)
        if end is None:
            return state  # still inside the string
        start = end.end()
    for match in _CODE.finditer(line, start):
        token = match.group()
        if match.group(1):
            depth += 1
        elif match.group(2):
            depth = max(depth - 1, 0)
        elif token[:3] in _TRIPLE and (len(token) < 6 or token[-3:] != token[:3]):
            return depth, token[:3]  # a triple-quoted string goes on
    return depth, "\\" if line.endswith("\\") else ""


def unmask_magics(code: str, magics: List[str]) -> Optional[str]:
    """``code`` with its placeholders replaced by ``magics``; None when a placeholder is gone."""
    lines = code.split("\n")
    slots = [i for i, line in enumerate(lines) if line.strip() == PLACEHOLDER]
    if len(slots) != len(magics):
        return None  # a fix swallowed a magic line: do not guess
    for i, magic in zip(slots, magics):
        lines[i] = magic
    return "\n".join(lines)
