"""ANSI colour for terminals: on for a TTY unless ``NO_COLOR`` is set (no-color.org)."""
from __future__ import annotations

import os

CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "blue": "34", "cyan": "36"}
SEVERITY = {"error": ("bold", "red"), "warning": ("bold", "yellow"), "info": ("bold", "blue")}


def wanted(stream, choice: str = "auto", environ=os.environ) -> bool:
    """``--color always|never|auto``; auto means a terminal and no NO_COLOR."""
    if choice != "auto":
        return choice == "always"
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not environ.get("NO_COLOR")


def paint(text: str, *styles: str, on: bool = True) -> str:
    if not on or not styles:
        return text
    return f"\x1b[{';'.join(CODES[s] for s in styles)}m{text}\x1b[0m"
