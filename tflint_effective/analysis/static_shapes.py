"""Shapes the code fixes statically: constants, variables and filled tensors of literal shape.

``static_shape(context, expr)`` is the full shape of a tensor whose every dimension the source
spells out (``tf.constant([[1, 2]])`` is ``(1, 2)``, ``tf.zeros([3, 4])`` is ``(3, 4)``), seen
through a name bound exactly once; None when any dimension is unknown.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from .syntax import call_arg, has_star_args

# Ops whose value is their first argument, and ops whose first argument is their shape.
VALUED = {"constant": "value", "Variable": "initial_value", "convert_to_tensor": "value"}
SHAPED = {"zeros": "shape", "ones": "shape", "fill": "dims", "random.normal": "shape",
          "random.uniform": "shape", "random_normal": "shape", "random_uniform": "shape",
          "truncated_normal": "shape", "random.truncated_normal": "shape"}


def static_shape(context, expr: Optional[cst.BaseExpression]) -> Optional[Tuple[int, ...]]:
    if isinstance(expr, cst.Name):
        expr = context.assigned_value(expr)
    if isinstance(expr, (cst.Integer, cst.Float)):
        return ()
    if isinstance(expr, cst.BinaryOperation) and not isinstance(expr.operator, cst.MatrixMultiply):
        return _broadcast(static_shape(context, expr.left), static_shape(context, expr.right))
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
        return _broadcast(static_shape(context, expr.left), static_shape(context, expr.comparisons[0].comparator))
    if not isinstance(expr, cst.Call) or has_star_args(expr):
        return None
    name = context.tf_call(expr)
    if name is None:
        return None
    if name.path in VALUED:
        arg = call_arg(expr, 0, VALUED[name.path])
        return None if arg is None or call_arg(expr, None, "shape") else literal_shape(arg.value)
    if name.path in SHAPED:
        arg = call_arg(expr, 0, SHAPED[name.path])
        return None if arg is None else _dimensions(arg.value)
    return None


def static_size(context, expr: cst.BaseExpression) -> Optional[int]:
    """The number of elements of a tensor of static shape."""
    shape = static_shape(context, expr)
    if shape is None:
        return None
    size = 1
    for dim in shape:
        size *= dim
    return size


def stretches_both(a: Optional[Tuple[int, ...]], b: Optional[Tuple[int, ...]]) -> bool:
    """Broadcasting enlarges both static shapes (``(2, 1)`` against ``(2,)`` gives ``(2, 2)``): an
    outer product where an element-wise result was meant."""
    result = _broadcast(a, b)
    return result is not None and result != a and result != b


def literal_shape(value: cst.BaseExpression) -> Optional[Tuple[int, ...]]:
    """``(2, 3)`` for a nested list or tuple literal of numbers, ``()`` for a number."""
    if isinstance(value, (cst.Integer, cst.Float)) or (
            isinstance(value, cst.UnaryOperation) and isinstance(value.expression, (cst.Integer, cst.Float))):
        return ()
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return ()
    if not isinstance(value, (cst.List, cst.Tuple)) or not value.elements:
        return None
    inner = [literal_shape(element.value) if not isinstance(element, cst.StarredElement) else None
             for element in value.elements]
    if inner[0] is None or any(shape != inner[0] for shape in inner):
        return None
    return (len(inner), *inner[0])


def literal_numbers(value: cst.BaseExpression) -> Optional[List[float]]:
    """The numbers of a number or a nested list or tuple literal of numbers."""
    negative = isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus)
    number = value.expression if negative else value
    if isinstance(number, (cst.Integer, cst.Float)):
        try:
            magnitude = float(int(number.value, 0) if isinstance(number, cst.Integer) else number.value)
        except ValueError:  # ``010``: Python 2's octal
            return None
        return [-magnitude if negative else magnitude]
    if not isinstance(value, (cst.List, cst.Tuple)) or not value.elements:
        return None
    numbers = []
    for element in value.elements:
        inner = literal_numbers(element.value) if not isinstance(element, cst.StarredElement) else None
        if inner is None:
            return None
        numbers.extend(inner)
    return numbers


def _broadcast(a: Optional[Tuple[int, ...]], b: Optional[Tuple[int, ...]]) -> Optional[Tuple[int, ...]]:
    """NumPy's broadcasting of two static shapes (None when unknown or incompatible)."""
    if a is None or b is None:
        return None
    a, b = (1,) * (len(b) - len(a)) + a, (1,) * (len(a) - len(b)) + b
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):
        return None
    return tuple(max(x, y) for x, y in zip(a, b))


def _dimensions(value: cst.BaseExpression) -> Optional[Tuple[int, ...]]:
    if not isinstance(value, (cst.List, cst.Tuple)):
        return None
    dims = []
    for element in value.elements:
        if not isinstance(element.value, cst.Integer):
            return None
        dims.append(int(element.value.value, 0))
    return tuple(dims)
