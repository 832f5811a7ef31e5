"""Expression shapes shared by the numerical-stability rules (TFE401-TFE405), and their cures.

Every answer here is "certainly" or "no": a call counts only when its name
resolves to TensorFlow; a name is seen through only when it is assigned exactly
once, in the scope being linted; an operand is merged or moved only when
evaluating it has no side effect and its names cannot have changed meaning.
"""
from __future__ import annotations

import math
from typing import Iterator, List, Optional, Sequence, Tuple

import libcst as cst

from .cure_spelling import compat_of, spell
from .loops import NUMPY_ARRAYS
from .names import Assigned
from .producers import Produced, computes, operand, produced_by, through_name
from .tf_api import DIVISIONS, LOG, REDUCE_LOGSUMEXP, REDUCE_MAX, SIGMOID, SOFTMAX, with_math
from .static_shapes import literal_numbers
from .syntax import call_arg, code_children, has_star_args

# A shift computed from these makes ``exp(x - shift)`` stable (at most ``exp(0)`` for the largest x).
SHIFTS = REDUCE_MAX | REDUCE_LOGSUMEXP
SUBTRACT = with_math("subtract")
NON_NEGATIVE = with_math("square", "abs", "exp", "sqrt") | {"math.squared_difference", "norm", "linalg.norm"}
POWERS = with_math("pow")
REDUCE_SUM_OR_MEAN = with_math("reduce_sum", "reduce_mean")
MULTIPLY = with_math("multiply")
GUARDS = with_math("maximum") | {"clip_by_value"}
CURE_LOG_SOFTMAX = ("nn.log_softmax", "math.log_softmax")  # the cure of log(softmax), in both APIs
# Element-wise ops of one tensor (the first argument): the result has its shape.
ELEMENTWISE = with_math("log", "exp", "sqrt", "rsqrt", "square", "abs", "log1p", "expm1", "sigmoid", "tanh",
                        "negative", "reciprocal", "sign", "softplus", "log_sigmoid") | {
    "nn.relu", "nn.relu6", "nn.elu", "nn.selu", "nn.softplus", "nn.sigmoid", "nn.tanh", "stop_gradient",
    "identity", "cast", "dtypes.cast", "math.log_softmax", "nn.log_softmax", "nn.softmax", "math.softmax"}
CONSTANTS = {"constant", "convert_to_tensor"}
SAFE_SPREAD = 15.0  # logits this close: every softmax probability is above exp(-15), even in float16
FLOAT16_MAX = 65504.0
BOUNDED = SOFTMAX | SIGMOID | with_math("tanh") | {"nn.tanh"}  # outputs within [-1, 1]
KEEP_BOUND = with_math("reduce_mean", "reduce_max", "reduce_min")  # |f(x)| <= max |x|
# Parts of TensorFlow paths whose ops give a new value on every call.
NONDETERMINISTIC = ("random", "dropout", "shuffle", "sampler", "multinomial", "categorical")


def _is_epsilon(context, expr: cst.BaseExpression) -> bool:
    """A number, or a name that is not known to be a tensor (``eps``, ``self.epsilon``)."""
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    return isinstance(expr, (cst.Name, cst.Attribute)) and not context.is_tensor(expr)


def unguarded(context, expr: cst.BaseExpression) -> Iterator[Tuple[cst.BaseExpression, bool]]:
    """``expr`` itself, then ``p`` from ``p + eps``, ``maximum(p, eps)``, ``clip_by_value(p, eps, 1)``,
    also held by an attribute assigned in this very function (``self.p = clip_by_value(p, eps, 1)``)."""
    yield expr, False
    expr, _ = through_name(context, expr)
    if type(expr) is cst.Attribute:
        held = context.attribute_value(expr)
        expr = held[0] if held is not None and held[1] is context.scope else expr
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        pairs = [(expr.left, expr.right), (expr.right, expr.left)]
    else:
        guard = produced_by(context, expr, GUARDS)
        args = tuple(arg.value for arg in guard.call.args[:2]) if guard is not None else ()
        pairs = [args] if len(args) == 2 else []
        if pairs and context.tf_call(guard.call).leaf == "maximum":
            pairs.append(args[::-1])
    yield from ((p, True) for p, bound in pairs if _is_epsilon(context, bound))


