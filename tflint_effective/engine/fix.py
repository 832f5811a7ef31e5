"""Fixing: apply every non-overlapping fix, re-parse, re-lint, until nothing changes (8 passes at most).

Fixes replace nodes by identity in the very tree the rules saw; a pass whose
result does not parse raises ``FixError`` and nothing is returned to write.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import libcst as cst

from ..levels import SAFE, UNSAFE
from .. import registry
from ..rule import Fix
from .diagnostics import Diagnostic
from ..analysis.context import Settings
from .analyse import lint_parsed
from .parse import PARSE_FAILURES, parse
from .threads import on_deep_stack
from .prefilter import can_skip

MAX_FIX_PASSES = 8


class FixError(Exception):
    """A fix pass produced code that does not parse; nothing was written."""


class _Replace(cst.CSTTransformer):
    """Swap nodes by identity; a fix inside another fix waits for the next pass."""

    def __init__(self, fixes: Dict[cst.CSTNode, Fix]):
        super().__init__()
        self.fixes = fixes
        self.depth = 0
        self.applied: List[Fix] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node in self.fixes:
            self.depth += 1
        return True

    def on_leave(self, original_node, updated_node):
        fix = self.fixes.get(original_node)
        if fix is None:
            return updated_node
        self.depth -= 1
        if self.depth == 0:
            self.applied.append(fix)
        return fix.replacement


@dataclass
class FixResult:
    source: str
    applied: int  # fixes applied over all passes
    passes: int
    diagnostics: List[Diagnostic]  # what remains after fixing
    hidden_unsafe: int = 0  # unsafe fixes not applied (no --unsafe-fixes)
    converged: bool = True


def apply_fixes(module: cst.Module, fixes: Sequence[Fix]) -> Tuple[cst.Module, int]:
    transformer = _Replace({fix.target: fix for fix in fixes})
    module = module.visit(transformer)
    imports = {item for fix in transformer.applied for item in fix.imports}
    if imports:
        from libcst.codemod import CodemodContext
        from libcst.codemod.visitors import AddImportsVisitor

        context = CodemodContext()
        for module_name, obj in sorted(imports):
            AddImportsVisitor.add_needed_import(context, module_name, obj)
        module = AddImportsVisitor(context).transform_module(module)
    return module, len(transformer.applied)


def fix_source(source: str, path: str = "<string>", select=None, ignore=None,
               unsafe_fixes: bool = False, noqa: bool = True, accept=None, *,
               prefilter: bool = True, tensorflow_modules: Sequence[str] = (),
               function_decorators: Sequence[str] = (), tensorflow_versions=None,
               tf1_directory=()) -> FixResult:
    settings = Settings(tuple(tensorflow_modules), tuple(function_decorators),
                        tensorflow_versions=tensorflow_versions, tf1_directory=tf1_directory)
    return on_deep_stack(_fix_source, source, path, select, ignore, unsafe_fixes, noqa, accept,
                         prefilter, settings)


def _fix_source(source, path, select, ignore, unsafe_fixes, noqa, accept, prefilter=True,
                settings=Settings()) -> FixResult:
    """Apply fixes until nothing changes (at most 8 passes).

    ``accept(diagnostic)``, when given, vetoes fixes (the CLI uses it for the
    minimum severity and for notebook fixes that would span cells).

    Raises FixError, and returns nothing to write, if a pass yields code that
    does not parse: the caller leaves the file untouched.
    """
    if prefilter and can_skip(source, settings.tensorflow_modules):
        return FixResult(source, 0, 0, [])
    rule_classes = registry.selected_rules(select, ignore)
    allowed = {SAFE, UNSAFE} if unsafe_fixes else {SAFE}
    applied = 0
    try:
        module = parse(source)
    except PARSE_FAILURES:  # a syntax error, or Python 2 (linted as such, never fixed)
        from .lint import lint_document

        return FixResult(source, 0, 0, lint_document(
            source, path, select, ignore, noqa=noqa, prefilter=False, tensorflow_modules=settings.tensorflow_modules,
            function_decorators=settings.function_decorators,
            tensorflow_versions=settings.tensorflow_versions, tf1_directory=settings.tf1_directory).diagnostics)
    tail = _dropped_tail(source, module, path)
    passes = 0
    while True:
        diagnostics = lint_parsed(module, source, path, rule_classes, noqa=noqa,
                                  settings=settings).diagnostics
        hidden = 0 if unsafe_fixes else sum(d.fix_safety == UNSAFE for d in diagnostics)
        fixes = [d.fix for d in diagnostics if d.fix_safety in allowed and (accept is None or accept(d))]
        if not fixes or passes == MAX_FIX_PASSES:
            return FixResult(source, applied, passes, diagnostics, hidden, converged=not fixes)
        fixed, count = apply_fixes(module, fixes)
        new_source = fixed.code + tail
        if new_source == source:
            return FixResult(source, applied, passes, diagnostics, hidden)
        try:
            module = parse(new_source)
        except PARSE_FAILURES as error:
            raise FixError(f"{path}: fixing produced code that does not parse ({error}); "
                           "file left unchanged") from error
        applied += count
        source = new_source
        passes += 1


def _dropped_tail(source: str, module: cst.Module, path: str) -> str:
    """What libcst fails to reproduce at the end of ``source`` (the last newline
    of a file with classic-Mac ``\\r`` line endings); fixing is refused when the
    round trip differs in any other way."""
    code = module.code
    if code == source:
        return ""
    if source.startswith(code) and not source[len(code):].strip("\r\n"):
        return source[len(code):]
    raise FixError(f"{path}: libcst does not reproduce this file exactly; it was not fixed")
