"""Which modules of a directory are written for TF 1.x.

A helper module of a TF 1.x project (``tflib/ops/layernorm.py``) often spells no TF 1.x-only
name of its own, yet runs only where its siblings do.  A directory's evidence is up to two of
its modules that spell a TF 1.x-only root name through the alias ``tf`` (``tf.Session``,
``tf.placeholder``, ``tf.contrib.``, ``tf.train.AdamOptimizer``), each with the first such name;
none when a module spells a name only TensorFlow 2 has (``tf.function``, ``tf.GradientTape``).
Two, so that a module is never its own evidence.  Files are read as text, never run, and only
the directory's own ``.py`` files (up to ``MAX_FILES``, each as ``requirements.read_small`` reads it).
"""
from __future__ import annotations

import os
import re
from typing import Dict, Optional, Tuple

from ..analysis.tf_api import TAPES, TF2_ONLY, TFName, tf1_only
from .requirements import read_small

MAX_FILES = 200
SPELLED = re.compile(r"(?<![\w.])tf\.(\w+(?:\.\w+)*)")  # ``tf.GraphKeys.UPDATE_OPS``: GraphKeys.UPDATE_OPS
Evidence = Tuple[Tuple[str, str], ...]


def spelled(text: str) -> Tuple[Optional[str], bool]:
    """The first (in sorted order) TF 1.x-only name ``text`` spells through ``tf.``, if any, and whether it
    spells a TF2-only one."""
    tf1, tf2 = None, False
    for chain in sorted(set(SPELLED.findall(text))):
        parts = chain.split(".")
        for path in (".".join(parts[:end]) for end in range(1, len(parts) + 1)):
            tf1 = tf1 or (path if tf1_only(TFName(path, None)) else None)
            tf2 = tf2 or path in TF2_ONLY or path in TAPES
    return tf1, tf2


def _evidence(directory: str) -> Evidence:
    try:
        names = sorted(name for name in os.listdir(directory) if name.endswith(".py"))[:MAX_FILES]
    except OSError:
        return ()
    found = []
    for name in names:
        tf1, tf2 = spelled(read_small(os.path.join(directory, name)))
        if tf2:
            return ()
        if tf1 is not None and len(found) < 2:  # two: a file's own evidence does not count for it
            found.append((name, tf1))
    return tuple(found)


class TF1Directories:
    """The evidence for each directory, remembered."""

    def __init__(self):
        self._found: Dict[str, Evidence] = {}

    def at(self, directory: str) -> Evidence:
        """Up to two (module file name, TF 1.x-only name it spells) of ``directory``; none when a module
        spells a TF2-only name."""
        directory = os.path.abspath(directory)
        if directory not in self._found:
            self._found[directory] = _evidence(directory)
        return self._found[directory]
