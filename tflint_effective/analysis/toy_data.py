"""Whether a TF1 script trains only on a handful of data points written in it.

A script every feed of which (``feed_dict={X: x_data, Y: y_data}``, ``sess.run(op, {...})``) gives
literal numbers or arrays, or names every binding of which is one (``x_data = [[0, 0], [0, 1], [1, 0],
[1, 1]]``, also through ``np.array(...)``), with at least one array among them, fits those few points:
an XOR gate or a logistic regression lesson.  Its logits stay within a few units of zero, so a
hand-written loss that would turn -inf on saturated outputs never does here (TFE402-TFE404 say so at
info).  A feed dict the script does not spell out (a name, ``dict(...)``) or any other value (a batch
read from a file, random data) leaves the data unknown.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from .fetches import DEFS
from .names import Assigned
from .static_shapes import literal_numbers
from .syntax import call_arg, code_children, leaf_name

# wrappers that keep a literal array literal: ``np.array([[0, 1]], dtype=np.float32)``, ``np.float32([...])``
ARRAY_WRAPPERS = frozenset({"array", "asarray", "float32", "float64", "int32", "matrix"})


def toy_data(context) -> bool:
    """Every feed the module spells is literal, and one of them is an array."""
    arrays, todo = 0, [(context.module, context.module_scope)]
    while todo:
        node, scope = todo.pop()
        if type(node) is cst.Call:
            feeds = _feeds(node)
            if type(feeds) is cst.Name:  # ``feed = {X: x_data}; sess.run(op, feed)``
                bindings = context.bindings(feeds.value, scope) or ()
                if len(bindings) == 1 and type(bindings[0]) is Assigned:
                    feeds = bindings[0].value
            if feeds is not None:
                if type(feeds) is not cst.Dict:
                    return False
                for element in feeds.elements:
                    kind = _literal(context, getattr(element, "value", None), scope)
                    if kind is None:
                        return False
                    arrays += kind == "array"
        inner = context.scope_of(node) if type(node) in DEFS else None
        todo.extend((child, inner or scope) for child in code_children(node))
    return arrays > 0


def _feeds(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The feed dict a call gives: ``feed_dict=``, or the dict after a session run's fetches
    (``sess.run(op, {...})``), or the one of ``t.eval({...})`` / ``op.run({...})``."""
    arg = call_arg(call, None, "feed_dict")
    if arg is None and type(call.func) is cst.Attribute and call.func.attr.value in ("run", "eval"):
        arg = call_arg(call, 1, "feed_dict")
        if arg is None and call.args and type(call.args[0].value) is cst.Dict:
            arg = call.args[0]
    return None if arg is None else arg.value


def _literal(context, value, scope, names: frozenset = frozenset()) -> Optional[str]:
    """``"number"`` or ``"array"`` for a literal (or a name bound only to literals, ``names`` being the
    names looked up on the way: ``x = np.array(x)`` is what ``x`` was), else None."""
    if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
        value = value.expression
    if type(value) in (cst.Integer, cst.Float) or type(value) is cst.Name and value.value in ("True", "False"):
        return "number"
    if type(value) is cst.Call and value.args and leaf_name(value.func) in ARRAY_WRAPPERS:
        value = value.args[0].value
    if type(value) in (cst.List, cst.Tuple):
        return "array" if literal_numbers(value) else None
    if type(value) is cst.Name and value.value in names:
        return "same"
    if type(value) is cst.Name and len(names) < 3:
        bindings = context.bindings(value.value, scope)
        if bindings and all(type(binding) is Assigned for binding in bindings):
            kinds = {_literal(context, binding.value, binding.scope, names | {value.value}) for binding in bindings}
            kinds.discard("same")
            return kinds.pop() if len(kinds) == 1 and None not in kinds else None
    return None
