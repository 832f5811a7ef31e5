"""Python loops around a node, and the names an expression reads.

Shared by the rules that care about work repeated per iteration of a loop the
interpreter runs (TFE201), about a Python number that changes per step of a loop
(TFE703), or about device scopes that change with a loop variable (TFE501, TFE502).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence, Set, Union

import libcst as cst

from .names import COMPREHENSIONS, FUNCTION_LIKE
from .syntax import bindings_in
from .tf_api import NOT_TENSOR, NOT_TENSOR_PREFIXES, with_math

LoopNode = Union[cst.For, cst.CompFor]
# Concrete node classes, compared by ``type(node) in ...`` in the walks up the ancestors.
_SCOPES = frozenset({*FUNCTION_LIKE, cst.ClassDef})  # a search for loops stops at these
_COMPREHENSIONS = frozenset(COMPREHENSIONS)


@dataclass(frozen=True)
class Loop:
    node: LoopNode  # a ``for`` statement or one ``for`` clause of a comprehension
    targets: frozenset

    @property
    def iter(self) -> cst.BaseExpression:
        return self.node.iter

    @property
    def is_statement(self) -> bool:
        return isinstance(self.node, cst.For)

    @property
    def varying(self) -> frozenset:
        """Names that may hold a new value in each iteration: the targets and, for a
        ``for`` statement, every name its body binds."""
        if not self.is_statement:
            return self.targets
        return self.targets | {name for name, _ in bindings_in(body_statements(self.node))}


def enclosing_loops(ancestors: Sequence[cst.CSTNode]) -> Iterator[Loop]:
    """Loops whose every iteration runs the last of ``ancestors``, innermost first.

    Only loops of the same function count: a loop outside a ``def`` or a
    ``class`` binds names that the body does not necessarily see.
    """
    for depth in range(len(ancestors) - 2, -1, -1):
        node, child = ancestors[depth], ancestors[depth + 1]
        kind = type(node)
        if kind in _SCOPES:
            return
        if kind is cst.For and child is node.body:
            yield Loop(node, frozenset(bound_names(node.target)))
        elif kind in _COMPREHENSIONS and not _in_first_iterable(node, ancestors, depth):
            clause = node.for_in
            while clause is not None:
                yield Loop(clause, frozenset(bound_names(clause.target)))
                clause = clause.inner_for_in


def _in_first_iterable(comprehension, ancestors, depth) -> bool:
    """The outermost iterable of a comprehension is evaluated once, outside it."""
    path = ancestors[depth + 1:depth + 3]
    first = comprehension.for_in
    return len(path) == 2 and path[0] is first and path[1] is first.iter


def bound_names(target: cst.BaseExpression) -> Set[str]:
    kind = type(target)  # concrete classes
    if kind is cst.Name:
        return {target.value}
    if kind is cst.Tuple or kind is cst.List:
        return set().union(*(bound_names(e.value) for e in target.elements))
    if kind is cst.StarredElement:
        return bound_names(target.value)
    return set()


def is_builtin(context, func: cst.BaseExpression, name: str, scope=None) -> bool:
    """``func`` is the builtin ``name``: nothing in scope (default: here) rebinds it, no star import."""
    if not (type(func) is cst.Name and func.value == name):
        return False
    return context.owner(name, scope or context.scope) is None and not context.module_scope.star_import


def range_arguments(context, iterable: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
    """The arguments of a builtin ``range(...)`` (Python 2: ``xrange``) call; None for anything else."""
    if (isinstance(iterable, cst.Call) and (is_builtin(context, iterable.func, "range")
                                            or is_builtin(context, iterable.func, "xrange"))
            and not any(arg.star or arg.keyword for arg in iterable.args)):
        return [arg.value for arg in iterable.args]
    return None


def literal_count(context, iterable: cst.BaseExpression) -> Optional[int]:
    """How many times at most a ``for`` over ``iterable`` runs, when the source spells it out: a
    list or tuple literal (or ``np.array`` of one), or ``range`` of integer literals or of ``len``
    of such a list (also through names bound once to them); ``range(n)`` with ``n`` bound several
    times, each time to such a number, runs at most the largest of them.  ``enumerate``, ``reversed``
    and ``zip`` of such iterables run as often as they (``zip``: as its shortest known one)."""
    if type(iterable) is cst.Name:
        iterable = context.assigned_value(iterable) or iterable
    if type(iterable) is cst.Call and any(is_builtin(context, iterable.func, name) for name in _SAME_LENGTH):
        iterables = [arg.value for arg in iterable.args if not arg.keyword and not arg.star]
        if iterable.func.value != "zip":
            iterables = iterables[:1]  # enumerate's start, reversed's only argument
        known = [count for count in (literal_count(context, x) for x in iterables) if count is not None]
        return min(known) if known else None
    if type(iterable) is cst.Call and context.qualname(iterable.func) in NUMPY_ARRAYS and iterable.args \
            and iterable.args[0].keyword is None and not iterable.args[0].star:
        iterable = iterable.args[0].value  # iterating an array runs over its first dimension
    if type(iterable) in (cst.List, cst.Tuple):
        elements = iterable.elements
        return None if any(type(element) is cst.StarredElement for element in elements) else len(elements)
    arguments = range_arguments(context, iterable) or ()
    bounds = [literal_int(context, bound) for bound in arguments]
    if bounds == [None] and type(arguments[0]) is cst.Name:
        bounds = [_largest_binding(context, arguments[0])]
    if not bounds or len(bounds) > 3 or None in bounds:
        return None
    try:
        return len(range(*bounds))
    except ValueError:  # range(0, 9, 0)
        return None


NUMPY_ARRAYS = {"numpy.array", "numpy.asarray"}
_SAME_LENGTH = ("enumerate", "reversed", "zip")  # builtins that run over their iterable(s)
_ARITHMETIC = {cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul}


def literal_int(context, expr: cst.BaseExpression) -> Optional[int]:
    """``5``, ``len([a, b])``, a name bound once to one of them, or a sum, difference or product
    of those (``range(1, steps + 1)``)."""
    if type(expr) is cst.Name:
        expr = context.assigned_value(expr) or expr
    if type(expr) is cst.BinaryOperation and type(expr.operator) in _ARITHMETIC:
        left, right = literal_int(context, expr.left), literal_int(context, expr.right)
        return None if left is None or right is None else _ARITHMETIC[type(expr.operator)](left, right)
    if type(expr) is cst.Integer:
        try:
            return int(expr.value, 0)
        except ValueError:  # ``010``: Python 2's octal
            return None
    if type(expr) is cst.Call and is_builtin(context, expr.func, "len") and len(expr.args) == 1 \
            and not expr.args[0].star and expr.args[0].keyword is None:
        argument = expr.args[0].value
        return literal_count(context, argument) if type(argument) in (cst.Name, cst.List, cst.Tuple) else None
    return None


def _largest_binding(context, name: cst.Name) -> Optional[int]:
    """The largest number ``name`` is bound to, when each of its bindings assigns one ``literal_int`` reads."""
    values = [getattr(binding, "value", None) for binding in context.bindings(name.value) or ()]
    counts = [literal_int(context, value) if value is not None else None for value in values]
    return max(counts) if counts and None not in counts else None


def is_python_int(context, expr: cst.BaseExpression) -> bool:
    """Certainly a Python int when traced: literals, ``len(...)``, ``x.shape[0]``, arithmetic."""
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, cst.Name):
        value = context.assigned_value(expr)
        return value is not None and is_python_int(context, value)
    if isinstance(expr, cst.UnaryOperation):
        return is_python_int(context, expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return is_python_int(context, expr.left) and is_python_int(context, expr.right)
    if isinstance(expr, cst.Call):
        return is_builtin(context, expr.func, "len")
    return (isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute)
            and expr.value.attr.value == "shape")


# -- loops that run many steps, and the Python numbers that change per step --------------------
ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power)


def statement_loops(ancestors: Sequence[cst.CSTNode]) -> List[Union[cst.For, cst.While]]:
    """``for`` and ``while`` statements whose body runs the last of ``ancestors``, innermost
    first, in the same function (a ``def``, ``lambda`` or ``class`` ends the search)."""
    found = []
    for depth in range(len(ancestors) - 2, -1, -1):
        node = ancestors[depth]
        kind = type(node)
        if kind in _SCOPES:
            break
        if (kind is cst.For or kind is cst.While) and ancestors[depth + 1] is node.body:
            found.append(node)
    return found


def body_statements(loop: Union[cst.For, cst.While]) -> Sequence[cst.CSTNode]:
    body = loop.body
    return body.body if isinstance(body, cst.IndentedBlock) else [body]


def counting_iterator(context, iterable: cst.BaseExpression) -> str:
    """``"range"`` for the builtin ``range(...)`` (unless literal with five values or fewer),
    ``"enumerate"`` for the builtin ``enumerate(...)``, else ``""``."""
    func = iterable.func if isinstance(iterable, cst.Call) else None
    kind = next((k for k in ("range", "enumerate") if is_builtin(context, func, k)), "")
    if kind == "range" and all(isinstance(a.value, cst.Integer) and not a.keyword and not a.star
                               for a in iterable.args):
        return "" if len(range(*(int(a.value.value, 0) for a in iterable.args))) <= 5 else kind
    return kind


def is_step_loop(context, loop: Union[cst.For, cst.While]) -> bool:
    """A loop that runs many steps: ``while``, ``range`` (more than five values), ``enumerate``,
    a dataset."""
    return (isinstance(loop, cst.While) or counting_iterator(context, loop.iter) != ""
            or context.is_dataset(loop.iter))


def loop_counters(context, loop: Union[cst.For, cst.While]) -> Set[str]:
    """Names holding a new Python int on each iteration of ``loop``: the target of ``for``
    over ``range(...)`` or the index of ``enumerate(...)``, not rebound in the body."""
    if not isinstance(loop, cst.For):
        return set()
    kind, target = counting_iterator(context, loop.iter), loop.target
    if kind == "enumerate" and isinstance(target, cst.Tuple) and target.elements:
        target = target.elements[0].value
    elif kind != "range":
        return set()
    if not isinstance(target, cst.Name) or any(n == target.value for n, _ in bindings_in(body_statements(loop))):
        return set()
    return {target.value}


def number_per_iteration(context, expr: cst.BaseExpression, counters: Set[str], loop, depth: int = 3) -> bool:
    """A Python number made from ``loop``'s counters with arithmetic (``i``, ``0.9 ** i``,
    ``float(i) / 2``, or a name the loop binds only to such values); ``%`` is left out: it
    gives few values."""
    return _per_iteration(context, expr, counters, _LoopBindings(loop), depth)


class _LoopBindings:
    """The bindings of a loop's body by name, collected on the first question (once, not once
    per name the recursion meets)."""

    def __init__(self, loop):
        self.loop = loop
        self.by_name: Optional[Dict[str, List[cst.CSTNode]]] = None

    def of(self, name: str) -> List[cst.CSTNode]:
        if self.by_name is None:
            self.by_name = {}
            for bound, node in bindings_in(body_statements(self.loop)):
                self.by_name.setdefault(bound, []).append(node)
        return self.by_name.get(name, [])


def _per_iteration(context, expr, counters, bindings: _LoopBindings, depth) -> bool:
    if isinstance(expr, cst.Name):
        if expr.value in counters:
            return not context.is_tensor(expr)
        values = bindings.of(expr.value)
        return depth > 0 and bool(values) and all(
            isinstance(v, cst.Assign) and _per_iteration(context, v.value, counters, bindings, depth - 1)
            for v in values)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, ARITHMETIC):
        sides = (expr.left, expr.right)
        return all(_number(context, s, counters, bindings, depth) for s in sides) and any(
            _per_iteration(context, s, counters, bindings, depth) for s in sides)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return _per_iteration(context, expr.expression, counters, bindings, depth)
    if isinstance(expr, cst.Call) and len(expr.args) == 1 and any(
            is_builtin(context, expr.func, cast) for cast in ("int", "float")):
        return _per_iteration(context, expr.args[0].value, counters, bindings, depth)
    return False


def _number(context, expr, counters, bindings, depth) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float)) or _per_iteration(context, expr, counters, bindings, depth):
        return True
    return isinstance(expr, cst.Name) and isinstance(context.assigned_value(expr), (cst.Integer, cst.Float))


# -- how a function uses a number it is given per step ---------------------------------------
PYTHON_VALUE = "python value"
_SEQUENCES = (cst.List, cst.Tuple, cst.ListComp, cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)
_NOT_READ = {cst.Attribute: "attr", cst.Arg: "keyword", cst.Param: "name", cst.AugAssign: "target"}
_VALUE_MODULES = ("", "math", "nn", "linalg", "bitwise")  # of ops whose first argument is a tensor
_STATIC_FIRST = {"zeros", "ones", "fill", "eye", "range", "TensorArray", "random_normal", "random_uniform",
                 "truncated_normal", "placeholder"}  # a shape, a count or a dtype first
_BINARY = with_math("add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod", "pow",
                    "maximum", "minimum", "squared_difference")
_VALUE_KEYWORDS = {"x", "y", "value", "input", "input_tensor"}
# TF2 summary writers: the data and the step take tensors (``tf.summary.scalar(name, data, step)``)
_SUMMARIES = {"summary.scalar", "summary.histogram", "summary.image", "summary.text", "summary.audio",
              "summary.write"}
_SUMMARY_KEYWORDS = {"data", "tensor", "step"}


def number_use(context, name: cst.Name) -> Union[None, str, cst.Name]:
    """How the name being visited is read, were it a number: None where a tensor would serve as
    well (arithmetic, the value of an elementwise TensorFlow op, returned) or where it is not
    read; the target ``Name`` of ``local = <that arithmetic>``; else ``PYTHON_VALUE`` (an index,
    a test, ``range``, a shape, an f-string, a call of anything else, an attribute...)."""
    ancestors, expr = context.ancestors, name
    index = len(ancestors) - 2
    parent = ancestors[index]
    if not is_read(parent, name):
        return None
    while (type(parent) is cst.UnaryOperation and type(parent.operator) in (cst.Minus, cst.Plus)) or (
            type(parent) is cst.BinaryOperation and type(parent.operator) in ARITHMETIC
            and not _sequence(context, parent.right if parent.left is expr else parent.left)):
        expr, index = parent, index - 1
        parent = ancestors[index]
    if type(parent) is cst.Return or (type(parent) is cst.Element and type(ancestors[index - 1]) is cst.Tuple
                                      and type(ancestors[index - 2]) is cst.Return):  # ``return x, i``
        return None
    if type(parent) is cst.Arg and parent.value is expr and not parent.star:
        return None if _tensor_argument(context, ancestors[index - 1], parent) else PYTHON_VALUE
    if type(parent) is cst.Index and _indexes_tensor(context, ancestors, index):
        return None  # ``t[:, i]``: a tensor index slices a tensor as well
    if type(parent) in (cst.Assign, cst.AugAssign) and parent.value is expr:
        targets = [parent.target] if type(parent) is cst.AugAssign else [t.target for t in parent.targets]
        if len(targets) == 1 and type(targets[0]) is cst.Name:
            return targets[0]
    return PYTHON_VALUE


def is_read(parent: cst.CSTNode, name: cst.Name) -> bool:
    """``name`` (a child of ``parent``) is read as a variable: not an attribute, keyword or
    parameter name, nor an assignment target."""
    kind = type(parent)
    if kind is cst.AssignTarget:
        return False
    field = _NOT_READ.get(kind)
    return field is None or getattr(parent, field) is not name


def _sequence(context, expr) -> bool:
    value = context.assigned_value(expr) if type(expr) is cst.Name else expr
    return type(value) in _SEQUENCES


def _indexes_tensor(context, ancestors, index: int) -> bool:
    """``ancestors[index]``, an ``Index``, is the whole index of a subscript of a known tensor."""
    element, subscript = ancestors[index - 1], ancestors[index - 2]
    return (type(element) is cst.SubscriptElement and type(subscript) is cst.Subscript
            and subscript.value is not element and context.is_tensor(subscript.value))


def _tensor_argument(context, call: cst.Call, arg: cst.Arg) -> bool:
    """``arg`` is a value of a TensorFlow op that takes a tensor there as well as a number."""
    name = context.tf_call(call)
    if name is None or any(a.star for a in call.args):
        return False
    if name.path in _SUMMARIES:
        positional = [a for a in call.args if a.keyword is None]
        return arg.keyword.value in _SUMMARY_KEYWORDS if arg.keyword else positional.index(arg) in (1, 2)
    if name.path in NOT_TENSOR or name.path.startswith(NOT_TENSOR_PREFIXES):
        return False
    module, _, leaf = name.path.rpartition(".")
    if module not in _VALUE_MODULES or leaf in _STATIC_FIRST:
        return False
    if arg.keyword is not None:
        return arg.keyword.value in _VALUE_KEYWORDS
    position = [a for a in call.args if a.keyword is None].index(arg)
    return position == 0 or (position == 1 and name.path in _BINARY)
