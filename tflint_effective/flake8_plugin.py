"""flake8 adapter: ``flake8 --select TFE`` reports what ``tflint-effective check`` does.

flake8 treats a plugin as a tree plugin only if ``__init__`` accepts ``tree``;
the ``ast`` tree serves only the pre-filter (a file that imports no TensorFlow
is skipped before libcst parses anything) and the decoded ``lines`` are
parsed with libcst.  flake8 applies ``# noqa`` itself, so findings are not
filtered here.

libcst and the rules add some 25,000 long-lived objects to flake8's process, and
each full pass of the cycle collector (flake8 makes dozens) would walk them all:
a second of the plugin's cost on 1,000 files.  So once they are imported, the
objects then alive are frozen (``gc.freeze``): left to reference counting.
"""
from __future__ import annotations

import functools
import gc

from . import __version__


@functools.lru_cache(maxsize=None)
def _lint_source():
    from .engine import lint_source

    gc.freeze()
    return lint_source


class Plugin:
    name = "tflint-effective"
    version = __version__

    def __init__(self, tree, lines, filename="(none)"):
        self.tree = tree
        self.source = "".join(lines)
        self.filename = filename

    def run(self):
        from .prefilter import can_skip

        if can_skip(self.source, tree=self.tree):  # nothing can resolve to TensorFlow
            return
        for d in _lint_source()(self.source, self.filename, noqa=False, prefilter=False):
            yield d.line, d.col, f"{d.code} {d.message}", type(self)
