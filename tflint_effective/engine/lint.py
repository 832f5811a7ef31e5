"""The one lint pipeline: pre-filter, parse, one traversal for all rules, positions, suppressions.

``lint_document`` serves every front end (the CLI, the flake8 plugin, the public
API and the fixer); ``lint_source`` and ``lint_paths`` are its thin public wrappers.
A file that imports no TensorFlow is not parsed by libcst at all (``prefilter``).
"""
from __future__ import annotations

import ast
from typing import List, Optional, Sequence

from .. import registry
from .diagnostics import Analysis, Diagnostic, syntax_error
from .prefilter import can_skip


def lint_document(source: str, path: str, select=None, ignore=None, *, noqa: bool = True,
                  prefilter: bool = True, tensorflow_modules: Sequence[str] = (),
                  function_decorators: Sequence[str] = (),
                  tree: Optional[ast.Module] = None) -> Analysis:
    """Lint source text with the rules ``select`` and ``ignore`` leave (flake8's prefix rule);
    call it on a deep stack (``parse.on_deep_stack``).

    ``noqa``: split off what ``# noqa`` and ``# tflint-effective: disable=`` silence.
    ``prefilter``: valid Python that imports no TensorFlow is not analysed; ``tree``
    is CPython's tree of ``source`` when the caller has one (flake8).
    """
    if prefilter and can_skip(source, tensorflow_modules, tree=tree):
        return Analysis()
    # libcst and the rules load here, when the first file needs them: a run whose files
    # are all skipped or served from the cache never pays for them.
    from ..analysis.context import Settings
    from .analyse import lint_parsed
    from .parse import PARSE_FAILURES, parse

    try:
        module = parse(source)
    except PARSE_FAILURES as error:
        return Analysis([syntax_error(path, source, error)])
    settings = Settings(tuple(tensorflow_modules), tuple(function_decorators))
    return lint_parsed(module, source, path, registry.selected_rules(select, ignore), noqa=noqa,
                       settings=settings)


# -- public API ------------------------------------------------------------------------
def lint_source(source: str, path: str = "<string>", select=None, ignore=None,
                noqa: bool = True, *, prefilter: bool = True,
                tensorflow_modules: Sequence[str] = (), function_decorators: Sequence[str] = ()
                ) -> List[Diagnostic]:
    """Lint Python source text; a parse failure is one TFE000 diagnostic.

    ``prefilter``: valid Python that imports no TensorFlow is not analysed (see
    ``prefilter.py``); ``tensorflow_modules`` are modules that re-export TensorFlow;
    ``function_decorators`` are a project's wrappers that stand for ``tf.function``.
    """
    from .parse import on_deep_stack

    return on_deep_stack(lint_document, source, path, select, ignore, noqa=noqa,
                         prefilter=prefilter, tensorflow_modules=tensorflow_modules,
                         function_decorators=function_decorators).diagnostics

