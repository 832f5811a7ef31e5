"""Finding rules and selecting them: every Rule subclass of the ``rules`` package, by code.

Imports the rule modules (and so libcst) on first use only: the reporting side
reads rule metadata through here without paying for it until it asks.
"""
from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import Iterable, List, Optional, Sequence, Tuple


@functools.lru_cache(maxsize=None)
def all_rules() -> Tuple[type, ...]:
    """Every Rule subclass, one per module of the ``rules`` package, by code."""
    from . import rules as rules_package
    from .rule import Rule

    found = []
    for info in pkgutil.iter_modules(rules_package.__path__):
        module = importlib.import_module(f"{rules_package.__name__}.{info.name}")
        found += [obj for obj in vars(module).values()
                  if isinstance(obj, type) and issubclass(obj, Rule) and obj.CODE
                  and obj.__module__ == module.__name__]
    codes = [r.CODE for r in found]
    duplicated = {c for c in codes if codes.count(c) > 1}
    if duplicated:
        raise RuntimeError(f"rule codes defined twice: {sorted(duplicated)}")
    return tuple(sorted(found, key=lambda r: r.CODE))


def rule_by_code(code: str) -> Optional[type]:
    return next((r for r in all_rules() if r.CODE == code.upper()), None)


def _longest_prefix(code: str, prefixes: Iterable[str]) -> int:
    return max((len(p) for p in prefixes if code.startswith(p)), default=-1)


def is_selected(code: str, select: Optional[Sequence[str]], ignore: Optional[Sequence[str]]) -> bool:
    """flake8's rule: the longest matching prefix of --select and --ignore wins."""
    chosen = _longest_prefix(code, [s.upper() for s in select] if select else ["TFE"])
    dropped = _longest_prefix(code, [i.upper() for i in ignore or ()])
    return chosen >= 0 and chosen > dropped


def selected_rules(select=None, ignore=None) -> List[type]:
    return [r for r in all_rules() if is_selected(r.CODE, select, ignore)]
