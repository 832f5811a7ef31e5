"""The one lint pipeline: pre-filter, parse, one traversal for all rules, positions, suppressions.

``lint_document`` serves every front end (the CLI, the flake8 plugin, the public
API and the fixer); ``lint_source`` and ``lint_paths`` are its thin public wrappers.
A file that imports neither TensorFlow nor Keras is not parsed by libcst at all (``prefilter``).
"""
from __future__ import annotations

import ast
import dataclasses
import re
from typing import List, Optional, Sequence

from .. import registry
from ..levels import INFO
from . import threads
from .diagnostics import Analysis, Diagnostic, Refused, syntax_error
from .prefilter import can_skip


def lint_document(source: str, path: str, select=None, ignore=None, *, noqa: bool = True,
                  prefilter: bool = True, tensorflow_modules: Sequence[str] = (),
                  function_decorators: Sequence[str] = (), tensorflow_versions=None, tf1_directory=(),
                  tree: Optional[ast.Module] = None, severity: str = INFO) -> Analysis:
    """Lint source text with the rules ``select`` and ``ignore`` leave (flake8's prefix rule);
    call it on a deep stack (``parse.on_deep_stack``).

    ``noqa``: split off what ``# noqa`` and ``# tflint-effective: disable=`` silence.
    ``prefilter``: valid Python that imports neither TensorFlow nor Keras is not analysed; ``tree``
    is CPython's tree of ``source`` when the caller has one (flake8).  ``severity``: the
    minimum severity kept (a TFE000 is always kept).  ``tensorflow_versions``: the range of
    TensorFlow versions the project supports (``frontends.requirements``), if known;
    ``tf1_directory``: the modules of the file's directory written for TF 1.x (``frontends.tf1_directories``).
    """
    if prefilter and can_skip(source, tensorflow_modules, tree=tree):
        return Analysis()
    try:
        settings = dict(tensorflow_modules=tuple(tensorflow_modules), function_decorators=tuple(function_decorators),
                        tensorflow_versions=tensorflow_versions, tf1_directory=tf1_directory)
        return _lint(source, path, select, ignore, noqa, settings, severity)
    except threads.OverBudget:
        reason = f"the analysis used more than {threads.CPU_BUDGET:g} s of CPU time (please report it)"
        return Analysis([syntax_error(path, source, Refused(reason))])


def _lint(source, path, select, ignore, noqa, settings, severity) -> Analysis:
    # libcst and the rules load here, when the first file needs them: a run whose files
    # are all skipped or served from the cache never pays for them.
    from .startup import compiled_dataclasses

    with compiled_dataclasses():
        from ..analysis.context import Settings
        from .analyse import lint_parsed
        from .parse import PARSE_FAILURES, parse

        settings = Settings(**settings)
        rules = registry.selected_rules(select, ignore)
    try:
        module = parse(source)
    except PARSE_FAILURES as error:
        translation, note = _translation(source, error)
        if translation is None:
            return Analysis([syntax_error(path, source, error)])
        try:
            module = parse(translation.text)
        except PARSE_FAILURES:
            return Analysis([syntax_error(path, source, error)])
        analysis = lint_parsed(module, translation.text, path, rules, noqa=noqa,
                               settings=dataclasses.replace(settings, python2=note is PYTHON2_NOTE), severity=severity)
        return _at_original_positions(analysis, translation, note)
    return lint_parsed(module, source, path, rules, noqa=noqa, settings=settings, severity=severity)


PYTHON2_NOTE = "read as Python 2 (translated to Python 3 for the analysis; nothing is fixed)"
TABS_NOTE = "read with the tabs of its indentation expanded (libcst cannot tokenize them; nothing is fixed)"
IPYTHON_NOTE = "read as IPython (its magic and shell lines skipped; nothing is fixed)"
_TAB_INDENT = re.compile(r"^[ \f]*\t", re.M)


def _translation(source: str, error: Exception):
    """Text libcst may parse in place of ``source`` (a ``Translation``, or None) and the note
    that says how it was read: a Python 3 file whose indentation mixes tabs and spaces in a way
    CPython accepts and libcst's tokenizer does not, a Python 2 file, or a file exported from a
    notebook that kept its IPython magics."""
    from .ipython import mask_magics
    from .python2 import Python2Error, expand_tabs, looks_like_python2, translate
    from .translation import Translation

    if isinstance(error, (RecursionError, MemoryError, Refused)):
        return None, None
    try:
        if _TAB_INDENT.search(source) and parses_as_python3(source):
            return expand_tabs(source), TABS_NOTE
        if looks_like_python2(source):
            return translate(source), PYTHON2_NOTE
    except Python2Error:
        pass
    masked, magics = mask_magics(source)
    if magics and parses_as_python3(masked):
        return Translation(masked, {}), IPYTHON_NOTE  # same lines and columns
    return None, None


def parses_as_python3(source: str) -> bool:
    """Whether CPython's own parser accepts ``source``."""
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def _at_original_positions(analysis: Analysis, translation, note: str) -> Analysis:
    """Findings on a translated file, moved back to the original's columns; no fixes (the
    translation is not the file) and a note that says how it was read."""
    def moved(d: Diagnostic) -> Diagnostic:
        (line, col), (end_line, end_col) = translation.original(d.line, d.col), translation.original(
            d.end_line or d.line, d.end_col)
        return dataclasses.replace(d, line=line, col=col, end_line=end_line, end_col=end_col, fix=None)

    analysis.diagnostics = [moved(d) for d in analysis.diagnostics]
    analysis.suppressed = [(moved(d), why) for d, why in analysis.suppressed]
    analysis.module = None
    analysis.notes.append(note)
    return analysis


# -- public API ------------------------------------------------------------------------
def lint_source(source: str, path: str = "<string>", select=None, ignore=None,
                noqa: bool = True, *, prefilter: bool = True,
                tensorflow_modules: Sequence[str] = (), function_decorators: Sequence[str] = (),
                tensorflow_versions=None, tf1_directory=()) -> List[Diagnostic]:
    """Lint Python source text; a parse failure is one TFE000 diagnostic.

    ``prefilter``: valid Python that imports neither TensorFlow nor Keras is not analysed (see
    ``prefilter.py``); ``tensorflow_modules`` are modules that re-export TensorFlow;
    ``function_decorators`` are a project's wrappers that stand for ``tf.function``;
    ``tensorflow_versions`` the (oldest, first unsupported) TensorFlow versions, if known;
    ``tf1_directory`` the modules of the file's directory written for TF 1.x.
    """
    from .threads import on_deep_stack

    return on_deep_stack(diagnostics_of, source, path, select, ignore, noqa=noqa,
                         prefilter=prefilter, tensorflow_modules=tensorflow_modules,
                         function_decorators=function_decorators, tensorflow_versions=tensorflow_versions,
                         tf1_directory=tf1_directory)


def diagnostics_of(*args, **kwargs) -> List[Diagnostic]:
    """``lint_document``'s diagnostics alone.  Run on the deep stack, the tree is freed there,
    before the cycle collector resumes: alive then, its objects would all be walked once."""
    return lint_document(*args, **kwargs).diagnostics

