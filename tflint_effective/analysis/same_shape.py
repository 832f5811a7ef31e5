"""Tensors the code gives one shape: the two operands of ``a - b`` that cannot broadcast.

``same_shape(context, a, b, is_tensor)`` is True only when the source shows that ``a`` and
``b`` have the same shape (or that one was broadcast on purpose to match the other).  Each
operand gets a key describing where its shape comes from; equal keys, one shape:

- an element-wise expression has the shape of its one tensor operand (``is_tensor`` says
  which operands count): ``-p``, ``tf.math.log(p + eps)``, ``tf.pow(1 - p, gamma)``;
- ``tf.ones_like(t)``, ``tf.zeros_like(t)``, ``tf.fill(tf.shape(t), v)``,
  ``tf.broadcast_to(v, tf.shape(t))``, ``tf.reshape(v, tf.shape(t))`` have the shape of ``t``;
- ``tf.reshape(a, s)`` and ``tf.reshape(b, s)`` with the same shape expression ``s``;
- slices of the same tensor with the same extents (``x[:, 1:]`` and ``x[:, :-1]``), and a
  ``keepdims=True`` reduction along axis ``k`` of a tensor, which is shaped like its
  ``[:, ..., 0:1]`` slice at position ``k``;
- Gram matrices ``tf.matmul(x, x, transpose_b=True)`` taken the same way;
- a stride-1 ``"SAME"`` convolution (a blur) has the shape of its input;
- a method called with the same arguments on two objects, read at the reduction
  (``q.log_prob(z) - p.log_prob(z)``: two densities of one sample);
- ``tf.tile``, ``tf.expand_dims``, ``tf.newaxis``/``None`` indexing and ``tf.broadcast_to`` to
  another shape broadcast on purpose: such a value matches any other.

A name bound exactly once is seen through (a few levels deep); a name or attribute read
directly is its own key.  Anything else is unknown: not the same shape.
"""
from __future__ import annotations

import libcst as cst

from .numeric_patterns import ELEMENTWISE
from .syntax import call_arg, has_star_args, is_none
from .tf_api import REDUCTIONS, with_math

EXPLICIT = ("explicit",)  # broadcast on purpose: matches any shape
BINARY_ELEMENTWISE = with_math("pow", "maximum", "minimum", "add", "subtract", "multiply", "divide",
                               "truediv", "squared_difference")
LIKE = {"ones_like", "zeros_like", "math.ones_like", "math.zeros_like"}
SHAPED_AS = {"fill": 0, "broadcast_to": 1, "reshape": 1}  # the position of the shape argument
SPREAD = {"tile", "expand_dims"}
CONVOLUTIONS = {"nn.conv1d", "nn.conv2d", "nn.conv3d", "nn.depthwise_conv2d"}
KEEPING = with_math(*REDUCTIONS)
DEPTH = 6


def same_shape(context, a: cst.BaseExpression, b: cst.BaseExpression, is_tensor) -> bool:
    return _combine(shape_source(context, a, is_tensor), shape_source(context, b, is_tensor)) is not None


def shape_source(context, expr: cst.BaseExpression, is_tensor):
    """The key of where ``expr``'s shape comes from (``("of", name)``: the value of ``name`` as it
    is read, e.g. a parameter), or None when unknown."""
    return _key(context, expr, is_tensor, 0, False)


