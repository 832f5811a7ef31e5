"""Run the rules over a parsed module: one traversal, severities settled per mode, positions."""
from __future__ import annotations

from typing import List, Sequence, Tuple

import libcst as cst

from ..analysis.context import Context, Settings
from ..levels import INFO, SEVERITY_RANK
from ..rule import Report
from .diagnostics import Analysis, Diagnostic, internal_error, syntax_error
from .threads import collector_paused
from .positions import positions
from .suppressions import Suppressions
from .traversal import Traversal


def lint_parsed(module: cst.Module, source: str, path: str, rule_classes: Sequence[type], *,
                noqa: bool = True, settings: Settings = Settings(), severity: str = INFO) -> Analysis:
    """The rest of the pipeline for ``source`` already parsed into ``module``; findings below
    ``severity`` are dropped before their positions are computed; rules that cannot report in
    ``source`` (``Rule.may_report_in``) are not run."""
    rule_classes = [rule for rule in rule_classes if rule.may_report_in(source)]
    diagnostics = lint_module(module, path, rule_classes, settings, severity)
    analysis = Analysis(diagnostics, module=module)
    if noqa:
        analysis.suppressions = Suppressions.parse(source)
        analysis.diagnostics, analysis.suppressed = analysis.suppressions.split(diagnostics)
    return analysis


def lint_module(module: cst.Module, path: str, rule_classes: Sequence[type],
                settings: Settings = Settings(), severity: str = INFO) -> List[Diagnostic]:
    """Diagnostics of one parsed module, at ``severity`` or above; a crash inside a rule
    becomes one TFE000."""
    try:
        with collector_paused():
            settled = analyse(module, path, rule_classes, settings)
            minimum = SEVERITY_RANK[severity]
            return _diagnostics(module, path, [(r, s) for r, s in settled if SEVERITY_RANK[s] >= minimum])
    except RecursionError as error:
        return [syntax_error(path, "", error)]
    except Exception as error:  # the run goes on with the other files
        return [internal_error(path, error)]


def analyse(module: cst.Module, path: str, rule_classes: Sequence[type],
            settings: Settings = Settings()) -> List[Tuple[Report, str]]:
    """Run the rules over ``module``; reports with their severity settled for their mode."""
    context = Context(module, path, settings)
    reports: List[Report] = []
    rules = [cls(context, reports.append) for cls in rule_classes]
    Traversal(context, [context.semantics, *rules]).walk(module)
    settled = []
    for report in reports:
        if report.when is not None and not report.when():
            continue
        severity = report.severity
        if not isinstance(severity, str):
            severity = severity.get(report.mode())
        if severity:
            settled.append((report, severity))
    return settled


def _diagnostics(module, path, settled) -> List[Diagnostic]:
    if not settled:
        return []
    ranges = positions(module, [report.node for report, _ in settled])
    found = set()
    for report, severity in settled:
        (line, col), (end_line, end_col) = ranges[id(report.node)]
        found.add(Diagnostic(path, line, col, report.rule.CODE, report.message, severity,
                             end_line, end_col, report.fix))
    return sorted(found, key=lambda d: (d.line, d.col, d.code))
