"""How many times a counted ``while`` loop runs, when the source spells it out.

``n = 0`` just before ``while n < 3:`` whose body steps ``n += 1`` once, at its top level, and
holds no ``continue`` (which could skip the step) runs 3 times: ``n`` takes the values 0, 1 and 2.
The bound and the step are what ``loops.literal_int`` reads (numbers, names bound once to them).
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import libcst as cst

from .loops import body_statements, literal_int
from .syntax import bindings_in, descendants


def while_count(context, loop: cst.While, block: Sequence[cst.CSTNode]) -> Optional[int]:
    """The number of iterations of ``loop``, a statement of ``block``, or None when unknown."""
    test = loop.test
    if type(test) is not cst.Comparison or len(test.comparisons) != 1 or type(test.left) is not cst.Name:
        return None
    counter, comparison = test.left.value, test.comparisons[0]
    bound = literal_int(context, comparison.comparator)
    start, step = _start(context, counter, loop, block), _step(context, counter, loop)
    if bound is None or start is None or step is None:
        return None
    operator = type(comparison.operator)
    if operator is cst.LessThan:
        return max(0, math.ceil((bound - start) / step))
    if operator is cst.LessThanEqual:
        return max(0, (bound - start) // step + 1)
    if operator is cst.NotEqual and bound >= start and (bound - start) % step == 0:
        return (bound - start) // step
    return None


def _start(context, counter: str, loop: cst.While, block: Sequence[cst.CSTNode]) -> Optional[int]:
    """The number the last statement before the loop that binds ``counter`` assigns it."""
    index = next((i for i, statement in enumerate(block) if statement is loop), None)
    for statement in reversed(block[:index or 0]):
        bindings = [node for name, node in bindings_in([statement]) if name == counter]
        if bindings:
            only = bindings[0]
            simple = type(statement) is cst.SimpleStatementLine and len(bindings) == 1
            return literal_int(context, only.value) if simple and type(only) is cst.Assign else None
    return None


def _step(context, counter: str, loop: cst.While) -> Optional[int]:
    """The positive number the body adds to ``counter`` once per iteration, in a top-level
    ``counter += step`` that is its only binding, with no ``continue`` to skip it."""
    bindings = [node for name, node in bindings_in(body_statements(loop)) if name == counter]
    if len(bindings) != 1 or type(bindings[0]) is not cst.AugAssign or type(bindings[0].operator) is not cst.AddAssign:
        return None
    increment = bindings[0]
    top_level = any(type(statement) is cst.SimpleStatementLine and any(small is increment for small in statement.body)
                    for statement in body_statements(loop))
    if not top_level or any(type(node) is cst.Continue for node in descendants(loop.body)):
        return None
    step = literal_int(context, increment.value)
    return step if step is not None and step > 0 else None
