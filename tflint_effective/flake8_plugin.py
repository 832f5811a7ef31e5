"""flake8 adapter: ``flake8 --select TFE`` reports what ``tflint-effective check`` does.

flake8 treats a plugin as a tree plugin only if ``__init__`` accepts ``tree``;
we ignore the ``ast`` tree and parse the decoded ``lines`` with libcst.  flake8
applies ``# noqa`` itself, so findings are not filtered here.
"""
from __future__ import annotations

from . import __version__

PREFILTER = "tensorflow"


class Plugin:
    name = "tflint-effective"
    version = __version__

    def __init__(self, tree, lines, filename="(none)"):
        self.source = "".join(lines)
        self.filename = filename

    def run(self):
        if PREFILTER not in self.source:  # nothing can resolve to TensorFlow
            return
        from .engine import lint_source

        for d in lint_source(self.source, self.filename, noqa=False):
            yield d.line, d.col, f"{d.code} {d.message}", type(self)
