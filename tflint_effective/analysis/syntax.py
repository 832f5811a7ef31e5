"""Questions about libcst syntax alone: arguments of a call, names a statement binds, literals.

Nothing here resolves a name or knows TensorFlow; ``names`` and ``semantics`` build on it.
"""
from __future__ import annotations

import collections.abc
import dataclasses
import typing
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

import libcst as cst

JUMPS = (cst.Return, cst.Raise, cst.Continue, cst.Break)
# Methods of Python's lists, dicts, sets and deques that change the container in place.
MUTATORS = frozenset({"append", "extend", "insert", "update", "add", "pop", "remove", "clear", "discard",
                      "setdefault", "popitem", "appendleft", "extendleft", "popleft"})
# Whitespace, comments, punctuation and literals: no code inside.
_TRIVIA = (cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.EmptyLine, cst.Newline, cst.Comment,
           cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.LeftParen, cst.RightParen,
           cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
           cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp,
           cst.SimpleString, cst.Integer, cst.Float)
_NEVER_CODE = (str, int, float, bool, type(None), cst.MaybeSentinel)
_FIELDS: Dict[type, Tuple[str, ...]] = {}
_HOLDS_CODE: Dict[type, bool] = {}


def code_children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """The child nodes that hold code (not whitespace, punctuation or literals), cheaply:
    libcst's ``children`` runs a visitor per node, several times slower."""
    kind = type(node)
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = fields_for_code(kind, [f.name for f in dataclasses.fields(kind)], _TRIVIA)
    children = []
    holds_code = _HOLDS_CODE
    for name in names:
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:
                code = holds_code.get(type(item))
                if code or (code is None and _holds_code(item)):
                    children.append(item)
        else:
            code = holds_code.get(kind)
            if code or (code is None and _holds_code(value)):
                children.append(value)
    return children


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node of code below it, nested functions and classes included."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(code_children(current))


def _holds_code(value) -> bool:
    code = _HOLDS_CODE[type(value)] = inherits(type(value), (cst.CSTNode,)) and not inherits(type(value), _TRIVIA)
    return code


def fields_for_code(kind: type, names: Iterable[str], trivia: tuple) -> Tuple[str, ...]:
    """``names`` (fields of the node class ``kind``) without those whose annotation admits only
    ``trivia``, strings or sentinels (``lpar``, ``whitespace_*``, a ``Name``'s ``value``)."""
    try:
        hints = typing.get_type_hints(kind)
    except Exception:  # an annotation that does not resolve: read every field
        hints = {}
    return tuple(name for name in names if name not in hints or not _admits_only(hints[name], trivia))


def _admits_only(annotation, trivia: tuple) -> bool:
    """Every value ``annotation`` admits is ``trivia`` or no node at all (unsure: False)."""
    if typing.get_origin(annotation) is typing.Literal:
        return True
    arguments = typing.get_args(annotation)
    if arguments:  # Union, Optional, Sequence
        return typing.get_origin(annotation) in (typing.Union, collections.abc.Sequence) and all(
            _admits_only(a, trivia) for a in arguments)
    return inherits(annotation, trivia) or annotation in _NEVER_CODE


def inherits(kind, bases: tuple) -> bool:
    """``issubclass`` by the method resolution order: libcst's node bases are ABCs, on which a
    failed ``issubclass`` walks every subclass (tens of milliseconds at start-up)."""
    return isinstance(kind, type) and any(base in kind.__mro__ for base in bases)


def call_arg(call: cst.Call, position: Optional[int], keyword: str) -> Optional[cst.Arg]:
    """The argument bound to a parameter, by keyword or by plain position."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg
    if position is not None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) > position:
            return positional[position]
    return None


def bound_parameter(params: cst.Parameters, where) -> Optional[str]:
    """The parameter a call's argument binds: ``where`` is its position (no ``*args`` before it)
    or its keyword; None when it goes to ``*args`` / ``**kwargs`` or nowhere."""
    if isinstance(where, str):
        return where if any(p.name.value == where for p in (*params.params, *params.kwonly_params)) else None
    positional = (*params.posonly_params, *params.params)
    return positional[where].name.value if where < len(positional) else None


def parameter(function, name: str) -> Optional[cst.Param]:
    """The parameter ``name`` of a ``def`` or ``lambda`` (not ``*args`` / ``**kwargs``), if any."""
    params = function.params
    return next((p for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                 if p.name.value == name), None)


def has_star_args(call: cst.Call) -> bool:
    """``f(*args)`` or ``f(**kwargs)``: which parameters get bound is unknown."""
    return any(arg.star for arg in call.args)


# The helpers below compare exact types (``type(x) is``): these node classes are concrete, and an
# ``isinstance`` of a libcst class goes through ``ABCMeta``.
_JUMP_TYPES = frozenset(JUMPS)
_SEQUENCES = frozenset({cst.Tuple, cst.List})
_NESTED = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})  # their bodies run apart


def dotted(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a chain of names and attributes, else None."""
    kind = type(node)
    if kind is cst.Name:
        return node.value
    if kind is cst.Attribute:
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


def leaf_name(node: cst.BaseExpression) -> Optional[str]:
    """The last name of a name or attribute (``b`` of ``a.b``), else None."""
    kind = type(node)
    return node.value if kind is cst.Name else node.attr.value if kind is cst.Attribute else None


