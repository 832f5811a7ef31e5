"""Whether the modules of a directory are written for TF 1.x.

A helper module of a TF 1.x project (``tflib/ops/layernorm.py``) often spells no TF 1.x-only
name of its own, yet runs only where its siblings do.  A directory counts when one of its
modules spells a TF 1.x-only root name through the alias ``tf`` (``tf.Session``,
``tf.placeholder``, ``tf.contrib.``, ``tf.train.AdamOptimizer``) and none spells a name only
TensorFlow 2 has (``tf.function``, ``tf.GradientTape``).  Files are read as text, never run,
and only the directory's own ``.py`` files (up to ``MAX_FILES``, each up to ``MAX_BYTES``).
"""
from __future__ import annotations

import os
import re
from typing import Dict, Tuple

from ..analysis.tf_api import TAPES, TF2_ONLY, TFName, tf1_only

MAX_FILES = 200
MAX_BYTES = 1_000_000
SPELLED = re.compile(r"(?<![\w.])tf\.(\w+(?:\.\w+)*)")  # ``tf.GraphKeys.UPDATE_OPS``: GraphKeys.UPDATE_OPS


def versions_spelled(text: str) -> Tuple[bool, bool]:
    """Whether ``text`` spells a TF 1.x-only name, and a TF2-only one, through ``tf.``."""
    tf1 = tf2 = False
    for chain in set(SPELLED.findall(text)):
        parts = chain.split(".")
        for path in (".".join(parts[:end]) for end in range(1, len(parts) + 1)):
            tf1 = tf1 or tf1_only(TFName(path, None))
            tf2 = tf2 or path in TF2_ONLY or path in TAPES
    return tf1, tf2


def _tf1(directory: str) -> bool:
    try:
        names = sorted(name for name in os.listdir(directory) if name.endswith(".py"))[:MAX_FILES]
    except OSError:
        return False
    tf1 = False
    for name in names:
        path = os.path.join(directory, name)
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
                continue
            with open(path, encoding="utf-8", errors="replace") as stream:
                text = stream.read()
        except OSError:
            continue
        spelled = versions_spelled(text)
        if spelled[1]:
            return False
        tf1 = tf1 or spelled[0]
    return tf1


class TF1Directories:
    """The answer for each directory, remembered."""

    def __init__(self):
        self._found: Dict[str, bool] = {}

    def at(self, directory: str) -> bool:
        directory = os.path.abspath(directory)
        if directory not in self._found:
            self._found[directory] = _tf1(directory)
        return self._found[directory]