def _combine(left, right):
    if left is None or right is None:
        return None
    if left == right or right == EXPLICIT:
        return left
    return right if left == EXPLICIT else None


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _key(context, expr, is_tensor, depth: int, through: bool):
    """Where the shape of ``expr`` comes from; ``through``: read in a value a name was bound to
    (where only a name bound once surely holds what it holds at the reduction)."""
    if depth > DEPTH:
        return None
    key = lambda e: _key(context, e, is_tensor, depth + 1, through)  # noqa: E731
    if isinstance(expr, cst.Name):
        value = context.assigned_value(expr)
        found = _key(context, value, is_tensor, depth + 1, True) if value is not None else None
        once = len(context.bindings(expr.value) or []) == 1
        return found if found is not None else ("of", expr.value) if not through or once else None
    if isinstance(expr, cst.Attribute):
        return None if through else ("of", _code(expr))
    if isinstance(expr, cst.UnaryOperation):
        return key(expr.expression)
    if isinstance(expr, cst.BinaryOperation) and not isinstance(expr.operator, cst.MatrixMultiply):
        return _operands(context, (expr.left, expr.right), is_tensor, depth, through)
    if isinstance(expr, cst.Subscript):  # an index into a list of unknown kind: no shape said
        known = context.kind(expr.value) in ("tensor", "scalar") or all(
            isinstance(element.slice, cst.Slice) for element in expr.slice)
        return _slice_key(key(expr.value), expr) if known else None
    if not isinstance(expr, cst.Call) or has_star_args(expr) or not expr.args:
        return None
    name = context.tf_call(expr)
    path = name.path if name is not None else None
    first = expr.args[0].value
    if path in ELEMENTWISE or path in LIKE:
        return key(first)
    if path in with_math("pow") and len(expr.args) >= 2 and context.kind(expr.args[1].value) != "tensor":
        return key(first)  # an exponent not known to be a tensor: a number, almost always
    if path in BINARY_ELEMENTWISE and len(expr.args) >= 2:
        return _operands(context, (first, expr.args[1].value), is_tensor, depth, through)
    if path in SPREAD:
        return EXPLICIT
    if path in SHAPED_AS:
        shape = call_arg(expr, SHAPED_AS[path], "dims" if path == "fill" else "shape")
        if shape is None:
            return None
        shaped = context.tf_call(shape.value)
        if shaped is not None and shaped.path == "shape" and shape.value.args:
            return key(shape.value.args[0].value)
        return ("reshape", _code(shape.value)) if path == "reshape" else EXPLICIT if path == "broadcast_to" else None
    if path in KEEPING:
        return _kept(context, expr, key(first))
    if path in with_math("matmul") and len(expr.args) >= 2 and first.deep_equals(expr.args[1].value):
        flags = tuple(f"{arg.keyword.value}={_code(arg.value)}" for arg in expr.args[2:] if arg.keyword)
        return ("gram", flags) if flags else None
    if path in CONVOLUTIONS and _stride_one_same(expr, path):
        return key(first)
    if name is None and isinstance(expr.func, cst.Attribute) and not through:
        return ("method", expr.func.attr.value, tuple(_code(arg) for arg in expr.args))
    return None


def _operands(context, sides, is_tensor, depth, through):
    tensors = [side for side in sides if is_tensor(side)]
    keys = [_key(context, side, is_tensor, depth + 1, through) for side in tensors]
    if len(keys) == 1:
        return keys[0]
    return _combine(*keys) if keys else None


def _kept(context, call: cst.Call, base):
    """A ``keepdims=True`` reduction along one literal non-negative axis: a one-wide slice there."""
    keep = call_arg(call, None, "keepdims") or call_arg(call, None, "keep_dims")
    axis = call_arg(call, 1, "axis")
    if base is None or keep is None or _code(keep.value) != "True" or axis is None:
        return None
    if not isinstance(axis.value, cst.Integer):
        return None
    return ("slice", base, ((1, 0),) * int(axis.value.value) + ((0, 1),))


def _slice_key(base, expr: cst.Subscript):
    if base is None:
        return None
    extents = []
    for element in expr.slice:
        inner = element.slice
        if isinstance(inner, cst.Index):
            if is_none(inner.value) or _code(inner.value) in ("tf.newaxis", "np.newaxis"):
                return EXPLICIT
            extents.append("..." if isinstance(inner.value, cst.Ellipsis) else "index")
        elif inner.step is not None:
            return None
        else:
            lower, upper = _bound(inner.lower, (0, 0)), _bound(inner.upper, (1, 0))
            if lower is None or upper is None:
                return None
            extents.append((upper[0] - lower[0], upper[1] - lower[1]))
    while extents and extents[-1] == (1, 0):  # ``x[:, 0:1, :]`` is ``x[:, 0:1]``
        extents.pop()
    return base if not extents else ("slice", base, tuple(extents))


def _bound(bound, default):
    """A slice bound as (n, k): the position ``n * length + k``; None when not a literal."""
    if bound is None:
        return default
    negative = isinstance(bound, cst.UnaryOperation) and isinstance(bound.operator, cst.Minus)
    literal = bound.expression if negative else bound
    if not isinstance(literal, cst.Integer):
        return None
    value = int(literal.value)
    return (1, -value) if negative else (0, value)


def _stride_one_same(call: cst.Call, path: str) -> bool:
    """``tf.nn.conv2d(x, k, 1, "SAME")``, ``strides=[1, 1, 1, 1]``: the output has the input's size."""
    padding = call_arg(call, 3, "padding")
    strides = call_arg(call, 2, "stride" if path == "nn.conv1d" else "strides")
    if padding is None or strides is None or not isinstance(padding.value, cst.SimpleString):
        return False
    ones = _code(strides.value) == "1" or isinstance(strides.value, (cst.List, cst.Tuple)) and all(
        _code(e.value) == "1" for e in strides.value.elements)
    return padding.value.evaluated_value == "SAME" and ones
