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

from .. import __version__
from ..engine.lint import lint_document
from ..engine.prefilter import can_skip
from ..registry import all_rules


@functools.lru_cache(maxsize=None)
def _load_engine():
    """Load libcst, the engine and the rules once, then freeze what is alive."""
    from ..engine import analyse  # noqa: F401
    from ..engine.parse import on_deep_stack

    all_rules()
    gc.freeze()
    return on_deep_stack


class Plugin:
    name = "tflint-effective"
    version = __version__

    def __init__(self, tree, lines, filename="(none)"):
        self.tree = tree
        self.source = "".join(lines)
        self.filename = filename

    def run(self):
        if can_skip(self.source, tree=self.tree):  # nothing can resolve to TensorFlow
            return
        analysis = _load_engine()(lint_document, self.source, self.filename, noqa=False, prefilter=False)
        for d in analysis.diagnostics:
            yield d.line, d.col, f"{d.code} {d.message}", type(self)