def is_none(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Name and expr.value == "None"


def is_false(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Name and expr.value == "False"


def ends_with_jump(block: cst.BaseSuite) -> bool:
    body = block.body
    last = body[-1] if body else None
    if type(last) is cst.SimpleStatementLine:
        last = last.body[-1] if last.body else None
    return type(last) in _JUMP_TYPES


def target_names(target: cst.BaseExpression) -> Iterator[str]:
    kind = type(target)
    if kind is cst.Name:
        yield target.value
    elif kind in _SEQUENCES:
        for element in target.elements:
            yield from target_names(element.value)
    elif kind is cst.StarredElement:
        yield from target_names(target.value)


def _pair(target, value) -> bool:
    """``a, b = x, y``: sequences of one length, neither with a starred element."""
    return (type(target) in _SEQUENCES and type(value) in _SEQUENCES and len(target.elements) == len(value.elements)
            and not any(type(e) is cst.StarredElement for e in (*target.elements, *value.elements)))


def assigned_pairs(target, value) -> Iterator[Tuple[str, Optional[cst.BaseExpression]]]:
    """(name, value bound to it) for an assignment target; None when unknown."""
    if type(target) is cst.Name:
        yield target.value, value
    elif _pair(target, value):
        for t, v in zip(target.elements, value.elements):
            yield from assigned_pairs(t.value, v.value)
    else:
        for name in target_names(target):
            yield name, None


def names_in(nodes: Iterable[cst.CSTNode]) -> Set[str]:
    """Variable names read in ``nodes`` (not attribute or keyword names)."""
    found: Set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        kind = type(node)  # Name, Attribute and Arg are concrete classes
        if kind is cst.Name:
            found.add(node.value)
        elif kind is cst.Attribute or kind is cst.Arg:
            stack.append(node.value)
        else:
            stack.extend(code_children(node))
    return found


def parallel_values(target, value) -> Optional[List[cst.BaseExpression]]:
    """The values of ``a, b = 1, tf.zeros(3)`` element by element; None when they do not pair, or
    when a value reads a name the statement binds (``a, b = b, a`` reads the values from before it)."""
    if not _pair(target, value):
        return None
    if set(target_names(target)) & names_in(element.value for element in value.elements):
        return None
    return [element.value for element in value.elements]


def bindings_in(statements: Iterable[cst.CSTNode]) -> Iterator[Tuple[str, cst.CSTNode]]:
    """Every (name, binding node) in a list of statements, not entering nested scopes.

    The binding node is an Assign, AnnAssign or AugAssign (its value is known),
    or anything else (a loop target, an import, ``del``...: unknown value).
    """
    for stmt in statements:
        kind = type(stmt)
        if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
            for small in stmt.body:
                yield from _small_bindings(small)
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            yield stmt.name.value, stmt
            continue
        if kind is cst.For:
            yield from ((name, stmt) for name in target_names(stmt.target))
        elif kind is cst.With:
            yield from ((name, stmt) for item in stmt.items if item.asname
                        for name in target_names(item.asname.name))
        for handler in getattr(stmt, "handlers", ()):
            if handler.name is not None:
                yield from ((name, handler) for name in target_names(handler.name.name))
            yield from bindings_in(handler.body.body)
        for case in getattr(stmt, "cases", ()):
            yield from bindings_in(case.body.body)
        body = getattr(stmt, "body", None)
        if type(body) is cst.IndentedBlock:
            yield from bindings_in(body.body)
        elif type(body) is cst.SimpleStatementSuite:
            yield from bindings_in([body])
        orelse = getattr(stmt, "orelse", None)
        if orelse is not None:
            yield from bindings_in([orelse] if type(orelse) is cst.If else orelse.body.body)
        final = getattr(stmt, "finalbody", None)
        if final is not None:
            yield from bindings_in(final.body.body)


def assigns_outer_name(function: cst.FunctionDef) -> bool:
    """``function`` assigns a name it declares ``global`` or ``nonlocal`` (``global _op``, then
    ``_op = ...``: it may keep what it built once); ``global prediction`` only read is not."""
    declared, stack = set(), [function.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Global or type(node) is cst.Nonlocal:
            declared.update(item.name.value for item in node.names)
        stack.extend(child for child in code_children(node) if type(child) not in _NESTED)
    body = function.body.body if type(function.body) is cst.IndentedBlock else [function.body]
    return bool(declared) and any(name in declared for name, _ in bindings_in(body))


def _small_bindings(small: cst.BaseSmallStatement) -> Iterator[Tuple[str, cst.CSTNode]]:
    kind = type(small)
    if kind is cst.Assign:
        for target in small.targets:
            yield from ((name, small) for name in target_names(target.target))
    elif kind is cst.AnnAssign or kind is cst.AugAssign:
        yield from ((name, small) for name in target_names(small.target))
    elif (kind is cst.Import or kind is cst.ImportFrom) and type(small.names) is not cst.ImportStar:
        for alias in small.names:
            name = alias.asname.name if alias.asname else alias.name
            yield (dotted(name) or "").split(".")[0], small
    elif kind is cst.Del:
        yield from ((name, small) for name in target_names(small.target))
