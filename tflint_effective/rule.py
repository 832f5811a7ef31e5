"""The Rule base class every rule module subclasses.

A rule is a libcst ``BatchableCSTVisitor``: the engine runs all rules in one
traversal and gives each a ``Context`` (names, scopes, semantic model).  A rule
calls ``self.report(node, ...)``; severity is looked up from ``SEVERITY`` for the
execution mode of the reported code, which the engine settles after the whole
module has been seen (a ``Session()`` at the bottom makes the top graph-mode).
"""
from __future__ import annotations

import dataclasses
import sys
import textwrap
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, ClassVar, Mapping, Optional, Tuple, Union

import libcst as cst

from .levels import DISPLAY_ONLY, ERROR, INFO, MODE_NAMES, MODES, SAFE, SEVERITY_RANK, UNSAFE, WARNING

if TYPE_CHECKING:  # pragma: no cover
    from .analysis.context import Context

__all__ = ["DISPLAY_ONLY", "ERROR", "INFO", "MODES", "MODE_NAMES", "SAFE", "SEVERITY_RANK", "UNSAFE", "WARNING",
           "Fix", "Report", "Rule", "per_mode"]  # what a rule module imports

Severity = Union[str, Mapping[str, Optional[str]]]


def per_mode(default: Union[Severity, None], **modes: Optional[str]) -> Mapping[str, Optional[str]]:
    """A severity per execution mode: ``per_mode(WARNING, G=None)`` is a warning in every
    mode but TF1 graph mode, where the rule is off; ``per_mode(other, F=INFO)`` changes one
    mode of another table.  Unknown modes or levels raise."""
    unknown = set(modes) - set(MODES)
    if unknown:
        raise ValueError(f"unknown execution modes {sorted(unknown)}; modes are {MODES}")
    base = default if isinstance(default, Mapping) else dict.fromkeys(MODES, default)
    table = {mode: modes.get(mode, base[mode]) for mode in MODES}
    for level in table.values():
        _check_level(level)
    return types.MappingProxyType(table)


def _check_level(level: Optional[str]) -> None:
    if level is not None and level not in SEVERITY_RANK:
        raise ValueError(f"unknown severity {level!r}; severities are {sorted(SEVERITY_RANK)}")


@dataclass(frozen=True)
class Fix:
    """Replace ``target`` (default: the reported node) with ``replacement``.

    ``imports`` are ``(module, name)`` pairs the replacement needs.
    """

    replacement: cst.CSTNode
    target: Optional[cst.CSTNode] = None
    safety: str = SAFE
    imports: Tuple[Tuple[str, str], ...] = ()


@dataclass
class Report:
    rule: type  # the Rule subclass: an instance would make a cycle through its reports
    node: cst.CSTNode
    message: str
    fix: Optional[Fix]
    severity: Severity
    mode: Callable[[], str]  # settled after the traversal
    when: Optional[Callable[[], bool]] = None  # settled after the traversal too: False drops it


class Rule(cst.BatchableCSTVisitor):
    """Base class. Subclasses set the class attributes below and visit nodes."""

    CODE: ClassVar[str] = ""
    MESSAGE: ClassVar[str] = ""
    # One severity for every mode, or ``per_mode(...)`` (None: off in that mode).
    SEVERITY: ClassVar[Severity] = WARNING
    FIX_SAFETY: ClassVar[str] = DISPLAY_ONLY
    # BAD and GOOD are run by the tests (after EXAMPLE_HEADER): BAD must report CODE, GOOD nothing.
    EXAMPLE_HEADER: ClassVar[str] = "import tensorflow as tf\n"
    BAD: ClassVar[str] = ""
    GOOD: ClassVar[str] = ""
    # Text a file must contain (one of these substrings) for the rule to report in it: the API
    # the rule matches is spelled wherever it is used or imported. Empty: every file.
    NEEDS: ClassVar[Tuple[str, ...]] = ()

    def __init__(self, context: "Context", sink: Callable[[Report], None]):
        super().__init__()
        self.context = context
        self._sink = sink
        self.setup()

    def setup(self) -> None:
        """Per-file state of the rule (called once per file, before the traversal)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if isinstance(cls.SEVERITY, str):
            _check_level(cls.SEVERITY)
        elif not (isinstance(cls.SEVERITY, Mapping) and set(cls.SEVERITY) == set(MODES)):
            raise TypeError(f"{cls.__name__}.SEVERITY: a severity or per_mode(...), not {cls.SEVERITY!r}")

    @classmethod
    def may_report_in(cls, source: str) -> bool:
        """False when ``source`` lacks what every finding of the rule needs (then it is not run)."""
        return not cls.NEEDS or any(text in source for text in cls.NEEDS)

    # -- metadata ---------------------------------------------------------
    @classmethod
    def name(cls) -> str:
        """The rule's name: its module's, which names the bad pattern."""
        return cls.__module__.rsplit(".", 1)[-1]

    @classmethod
    def doc(cls) -> str:
        """The rule module's docstring: title, Why, Fix safety, Known problems."""
        return textwrap.dedent(sys.modules[cls.__module__].__doc__ or "").strip()

    @classmethod
    def summary(cls) -> str:
        """The class docstring: one line."""
        return " ".join((cls.__doc__ or cls.MESSAGE).split())

    @classmethod
    def severity_in(cls, mode: str) -> Optional[str]:
        if isinstance(cls.SEVERITY, str):
            return cls.SEVERITY
        return cls.SEVERITY.get(mode)

    @classmethod
    def default_severity(cls) -> str:
        levels = [cls.severity_in(m) for m in MODES]
        return max((s for s in levels if s), key=SEVERITY_RANK.get, default=INFO)

    @classmethod
    def fixable(cls) -> bool:
        return cls.FIX_SAFETY in (SAFE, UNSAFE)

    # -- reporting --------------------------------------------------------
    def report(
        self,
        node: cst.CSTNode,
        message: Optional[str] = None,
        *,
        fix: Union[Fix, cst.CSTNode, None] = None,
        severity: Optional[Severity] = None,
        when: Optional[Callable[[], bool]] = None,
    ) -> None:
        """Report ``node``; ``fix`` may be a bare replacement node (safe).  ``when`` is a
        condition known only after the traversal (``context.tf2_thunk(node)``); it must not
        hold the rule itself (a bound method would make a cycle that keeps the tree alive)."""
        if fix is not None and not isinstance(fix, Fix):
            fix = Fix(fix)
        if fix is not None and fix.target is None:
            fix = dataclasses.replace(fix, target=node)
        self._sink(
            Report(type(self), node, message or self.MESSAGE, fix,
                   severity if severity is not None else self.SEVERITY,
                   self.context.mode_thunk(node), when)
        )
