"""Which op computes a value: through names, attributes, layers, helpers' returns and parameters.

Part of the semantic model's answers for the numerical-stability rules (``numeric_patterns``):
``produced_by`` sees a value computed by a TensorFlow op here or through a name assigned once
(or in order) in this scope; ``computes`` also follows what holds or applies the op across
function boundaries within the module, where no fix may re-use the op's arguments.
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Tuple

import libcst as cst

from .activations import layer_activation
from .names import OTHER
from .syntax import has_star_args

FIRST_PARAMETERS = ("x", "logits", "input_tensor")


class Produced(NamedTuple):
    call: cst.Call
    named: bool  # reached through a name assigned in an earlier statement
    exact: bool = True  # ``call`` is the op itself, in this scope: a fix may re-use its arguments


def through_name(context, expr: cst.BaseExpression) -> Tuple[cst.BaseExpression, bool]:
    """The value of a name assigned once in the current scope (and True), else ``expr``."""
    if isinstance(expr, cst.Name) and context.is_local(expr.value):
        value = context.assigned_value(expr)
        if value is not None:
            return value, True
    return expr, False


def produced_by(context, expr: cst.BaseExpression, paths) -> Optional[Produced]:
    """The call of one of the TensorFlow functions ``paths`` that computes ``expr``."""
    value, named = through_name(context, expr)
    if isinstance(value, cst.Call) and not has_star_args(value):
        name = context.tf_call(value)
        if name is not None and name.path in paths:
            return Produced(value, named)
    return None


def computes(context, expr: cst.BaseExpression, paths) -> Optional[Produced]:
    """Like ``produced_by``, and also through what holds or applies the op: an attribute with
    one known value (``self.p``, ``model.p``: ``Context.attribute_value``), a layer whose
    activation is one of ``paths`` (``Dense(10, activation="softmax")(x)``, a layer object
    bound once, ``tf.layers.dense(x, 10, activation=tf.nn.softmax)``), a function of the
    module that returns the op (``def probs(): return tf.nn.softmax(x)``, ``self.probs()``) or
    applies an activation its caller passes (``add_layer(x, 10, activation_function=tf.nn.softmax)``),
    or a parameter to which every call of its function in the module passes one of these.
    Those are found with ``exact`` False: no fix may rewrite them.  Softmax and sigmoid
    activations only."""
    found = produced_by(context, expr, paths)
    if found is not None:
        return found
    value, named = through_name(context, expr)
    if type(value) is cst.Name:
        return _passed(context, value, context.scope, paths) if context.holds_parameter(value) else None
    return _held(context, value, context.scope, paths, named)


def _held(context, value: cst.BaseExpression, scope, paths, named: bool = True, depth: int = 3) -> Optional[Produced]:
    """``value``, read in ``scope`` (not only here), is an attribute, a layer's output or a call of
    a function of the module that holds one of ``paths`` (what it returns followed ``depth`` times)."""
    if isinstance(value, cst.Attribute):
        held = context.attribute_value(value, scope)
        if held is None:
            return None
        (value, scope), named = held, True
    if not isinstance(value, cst.Call) or has_star_args(value):
        return None
    if _applies(context, value, scope, paths):
        return Produced(value, named, exact=False)
    returned = context.returned_value(value, scope)
    if returned is None:
        return None
    if returned.applied is not None:  # ``add_layer(x, 10, activation_function=tf.nn.softmax)``
        name = context.tf_name(*returned.applied)
        return Produced(value, named, exact=False) if name is not None and name.path in paths else None
    if depth and isinstance(returned.value, (cst.Attribute, cst.Call)):  # ``return self.out_layer``, another helper
        return _held(context, returned.value, returned.scope, paths, True, depth - 1)
    return None


def _passed(context, name: cst.Name, scope, paths, depth: int = 3) -> Optional[Produced]:
    """The op every call of the function of the parameter ``name`` passes it (through names
    bound once there, and callers' own parameters up to ``depth`` calls away)."""
    owner = context.owner(name.value, scope)
    if owner is None or type(owner.node) is not cst.FunctionDef or not depth:
        return None
    values = context.passed_arguments(owner.node, name.value)
    found = None
    for value, site in values or ():
        if site is None:
            return None
        value = _bound_once(value, site)
        if type(value) is cst.Name:
            inner = context.owner(value.value, site)
            is_parameter = inner is not None and inner.bindings.get(value.value) == [OTHER]
            held = _passed(context, value, site, paths, depth - 1) if is_parameter else None
        else:
            held = _held(context, value, site, paths)
        if held is None:
            return None
        found = found or held._replace(exact=False)
    return found


def _bound_once(expr: cst.BaseExpression, scope) -> cst.BaseExpression:
    """The value of a name assigned once in ``scope`` (read from anywhere in it), else ``expr``."""
    return (scope.value_once(expr.value) if type(expr) is cst.Name else None) or expr


def _applies(context, call: cst.Call, scope, paths) -> bool:
    """``call``, read in ``scope``, is one of ``paths`` or a layer whose activation is."""
    name = context.tf_name(call.func, scope)
    return (name is not None and name.path in paths) or layer_activation(context, call, scope) in paths


def produced_chain(context, expr: Optional[cst.BaseExpression], *steps) -> Optional[List[Produced]]:
    """``expr`` computed by one of ``steps[0]``, whose operand is computed by one of
    ``steps[1]``, and so on: the calls, outermost first; None when a link is missing.
    ``produced_chain(c, x, REDUCE_SUM, EXP)`` matches ``reduce_sum(exp(...))``."""
    found: List[Produced] = []
    for paths in steps:
        produced = None if expr is None else produced_by(context, expr, paths)
        if produced is None:
            return None
        found.append(produced)
        expr = operand(produced.call)
    return found


def operand(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The first argument of a call (``x``, ``logits``, ``input_tensor``), by position or keyword."""
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value in FIRST_PARAMETERS:
            return arg.value
    return None
