"""Whether a module feeds its sessions only a handful of numbers written in it (a demo on toy data).

``sess.run(train, feed_dict={X: x_data, Y: y_data})`` with ``x_data = [[0, 0], [0, 1], [1, 0],
[1, 1]]``: the XOR and logic-gate demos of TF1 courses.  Every feed of the module (a
``feed_dict=`` argument, the second argument of ``.run``, the first of ``.eval``) is a dict
literal whose values are numbers, lists or tuples of numbers, ``np.array`` of those, or
names every binding of which is one (``x_data = np.array(x_data, dtype=np.float32)`` after
``x_data = [[...]]``), each at most ``FEW_NUMBERS`` numbers.  Anything else a feed holds (a
batch from a reader, a file's contents, a name bound to a call) and the module is not one.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from .loops import NUMPY_ARRAYS
from .syntax import call_arg

FEW_NUMBERS = 100
_NUMBERS = (cst.Integer, cst.Float)
_CONSTANTS = {"True", "False", "None"}


class LiteralFeeds:
    """Fed to with every call of a module in traversal order (``visit_call``); ``only_literals``
    answers once the module is walked."""

    def __init__(self, context):
        self.context = context
        self.feeds = 0
        self.other = False

    def visit_call(self, node: cst.Call) -> None:
        if self.other or type(node.func) is not cst.Attribute:
            return
        method = node.func.attr.value
        feed = call_arg(node, None, "feed_dict")
        if feed is None and method == "run":
            positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
            feed = positional[1] if len(positional) > 1 else None
            if feed is None and len(positional) == 1 and type(positional[0].value) is cst.Dict:
                feed = positional[0]  # ``op.run({x: 1})``
        elif feed is None and method == "eval":
            feed = call_arg(node, 0, "feed_dict")
        if feed is None:
            return
        self.feeds += 1
        value = feed.value
        if type(value) is cst.Name:
            value = self.context.assigned_value(value) or value
        self.other = type(value) is not cst.Dict or not all(
            type(element) is cst.DictElement and self._numbers(element.value, set()) is not None
            for element in value.elements)

    def only_literals(self) -> bool:
        return self.feeds > 0 and not self.other

    def _numbers(self, expr: cst.BaseExpression, seen: set) -> Optional[int]:
        """How many numbers ``expr`` spells (None: not literal data, or more than ``FEW_NUMBERS``)."""
        kind = type(expr)
        if kind in _NUMBERS:
            return 1
        if kind is cst.UnaryOperation and type(expr.operator) in (cst.Minus, cst.Plus):
            return self._numbers(expr.expression, seen)
        if kind in (cst.List, cst.Tuple):
            total = 0
            for element in expr.elements:
                count = None if type(element) is cst.StarredElement else self._numbers(element.value, seen)
                if count is None:
                    return None
                total += count
            return total if total <= FEW_NUMBERS else None
        if kind is cst.Subscript:  # ``xy[:, :-1]`` of literal ``xy``
            return self._numbers(expr.value, seen)
        if kind is cst.Call and self.context.qualname(expr.func) in NUMPY_ARRAYS and expr.args \
                and expr.args[0].keyword is None and not expr.args[0].star:
            return self._numbers(expr.args[0].value, seen)
        if kind is cst.Name:
            return self._name_numbers(expr.value, seen)
        return None

    def _name_numbers(self, name: str, seen: set) -> Optional[int]:
        if name in _CONSTANTS:
            return 1
        if name in seen:  # ``x = np.array(x)``: its other bindings decide
            return 0
        bindings = self.context.bindings(name)
        if not bindings or not all(hasattr(binding, "value") for binding in bindings):
            return None
        seen = seen | {name}
        counts = [self._numbers(binding.value, seen) for binding in bindings]
        return None if None in counts else max(counts)
