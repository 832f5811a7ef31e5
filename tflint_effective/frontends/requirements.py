"""The TensorFlow versions a project declares it supports, read from its requirement files.

Rules whose advice depends on the TensorFlow version (``keepdims`` exists only from TF 1.5 on;
code capped below TF 2 never meets TF2's TypeErrors) ask for this range.  It comes from the
``tensorflow-version`` key (``">=1.4,<2"``), else from the closest directory at or above a file
whose requirement files name ``tensorflow`` (or ``tensorflow-gpu`` / ``-cpu``) with a version:
``requirements*.txt``, ``setup.py``, ``setup.cfg``, ``pyproject.toml``, ``Pipfile``,
``environment.yml``, ``Dockerfile`` (also its base image, ``FROM tensorflow/tensorflow:1.8.0-gpu``).
Files are read as text, never run.  A range is ``(oldest, below)``:
the oldest version supported and the first one not supported, each a tuple of ints without
trailing zeros (``2.0`` is ``(2,)``) or None.  ``==1.4`` is read as ``1.4.*``: coarse, enough
for the rules' questions.
"""
from __future__ import annotations

import glob
import os
import re
from typing import Dict, Iterable, Optional, Tuple

from .discovery import closest

Version = Tuple[int, ...]
Range = Tuple[Optional[Version], Optional[Version]]

FILES = ("setup.py", "setup.cfg", "pyproject.toml", "Pipfile", "environment.yml", "environment.yaml", "Dockerfile")
MAX_BYTES = 1_000_000  # larger "requirement files" are not what they seem: not read
# ``tensorflow-gpu==1.4``, ``"tensorflow>=1.10,<2.0"``, ``tensorflow = "^1.15"``, conda's ``tensorflow=1.0``
MENTION = re.compile(r"""(?<![\w.-])tensorflow(?:[-_](?:gpu|cpu))?(?![\w.-])\s*(?:\[[^\]\n]*\])?
                         \s*(?:=\s*["']|\(\s*)?(?P<spec>(?:[<>=!~^]{1,3}\s*v?\d[\d.*]*\s*,?\s*)+)""",
                     re.IGNORECASE | re.VERBOSE)
# a wheel named by URL or path: ``.../tensorflow_gpu-1.0.1-cp35-cp35m-linux_x86_64.whl``
WHEEL = re.compile(r"(?<![\w.-])tensorflow(?:_gpu|_cpu)?-(\d+(?:\.\d+)+)-\S*?\.whl\b", re.IGNORECASE)
# a Docker image of one release: ``FROM tensorflow/tensorflow:1.8.0-gpu-py3``
IMAGE = re.compile(r"(?<![\w.-])tensorflow/tensorflow:(\d+(?:\.\d+)+)(?![\d.])", re.IGNORECASE)
CLAUSE = re.compile(r"([<>=!~^]{1,3})\s*v?(\d+(?:\.\d+)*)(\.\*)?")


def _version(text: str) -> Version:
    return tuple(int(part) for part in text.split("."))


def _canonical(version: Optional[Version]) -> Optional[Version]:
    while version and len(version) > 1 and version[-1] == 0:
        version = version[:-1]
    return version


def _next(version: Version, depth: int) -> Version:
    """The first version after every release that starts with ``version[:depth]``."""
    head = list(version[:depth]) or [0]
    head[-1] += 1
    return tuple(head)


def parse(spec: str) -> Optional[Range]:
    """The range of a specifier such as ``>=1.4,<2``, ``==1.0.1``, ``~=1.4``, ``^1.15`` or
    conda's ``=1.0``; None when it says nothing about versions (or is not a specifier)."""
    oldest = below = None
    found = False
    for operator, text, _ in CLAUSE.findall(spec):
        found = True
        version = _version(text)
        low, high = None, None
        if operator in ("==", "===", "="):  # conda's =1.4 is 1.4.*
            low, high = version, _next(version, len(version))
        elif operator == ">=":
            low = version
        elif operator == ">":
            low = version + (1,)
        elif operator == "<":
            high = version
        elif operator == "<=":
            high = version + (1,)
        elif operator == "~=":
            low, high = version, _next(version, max(1, len(version) - 1))
        elif operator == "^":
            low, high = version, _next(version, next((i + 1 for i, v in enumerate(version) if v), 1))
        elif operator != "!=":
            return None
        low, high = _canonical(low), _canonical(high)
        oldest = low if low is not None and (oldest is None or low > oldest) else oldest
        below = high if high is not None and (below is None or high < below) else below
    return (oldest, below) if found and (oldest or below) else None


def widest(ranges: Iterable[Range]) -> Optional[Range]:
    """One range for several mentions (``requirements.txt`` and ``requirements-gpu.txt``): the
    oldest lower bound, and an upper bound only when every mention has one."""
    ranges = list(ranges)
    if not ranges:
        return None
    lows = [low for low, _ in ranges if low is not None]
    highs = [high for _, high in ranges]
    return (min(lows) if lows else None, None if None in highs else max(highs))


def in_text(text: str) -> Optional[Range]:
    specs = [match.group("spec") for match in MENTION.finditer(text)]
    specs += ["==" + match.group(1) for pattern in (WHEEL, IMAGE) for match in pattern.finditer(text)]
    return widest(filter(None, map(parse, specs)))


def read_small(path: str) -> str:
    """A file's text (UTF-8, bad bytes replaced); "" when it is missing, unreadable or over ``MAX_BYTES``."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
            return ""
        with open(path, encoding="utf-8", errors="replace") as stream:
            return stream.read()
    except OSError:
        return ""


def in_directory(directory: str) -> Optional[Range]:
    """The range the requirement files of ``directory`` declare, if they name one."""
    paths = sorted(glob.glob(os.path.join(glob.escape(directory), "requirements*.txt")))
    paths += [os.path.join(directory, name) for name in FILES]
    return widest(filter(None, (in_text(read_small(path)) for path in paths)))


class Declared:
    """The closest declared range at or above each directory, remembered per directory."""

    def __init__(self):
        self._found: Dict[str, Optional[Range]] = {}

    def at(self, directory: str) -> Optional[Range]:
        return closest(os.path.abspath(directory), in_directory, self._found)
