"""Resolve names to qualified TensorFlow names, cheaply.

A pre-pass walks only the *statements* of a module (expressions are not
entered) and records, per scope, every binding of every name: an import, an
assignment (kept with its value, so ``nn = tf.nn`` is an alias), ``None`` or
something else.  A name resolves to a qualified name only when all of its
bindings in the scope that owns it agree; anything else is unknown, and unknown
means "not TensorFlow" (the linter stays silent).

This is several times cheaper than libcst's ScopeProvider and
QualifiedNameProvider, which the engine cannot afford on every file.

Known blind spots: names bound by ``from tensorflow import *``, by walrus
expressions, or by ``match`` captures are not tracked (star imports make every
unbound name unknown, so nothing is flagged through them).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Tuple, Union

import libcst as cst

from .syntax import dotted, parallel_values
from .tf_api import SHIMS, TF_IMPORTED, TF_IMPORTERS


class _Other:
    """A binding whose value we do not know (parameter, loop target, ...)."""

    def __repr__(self):
        return "OTHER"


OTHER = _Other()
_UNKNOWN = object()  # not yet in a cache whose answers may be None


@dataclass(frozen=True)
class Import:
    qualname: str


class Assigned:
    """``name = value`` with a plain-name target (also one element of ``a, b = 1, 2``), and the scope
    ``value`` is read in.

    ``position`` orders the assignments of a scope that run one after the other, each once: the
    indices of its statement in the scope's body and in the ``with`` blocks around it, then its
    index in its line (None inside ``if``, loops, ``try``..., or under ``global``).  The scope is
    held weakly: it (or its module, under ``global``) holds this binding, and without cycles a
    file's tree is freed as soon as its analysis is.
    """

    __slots__ = ("value", "position", "_scope", "__weakref__")

    def __init__(self, value: cst.BaseExpression, scope: "Scope", position: Optional[Tuple[int, ...]] = None):
        self.value = value
        self.position = position
        self._scope = weakref.ref(scope)

    @property
    def scope(self) -> "Scope":
        return self._scope()


class Unpacked:
    """``a, b = try_import_tf()``: element ``index`` of what ``call`` returns (only for calls of a
    function named like one of ``TF_IMPORTERS``; any other unpacking binds ``OTHER``)."""

    __slots__ = ("call", "index", "_scope", "__weakref__")

    def __init__(self, call: cst.Call, index: int, scope: "Scope"):
        self.call, self.index = call, index
        self._scope = weakref.ref(scope)

    @property
    def scope(self) -> "Scope":
        return self._scope()


@dataclass(frozen=True)
class NoneValue:
    """``name = None``: irrelevant when the name is used as ``name.attr``."""


Binding = Union[Import, Assigned, Unpacked, NoneValue, _Other]
_IMPORTER_NAMES = {qualname.rpartition(".")[2] for qualname in TF_IMPORTERS}

FUNCTION_LIKE = (cst.FunctionDef, cst.Lambda)
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
NESTED_SCOPES = (*FUNCTION_LIKE, cst.ClassDef, *COMPREHENSIONS)  # what opens a scope inside another


@dataclass(eq=False)
class Scope:
    node: cst.CSTNode
    parent: Optional["Scope"]
    bindings: Dict[str, List[Binding]] = field(default_factory=dict)
    global_names: set = field(default_factory=set)
    star_import: bool = False
    is_class: bool = field(init=False, repr=False)  # asked for every scope of every name look-up

    def __post_init__(self) -> None:
        self.is_class = type(self.node) is cst.ClassDef

    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def bind(self, name: str, binding: Binding) -> None:
        owner = self.module() if name in self.global_names else self
        owner.bindings.setdefault(name, []).append(binding)

    def value_once(self, name: str) -> Optional[cst.BaseExpression]:
        """The value ``name`` is assigned when this scope binds it exactly once, by an assignment."""
        bindings = self.bindings.get(name, ())
        return getattr(bindings[0], "value", None) if len(bindings) == 1 else None


def _module_name(node: cst.ImportFrom) -> Optional[str]:
    if node.relative or node.module is None:
        return None
    return dotted(node.module)


class ScopeTable:
    """Scopes of one module, built by walking its statements once."""

    def __init__(self, module: cst.Module, shims: Mapping[str, str] = SHIMS):
        self.shims = shims  # qualified names that stand for another (the tensorflow module)
        self.scopes: Dict[cst.CSTNode, Scope] = {}
        self.root = self._new(module, None)
        self._position: Optional[Tuple[int, ...]] = None  # of the small statement being walked (``Assigned``)
        self._walk(module.body, self.root, ())

    def _new(self, node, parent) -> Scope:
        scope = Scope(node, parent)
        self.scopes[node] = scope
        return scope

    def scope_for(self, node: cst.CSTNode, parent: Scope) -> Scope:
        """The scope a def/class/lambda/comprehension node opens."""
        scope = self.scopes.get(node)
        if scope is None:  # lambdas and comprehensions are made on demand
            scope = self._new(node, parent)
            if isinstance(node, cst.Lambda):
                self._bind_params(node.params, scope)
            else:
                comp = node.for_in
                while comp is not None:
                    self._bind_target(comp.target, scope, None)
                    comp = comp.inner_for_in
        return scope

    # -- statement walk ---------------------------------------------------
    def _walk(self, body, scope: Scope, path: Optional[Tuple[int, ...]] = None) -> None:
        """``path``: the position of ``body`` when its statements run one after the other, each once."""
        for index, stmt in enumerate(body):
            if type(stmt) is cst.SimpleStatementLine:
                for small_index, small in enumerate(stmt.body):
                    self._position = None if path is None else (*path, index, small_index)
                    self._small(small, scope)
            else:
                self._compound(stmt, scope, None if path is None else (*path, index))

    def _block(self, block, scope: Scope, path: Optional[Tuple[int, ...]] = None) -> None:
        if block is None:
            return
        if type(block) is cst.SimpleStatementSuite:
            self._position = None
            for small in block.body:
                self._small(small, scope)
        else:
            self._walk(block.body, scope, path)

    # The statement walk compares exact types (``type(x) is``): the node classes are concrete, and
    # an ``isinstance`` of a libcst class goes through ``ABCMeta``.
    def _small(self, node, scope: Scope) -> None:
        kind = type(node)
        if kind is cst.Import:
            for alias in node.names:
                name = dotted(alias.name)
                if alias.asname is not None:
                    scope.bind(alias.asname.name.value, Import(self.shims.get(name, name)))
                else:
                    top = name.split(".")[0]
                    scope.bind(top, Import(top))
        elif kind is cst.ImportFrom:
            module = _module_name(node)
            if type(node.names) is cst.ImportStar:
                scope.star_import = True
                return
            for alias in node.names:
                local = alias.asname.name.value if alias.asname else alias.name.value
                if module is None:
                    scope.bind(local, OTHER)
                else:
                    qual = f"{module}.{dotted(alias.name)}"
                    scope.bind(local, Import(self.shims.get(qual, qual)))
        elif kind is cst.Assign:
            for target in node.targets:  # ``a = b = value`` binds the one value to both
                self._bind_target(target.target, scope, node.value)
        elif kind is cst.AnnAssign:
            self._bind_target(node.target, scope, node.value)
        elif kind is cst.AugAssign:  # ``x -= m`` holds ``x - m``: its ``x`` is read before the binding
            operator = getattr(cst, type(node.operator).__name__[:-len("Assign")])()  # SubtractAssign: Subtract
            value = cst.BinaryOperation(node.target, operator, node.value) if type(node.target) is cst.Name else None
            self._bind_target(node.target, scope, value)
        elif kind is cst.Global:
            scope.global_names.update(n.name.value for n in node.names)
        elif kind is cst.Nonlocal and scope.parent is not None:
            for n in node.names:
                scope.parent.bind(n.name.value, OTHER)

    def _compound(self, node, scope: Scope, path: Optional[Tuple[int, ...]]) -> None:
        kind = type(node)
        self._position = None
        if kind is cst.FunctionDef:
            scope.bind(node.name.value, OTHER)
            inner = self._new(node, scope)
            self._bind_params(node.params, inner)
            self._block(node.body, inner, ())
            return
        if kind is cst.ClassDef:
            scope.bind(node.name.value, OTHER)
            self._block(node.body, self._new(node, scope), ())
            return
        if kind is cst.With:  # its body runs once, after the items
            for item in node.items:
                if item.asname is not None:
                    self._bind_target(item.asname.name, scope, None)
            self._block(node.body, scope, path)
            return
        if kind is cst.For:
            self._bind_target(node.target, scope, None)
        elif kind is cst.Try or kind is cst.TryStar:
            for handler in node.handlers:
                if handler.name is not None:
                    self._bind_target(handler.name.name, scope, None)
                self._block(handler.body, scope)
        elif kind is cst.Match:
            for case in node.cases:
                self._block(case.body, scope)
        self._block(getattr(node, "body", None), scope)
        orelse = getattr(node, "orelse", None)
        while orelse is not None:  # if / elif / else chains, loop and try else
            self._block(orelse.body, scope)
            orelse = getattr(orelse, "orelse", None)
        final = getattr(node, "finalbody", None)
        if final is not None:
            self._block(final.body, scope)

    def _bind_params(self, params: cst.Parameters, scope: Scope) -> None:
        for group in (params.posonly_params, params.params, params.kwonly_params):
            for param in group:
                scope.bind(param.name.value, OTHER)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.bind(star.name.value, OTHER)

    def _bind_target(self, target, scope: Scope, value) -> None:
        kind = type(target)
        if kind is cst.Name:
            if value is None:
                scope.bind(target.value, OTHER)
            elif type(value) is cst.Name and value.value == "None":
                scope.bind(target.value, NoneValue())
            else:
                position = None if target.value in scope.global_names else self._position
                scope.bind(target.value, Assigned(value, scope, position))
        elif kind is cst.Tuple or kind is cst.List:
            importer = isinstance(value, cst.Call) and (dotted(value.func) or "").rpartition(
                ".")[2] in _IMPORTER_NAMES and not any(isinstance(e, cst.StarredElement) for e in target.elements)
            values = parallel_values(target, value)
            for index, element in enumerate(target.elements):
                if importer and isinstance(element.value, cst.Name):
                    scope.bind(element.value.value, Unpacked(value, index, scope))
                else:
                    self._bind_target(element.value, scope, values[index] if values else None)
        elif kind is cst.StarredElement:
            self._bind_target(target.value, scope, None)
        # attributes and subscripts bind no name


class Resolver:
    """Answers "what does this expression name?" within a scope."""

    def __init__(self, table: ScopeTable):
        self.table = table
        self._busy: set = set()
        # id(binding) -> what it aliases: each binding is resolved once, so chains of rebindings
        # (``x = x.y`` many times over) cost one pass, not one per path through them
        self._aliases: Dict[int, Optional[str]] = {}
        # The pre-pass has bound every name before any question, so answers never change:
        # (name, scope) -> owner, (name, scope) -> qualname, and (id(node), id(scope)) -> (node,
        # qualname) for attribute chains, the node kept so that its id is not reused.  (A binding
        # resolved while it is being resolved gives None, and so does every name it reaches, then
        # and later: caching them is safe too.)
        self._owners: Dict[Tuple[str, Scope], Optional[Scope]] = {}
        self._qualnames: Dict[Tuple[int, int], Tuple[cst.BaseExpression, Optional[str]]] = {}
        self._names: Dict[Tuple[str, Scope], Optional[str]] = {}  # (name, scope) -> qualname

    def owner(self, name: str, scope: Scope) -> Optional[Scope]:
        """The scope whose binding of ``name`` is seen from ``scope``."""
        key = (name, scope)
        found = self._owners.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            found = self._owners[key] = self._owner(name, scope)
        return found

    def _owner(self, name: str, scope: Scope) -> Optional[Scope]:
        innermost = True
        while scope is not None:
            if name in scope.global_names:
                scope = scope.module()
            if not (scope.is_class and not innermost) and name in scope.bindings:
                return scope
            innermost = False
            scope = scope.parent
        return None

    def bindings(self, name: str, scope: Scope) -> Optional[List[Binding]]:
        owner = self.owner(name, scope)
        return None if owner is None else owner.bindings[name]

    def qualname(self, node: cst.BaseExpression, scope: Scope) -> Optional[str]:
        """The qualified name of a name or attribute chain, if certain."""
        if type(node) is cst.Name:
            return self._name_qualname(node.value, scope)
        key = (id(node), id(scope))
        known = self._qualnames.get(key)
        if known is None:
            known = self._qualnames[key] = (node, self._qualname(node, scope))
        return known[1]

    def _qualname(self, node: cst.BaseExpression, scope: Scope) -> Optional[str]:
        kind = type(node)
        if kind is cst.Attribute:
            base = self._qualname(node.value, scope)
            return None if base is None else f"{base}.{node.attr.value}"
        if kind is not cst.Name:
            return None
        return self._name_qualname(node.value, scope)

    def _name_qualname(self, name: str, scope: Scope) -> Optional[str]:
        # a name's answer depends on its spelling and scope only: one resolution per name and
        # scope, not per occurrence
        key = (name, scope)
        found = self._names.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            found = self._names[key] = self._resolve_name(name, scope)
        return found

    def _resolve_name(self, name: str, scope: Scope) -> Optional[str]:
        bindings = self.bindings(name, scope)
        if bindings is None:
            return None
        found = set()
        for binding in bindings:
            if isinstance(binding, NoneValue):
                continue
            if isinstance(binding, Import):
                found.add(binding.qualname)
            elif isinstance(binding, (Assigned, Unpacked)):
                found.add(self._alias(binding))
            else:
                return None
        if len(found) != 1:
            return None
        return found.pop()

    def _alias(self, binding: Union[Assigned, Unpacked]) -> Optional[str]:
        key = id(binding)
        if key in self._aliases:
            return self._aliases[key]
        if key in self._busy:  # e.g. ``tf = tf.compat.v1`` refers to itself
            return None
        self._busy.add(key)
        try:
            found = self._aliases[key] = self._resolve_alias(binding)
            return found
        finally:
            self._busy.discard(key)

    def _resolve_alias(self, binding: Union[Assigned, Unpacked]) -> Optional[str]:
        if isinstance(binding, Unpacked):
            imported = self.qualname(binding.call.func, binding.scope) in TF_IMPORTERS
            return TF_IMPORTED[binding.index] if imported and binding.index < len(TF_IMPORTED) else None
        if isinstance(binding.value, cst.Call) and self.qualname(binding.value.func, binding.scope) in TF_IMPORTERS:
            return TF_IMPORTED[0]  # ``tf = try_import_tf()``
        return self.qualname(binding.value, binding.scope)