def _names(context, expr: cst.BaseExpression) -> Optional[List[str]]:
    """Names read by ``expr`` if evaluating it has no side effect, else None."""
    parts: Sequence[cst.BaseExpression]
    if isinstance(expr, cst.Name):
        return [] if expr.value in ("True", "False", "None") else [expr.value]
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return []
    if isinstance(expr, cst.Attribute):
        parts = [expr.value]
    elif isinstance(expr, cst.UnaryOperation):
        parts = [expr.expression]
    elif isinstance(expr, cst.BinaryOperation):
        parts = [expr.left, expr.right]
    elif isinstance(expr, (cst.Tuple, cst.List)):
        parts = [element.value for element in expr.elements]
    elif isinstance(expr, cst.Subscript):
        parts = [expr.value]
        for element in expr.slice:
            inner = element.slice
            parts += [inner.value] if isinstance(inner, cst.Index) else [
                p for p in (inner.lower, inner.upper, inner.step) if p is not None]
    elif isinstance(expr, cst.Call):
        name = context.tf_call(expr)
        if name is None or has_star_args(expr) or any(w in name.path for w in NONDETERMINISTIC):
            return None
        parts = [expr.func, *(arg.value for arg in expr.args)]
    else:
        return None
    found: List[str] = []
    for part in parts:
        names = _names(context, part)
        if names is None:
            return None
        found += names
    return found


def is_pure(context, expr: cst.BaseExpression) -> bool:
    """Evaluating ``expr`` once instead of twice gives the same value and no lost side effect."""
    return _names(context, expr) is not None


def movable(context, *exprs: cst.BaseExpression) -> bool:
    """Pure, and every name read is bound once, so it means the same one statement later."""
    for expr in exprs:
        names = _names(context, expr)
        if names is None or any(len(context.bindings(n) or ()) != 1
                                for n in names):
            return False
    return True


def may_move(context, named: bool, *exprs: cst.BaseExpression) -> bool:
    """Whether a fix may evaluate ``exprs`` at the reported node instead of where they were."""
    return not named or movable(context, *exprs)


def cure_args(call: cst.Call, named: bool) -> Optional[List[cst.Arg]]:
    """The arguments of ``call`` for the cure that replaces its use, without ``name=``: that name
    stays with the op where ``call`` is reached through a name (it still runs), and an inline
    call that names its op gets no cure (the named op would change meaning)."""
    args = [arg for arg in call.args if arg.keyword is None or arg.keyword.value != "name"]
    if len(args) == len(call.args):
        return args
    if not named:
        return None
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args


def is_max_shifted(context, expr: cst.BaseExpression) -> bool:
    """``x - m`` or ``tf.subtract(x, m)`` (or a name for either, or either scaled by a temperature:
    ``(x - m) / tau``) where ``m`` is computed from a maximum: the stable form.

    ``m`` may wrap the maximum (``stop_gradient(reduce_max(x))``, ``where(is_finite(m), m, 0)``)
    or be a name with several bindings, one of them a maximum: the code shifts on purpose.
    """
    expr, _ = through_name(context, expr)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Divide, cst.Multiply)):
        # a temperature applied after the shift, ``(q - max_q) / tau``: the largest term stays at 0
        return is_max_shifted(context, expr.left) or (
            isinstance(expr.operator, cst.Multiply) and is_max_shifted(context, expr.right))
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Subtract):
        return _computed_from(context, expr.right, SHIFTS, set())
    name = context.tf_call(expr) if isinstance(expr, cst.Call) else None
    shift = call_arg(expr, 1, "y") if name is not None and name.path in SUBTRACT else None
    return shift is not None and _computed_from(context, shift.value, SHIFTS, set())


