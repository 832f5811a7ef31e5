"""What the values a session run fetches may be built by (part of the semantic model, for TFE602).

``sess.run(G_sample, {is_training: False})`` with ``G_sample = generator(z, is_training)`` runs
the ops ``generator`` builds, and not the discriminator's.  From each fetched expression, every
name is followed to the values the module assigns to it in the scope it is read in (or an
enclosing one), every attribute to the values assigned to any attribute of that name, and every
function or class named to its definition, whose body is followed in turn.  A fetched name or
attribute the module never assigns (a parameter, an attribute set elsewhere) may be anything:
then nothing is known.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, NamedTuple, Optional, Set, Tuple

import libcst as cst

from .syntax import code_children

DEFS = (cst.FunctionDef, cst.ClassDef)
Scope = Optional[cst.CSTNode]  # the function or class whose body a node is in; None: the module's


class _Index:
    """One walk of the module: the values assigned to each name per scope and to each attribute
    name, and the functions and classes by name with the scope around each."""

    def __init__(self, module: cst.Module):
        self.values: Dict[Tuple[int, str], List[Tuple[cst.CSTNode, Scope]]] = {}
        self.attributes: Dict[str, List[Tuple[cst.CSTNode, Scope]]] = {}
        self.defs: Dict[str, List[Tuple[cst.CSTNode, Scope]]] = {}  # name -> (definition, scope around it)
        self.outer: Dict[int, Scope] = {}  # id of a function or class -> the scope around it
        todo: List[Tuple[cst.CSTNode, Scope]] = [(module, None)]
        while todo:
            node, scope = todo.pop()
            kind = type(node)
            if kind is cst.Assign:
                for target in node.targets:
                    self._bind(target.target, node.value, scope)
            elif kind in (cst.AnnAssign, cst.AugAssign) and node.value is not None:
                self._bind(node.target, node.value, scope)
            elif kind is cst.For:
                self._bind(node.target, node.iter, scope)
            elif kind is cst.WithItem and node.asname is not None:
                self._bind(node.asname.name, node.item, scope)
            if kind in DEFS:
                self.defs.setdefault(node.name.value, []).append((node, scope))
                self.outer[id(node)] = scope
                scope = node
            todo.extend((child, scope) for child in code_children(node))

    def _bind(self, target: cst.CSTNode, value: cst.CSTNode, scope: Scope) -> None:
        kind = type(target)
        if kind is cst.Name:
            self.values.setdefault((id(scope), target.value), []).append((value, scope))
        elif kind is cst.Attribute:
            self.attributes.setdefault(target.attr.value, []).append((value, scope))
        elif kind in (cst.Tuple, cst.List):  # each element may hold any part of the value
            for element in target.elements:
                inner = element.value
                self._bind(inner.value if type(inner) is cst.StarredElement else inner, value, scope)

    def lookup(self, name: str, scope: Scope) -> Optional[List[Tuple[cst.CSTNode, Scope]]]:
        """The values assigned to ``name`` in the scope that binds it, seen from ``scope``."""
        while True:
            found = self.values.get((id(scope), name))
            if found is not None or scope is None:
                return found
            scope = self.outer[id(scope)]


class Reach(NamedTuple):
    """What the fetched values may depend on."""
    defs: Set[str]  # the names of the functions and classes that may build them
    nodes: Set[int]  # the ids of the expressions that may build them

    def includes(self, node: cst.CSTNode, builders: Set[str]) -> bool:
        """Whether ``node``, built in the functions and classes named ``builders``, may be fetched."""
        return id(node) in self.nodes or not builders.isdisjoint(self.defs)


def reached(module: cst.Module, fetches: Iterable[Tuple[cst.BaseExpression, Scope]],
            strict: bool = True) -> Optional[Reach]:
    """What the fetched values (each with the function or class it is read in) may depend on;
    None when a fetched name or attribute is one the module never assigns, or a fetch is another
    expression (unless not ``strict``: then such a name is left out, as one nothing of the module's
    may build, and such an expression is followed into what it reads)."""
    index = _Index(module)
    found = Reach(set(), set())
    todo: List[Tuple[cst.CSTNode, Scope]] = []
    for fetch, scope in fetches:
        if not _follow(index, fetch, scope, todo):
            if strict:
                return None
            if type(fetch) not in (cst.Name, cst.Attribute):
                todo.append((fetch, scope))  # an expression: what it reads
    while todo:
        node, scope = todo.pop()
        if id(node) in found.nodes:
            continue
        found.nodes.add(id(node))
        kind = type(node)
        name = node.value if kind is cst.Name else node.attr.value if kind is cst.Attribute else None
        if name is not None and name in index.defs and name not in found.defs:
            found.defs.add(name)
            todo.extend(index.defs[name])  # what it builds: every name its body reads
        if kind is cst.Name:
            todo.extend(index.lookup(node.value, scope) or ())
        elif kind is cst.Attribute:
            todo.extend(index.attributes.get(node.attr.value, ()))
        elif kind in DEFS:
            scope = node
        todo.extend((child, scope) for child in code_children(node))
    return found


def _follow(index: _Index, fetch: cst.BaseExpression, scope: Scope, todo: List[Tuple[cst.CSTNode, Scope]]) -> bool:
    """Queue ``fetch``; False when it is (or holds, in a list, tuple or dict) a name or attribute
    the module never assigns nor defines, or another expression."""
    kind = type(fetch)
    if kind in (cst.List, cst.Tuple, cst.Set):
        return all([_follow(index, e.value, scope, todo) for e in fetch.elements])
    if kind is cst.Dict:
        return all([isinstance(e, cst.DictElement) and _follow(index, e.value, scope, todo) for e in fetch.elements])
    if kind is cst.Subscript:  # ``outputs["probs"]``, ``ops[0]``
        return _follow(index, fetch.value, scope, todo)
    if kind is cst.Name:
        name = fetch.value
        known = index.lookup(name, scope) is not None or name in index.defs
    elif kind is cst.Attribute:
        known = fetch.attr.value in index.attributes or fetch.attr.value in index.defs
    else:
        known = False  # a call, an operation: what it builds is not followed here
    if known:
        todo.append((fetch, scope))
    return known
