"""Periodic branches of a loop (``if step % n == 0:``): taken again and again, at most once in
``n`` consecutive values of the counter (what TFE601 counts as copies of an op)."""
from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from .loops import literal_int


def periodic(test: cst.BaseExpression) -> bool:
    """``step % n == 0`` (or ``not step % n``): a branch taken again and again."""
    return _modulo(test) is not None


def _modulo(test: cst.BaseExpression) -> Optional[cst.BinaryOperation]:
    """The ``step % n`` a periodic test is made of, else None."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        test = test.left
    return test if isinstance(test, cst.BinaryOperation) and isinstance(test.operator, cst.Modulo) else None


def never_true(context, test: cst.BaseExpression) -> bool:
    """``step % n == k`` with ``k`` outside ``0 .. n - 1`` (``n`` and ``k`` spelled out): the
    remainder never gets there, so the branch never runs."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return False
    comparison = test.comparisons[0]
    n, k = literal_int(context, test.left.right), literal_int(context, comparison.comparator)
    return type(comparison.operator) is cst.Equal and n is not None and k is not None and n > 0 and not 0 <= k < n


def period(context, test: cst.BaseExpression) -> Optional[Tuple[str, int]]:
    """``(step, n)`` for a periodic test of a counter (``step % n == 0``, ``(step + 1) % n == 0``)
    with ``n`` spelled out: taken at most once in ``n`` consecutive values of ``step``."""
    modulo = _modulo(test)
    if modulo is None:
        return None
    counter, n = modulo.left, literal_int(context, modulo.right)
    if isinstance(counter, cst.BinaryOperation) and isinstance(counter.operator, (cst.Add, cst.Subtract)) \
            and isinstance(counter.right, cst.Integer):
        counter = counter.left
    return (counter.value, n) if isinstance(counter, cst.Name) and n is not None and n > 0 else None