def _computed_from(context, expr: cst.BaseExpression, paths, seen: set) -> bool:
    """A call of one of ``paths`` is part of computing ``expr`` (through this scope's names)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value not in seen:
            seen.add(node.value)
            if context.is_local(node.value):
                stack += [b.value for b in context.bindings(node.value)
                          if isinstance(b, Assigned)]
        elif isinstance(node, cst.Call):
            name = context.tf_call(node)
            if name is not None and name.path in paths:
                return True
            stack += [arg.value for arg in node.args]
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        elif isinstance(node, cst.BaseExpression):
            stack += [child for child in code_children(node) if isinstance(child, cst.BaseExpression)]
    return False


def is_non_positive(context, expr: cst.BaseExpression) -> bool:
    """Certainly <= 0 by construction: a negated square, ``-c * d ** 2``, ``-tf.abs(d)``..."""
    expr, _ = through_name(context, expr)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return _is_non_negative(context, expr.expression)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Multiply, cst.Divide)):
        left, right = expr.left, expr.right
        return (is_non_positive(context, left) and _is_non_negative(context, right)
                or isinstance(expr.operator, cst.Multiply)
                and _is_non_negative(context, left) and is_non_positive(context, right))
    return False


def _is_non_negative(context, expr: cst.BaseExpression) -> bool:
    """Certainly >= 0: a non-negative literal, an even power, a square, an absolute value..."""
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, cst.Power):
            return _even(expr.right)
        if isinstance(expr.operator, (cst.Multiply, cst.Divide, cst.Add)):
            return _is_non_negative(context, expr.left) and _is_non_negative(context, expr.right)
        return False
    power = produced_by(context, expr, POWERS)  # ``tf.pow(d, 2)``
    if power is not None:
        exponent = call_arg(power.call, 1, "y")
        return exponent is not None and _even(exponent.value)
    return produced_by(context, expr, NON_NEGATIVE) is not None


def _even(exponent: cst.BaseExpression) -> bool:
    return isinstance(exponent, cst.Integer) and int(exponent.value, 0) % 2 == 0


def log_of_softmax(context, node: cst.CSTNode) -> Optional[Tuple[Produced, bool]]:
    """For ``log(softmax(x))`` (maybe guarded: ``log(p + eps)``): the softmax call, guarded?"""
    name = context.tf_call(node)
    if name is None or name.path not in LOG or has_star_args(node):
        return None
    argument = operand(node)
    for candidate, guarded in unguarded(context, argument) if argument is not None else ():
        softmax = computes(context, candidate, SOFTMAX)
        if softmax is not None:
            # logits read where the softmax is applied: here, or held by an attribute (read anywhere alike)
            readable = softmax.exact or type(operand(softmax.call)) is cst.Attribute
            safe = readable and (_close_constants(context, softmax.call) or is_small(context, operand(softmax.call)))
            return None if safe else (softmax, guarded)
    return None


def _close_constants(context, softmax: cst.Call) -> bool:
    """Logits written out as numbers at most ``SAFE_SPREAD`` apart: no probability can underflow."""
    numbers = _written_out(context, operand(softmax))
    return bool(numbers) and max(numbers) - min(numbers) <= SAFE_SPREAD


def exp_cannot_overflow(context, x: cst.BaseExpression) -> bool:
    """``x`` is numbers written out whose exponentials, all summed, stay below float16's largest
    value: no ``exp`` of them, nor a sum of those, overflows in any float type."""
    numbers = _written_out(context, x)
    return bool(numbers) and len(numbers) * math.exp(min(max(numbers), 12.0)) < FLOAT16_MAX


def _written_out(context, expr: Optional[cst.BaseExpression]) -> Optional[List[float]]:
    """The numbers of values written out in the code (a demo on constants): ``tf.constant([...])``, a
    NumPy array literal, through names bound once, or held by an attribute its class assigns once."""
    constant = produced_by(context, expr, CONSTANTS) if expr is not None else None
    value = operand(constant.call) if constant is not None else through_name(context, expr)[0]
    if type(value) is cst.Name:  # ``tf.constant(output)`` with ``output = np.array([[1.0, 2.0]])``
        value = through_name(context, value)[0]
    if type(value) is cst.Attribute:  # ``self.logits = [[2, 0.5, 1]]`` in ``__init__``
        value = (context.attribute_value(value) or (value,))[0]
    if type(value) is cst.Call and context.qualname(value.func) in NUMPY_ARRAYS:
        value = operand(value)
    return literal_numbers(value) if value is not None else None


def is_small(context, x: Optional[cst.BaseExpression]) -> bool:
    """``|x| <= SAFE_SPREAD / 2`` by construction, so no softmax or sigmoid of it can underflow:
    numbers, softmax, sigmoid and tanh outputs, values clipped between numbers, and their sums,
    differences, products, quotients by numbers, means, maxima and minima (``sigmoid(score(a) -
    score(b))`` with ``score`` returning a sigmoid; attention over weights a softmax gave),
    through names bound once."""
    limit = _bound(context, x, 0) if x is not None else None
    return limit is not None and limit <= SAFE_SPREAD / 2


def _bound(context, expr: cst.BaseExpression, depth: int) -> Optional[float]:
    expr, _ = through_name(context, expr)
    kind = type(expr)
    if kind is cst.Integer or kind is cst.Float:
        value = abs(expr.evaluated_value)
        return float(value) if value <= SAFE_SPREAD else None  # beyond it no bound can help
    if depth > 20:
        return None
    if kind is cst.UnaryOperation and type(expr.operator) in (cst.Minus, cst.Plus):
        return _bound(context, expr.expression, depth + 1)
    if kind is cst.BinaryOperation and type(expr.operator) in (cst.Add, cst.Subtract, cst.Multiply, cst.Divide):
        return _combined(context, type(expr.operator), expr.left, expr.right, depth)
    if kind is cst.Call and not has_star_args(expr):
        name = context.tf_call(expr)
        path = name.path if name is not None else ""
        if path in KEEP_BOUND and operand(expr) is not None:
            return _bound(context, operand(expr), depth + 1)
        if path in DIVISIONS and len(expr.args) == 2 and not any(arg.keyword for arg in expr.args):
            return _combined(context, cst.Divide, expr.args[0].value, expr.args[1].value, depth)
        if path == "clip_by_value":
            ends = [call_arg(expr, 1, "clip_value_min"), call_arg(expr, 2, "clip_value_max")]
            ends = [_bound(context, end.value, depth + 1) if end is not None else None for end in ends]
            return None if None in ends else max(ends)
    return 1.0 if computes(context, expr, BOUNDED) is not None else None


def _combined(context, operator: type, left: cst.BaseExpression, right: cst.BaseExpression,
              depth: int) -> Optional[float]:
    """A bound on ``left <operator> right``: a quotient only by a number."""
    if operator is cst.Divide:
        divisor = min(abs(right.evaluated_value), 1e6) if type(right) in (cst.Integer, cst.Float) else 0
        low = _bound(context, left, depth + 1) if divisor >= 1e-3 else None
        return None if low is None else low / divisor
    low = _bound(context, left, depth + 1)
    high = _bound(context, right, depth + 1) if low is not None else None
    if high is None:
        return None
    return low * high if operator is cst.Multiply else low + high


def log_softmax_fix(context, log: cst.Call) -> Optional[cst.Call]:
    """``log_softmax(...)`` to replace ``log(softmax(...))``; None unless provably equal."""
    softmax, guarded = log_of_softmax(context, log)
    if guarded or not softmax.exact or not may_move(context, softmax.named, *(a.value for a in softmax.call.args)):
        return None
    args = cure_args(softmax.call, softmax.named)
    func = spell(context, compat_of(context, softmax.call), CURE_LOG_SOFTMAX, (softmax.call.func, log.func))
    return softmax.call.with_changes(func=func, args=args, lpar=(), rpar=()) if None not in (func, args) else None


def cross_entropy_log(context, reduction: cst.CSTNode) -> Optional[cst.Call]:
    """The ``log(p)`` factor of ``reduce_sum|reduce_mean(labels * log(p), ...)``, p a softmax; also
    among more factors (class weights: ``labels * log(p) * w``, ``tf.multiply(labels * log(p), w)``)."""
    name = context.tf_call(reduction)
    if name is None or name.path not in REDUCE_SUM_OR_MEAN or has_star_args(reduction):
        return None
    product = operand(reduction)
    if product is None or not _is_product(context, product):
        return None
    return next((factor for factor in _factors(context, product) if log_of_softmax(context, factor)), None)


def _is_product(context, node: cst.CSTNode) -> bool:
    if type(node) is cst.BinaryOperation:
        return type(node.operator) is cst.Multiply
    if type(node) is not cst.Call or len(_operands(node)) != 2 or has_star_args(node):
        return False
    name = context.tf_call(node)
    return name is not None and name.path in MULTIPLY


def _operands(call: cst.Call) -> List[cst.BaseExpression]:
    return [arg.value for arg in call.args if arg.keyword is None or arg.keyword.value != "name"]


def _factors(context, product: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The factors of a product of ``*`` and ``tf.multiply``, nested ones included."""
    stack = [product]
    while stack:
        node = stack.pop()
        if not _is_product(context, node):
            yield node
        elif type(node) is cst.BinaryOperation:
            stack += (node.right, node.left)
        else:
            stack += reversed(_operands(node))


def in_cross_entropy(context, log: cst.Call) -> bool:
    """Whether ``log`` is a factor of a cross-entropy (TFE403 reports it then)."""
    ancestors = context.ancestors
    at = len(ancestors) - 2
    while at >= 0 and (type(ancestors[at]) is cst.Arg or _is_product(context, ancestors[at])):
        at -= 1
    return at >= 0 and cross_entropy_log(context, ancestors[at]) is log
