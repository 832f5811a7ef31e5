"""Who assigns what in one module, by walks of its statements (part of the semantic model):
the ``self.attr = ...`` of a class, how many statements assign each attribute name, and which
names and attributes hold the instances of each class."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import libcst as cst

from .syntax import code_children


def self_assignments(cls: cst.ClassDef) -> Dict[str, List[tuple]]:
    """attr -> [(value or None when not a plain assignment, method)] for every ``self.attr = ...``
    in the class's methods; statements only (no expression can assign an attribute)."""
    found: Dict[str, List[tuple]] = {}
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for method in (stmt for stmt in body if isinstance(stmt, cst.FunctionDef)):
        params = [*method.params.posonly_params, *method.params.params]
        if not params:
            continue
        self_name = params[0].name.value
        for small in _small_statements(method.body):
            if isinstance(small, cst.Assign):
                targets, plain = [t.target for t in small.targets], True
            elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                targets, plain = [small.target], isinstance(small, cst.AnnAssign) and small.value is not None
            else:
                continue
            for target in targets:
                elements = list(target.elements) if isinstance(target, (cst.Tuple, cst.List)) else []
                values = _unpacked(elements, small.value) if plain else [None] * len(elements)
                for element, value in [(target, small.value if plain else None),
                                       *zip((e.value for e in elements), values)]:
                    if (isinstance(element, cst.Attribute) and isinstance(element.value, cst.Name)
                            and element.value.value == self_name):
                        found.setdefault(element.attr.value, []).append((value, method))
    return found


def _unpacked(elements, value) -> list:
    """What ``self.a, self.b = x, y`` gives each element of its target; None for each when unknown."""
    if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(elements) and not any(
            isinstance(e, cst.StarredElement) for e in (*elements, *value.elements)):
        return [e.value for e in value.elements]
    return [None] * len(elements)


def attribute_targets(module: cst.Module) -> Dict[str, int]:
    """attr -> how many statements of the module (functions and classes included) assign an
    attribute of that name (``x.attr = ...``, ``x.attr += ...``, ``for x.attr in``, ``with ... as x.attr``)."""
    counts: Dict[str, int] = {}
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        targets: List[cst.BaseExpression] = []
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in node.body:
                if isinstance(small, cst.Assign):
                    targets += [t.target for t in small.targets]
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    targets.append(small.target)
        elif isinstance(node, (cst.Module, cst.IndentedBlock)):
            stack.extend(node.body)
        elif isinstance(node, cst.BaseCompoundStatement):
            if isinstance(node, (cst.For, cst.With)):
                targets += [node.target] if isinstance(node, cst.For) else [
                    item.asname.name for item in node.items if item.asname is not None]
            stack.extend(_blocks(node) if not isinstance(node, (cst.FunctionDef, cst.ClassDef)) else [node.body])
        while targets:
            target = targets.pop()
            if isinstance(target, (cst.Tuple, cst.List)):
                targets += [e.value for e in target.elements]
            elif isinstance(target, cst.StarredElement):
                targets.append(target.value)
            elif isinstance(target, cst.Attribute):
                counts[target.attr.value] = counts.get(target.attr.value, 0) + 1
    return counts


def _small_statements(block):
    """The simple statements of a block and of the blocks nested in it (not nested functions)."""
    stack = [block]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            yield from node.body
        elif isinstance(node, cst.BaseSuite):
            stack.extend(node.body if isinstance(node, cst.IndentedBlock) else [node])
        elif isinstance(node, cst.BaseCompoundStatement) and not isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            stack.extend(_blocks(node))


def _blocks(statement):
    for name in ("body", "orelse", "finalbody"):
        part = getattr(statement, name, None)
        if isinstance(part, (cst.BaseSuite, cst.If)):
            yield part  # an ``elif`` is an If
        elif part is not None:
            yield part.body  # else, finally
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    for case in getattr(statement, "cases", ()):
        yield case.body


@dataclass
class InstanceUses:
    """How a module uses names and attributes, to tell which calls are calls of an instance."""
    names: Counter = field(default_factory=Counter)  # Name nodes by name (targets and callees included)
    attrs: Counter = field(default_factory=Counter)  # Attribute nodes by attribute name
    # ("name", g) / ("attr", g) -> how often ``g.x`` / ``self.g.x`` reads an attribute of it
    dotted: Counter = field(default_factory=Counter)
    # callee name (``g(...)``) or attribute (``self.g(...)``) -> the calls
    calls: Dict[Tuple[str, str], List[cst.Call]] = field(default_factory=dict)
    # class name -> the holders of its instances: ("name", g) for ``g = C(...)``,
    # ("attr", g) for ``x.g = C(...)``, one entry per such statement
    holders: Dict[str, List[Tuple[str, str]]] = field(default_factory=dict)


def instance_uses(module: cst.Module) -> InstanceUses:
    """One walk of the module for ``InstanceUses``."""
    uses = InstanceUses()
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Name:
            uses.names[node.value] += 1
        elif kind is cst.Attribute:
            uses.attrs[node.attr.value] += 1
            owner = node.value
            if type(owner) is cst.Name:
                uses.dotted["name", owner.value] += 1
            elif type(owner) is cst.Attribute:
                uses.dotted["attr", owner.attr.value] += 1
            stack.append(owner)  # the attribute's own Name is not a use of that name
            continue
        elif kind is cst.Call and type(node.func) in (cst.Name, cst.Attribute):
            func = node.func
            key = ("name", func.value) if type(func) is cst.Name else ("attr", func.attr.value)
            uses.calls.setdefault(key, []).append(node)
        elif kind is cst.Assign and len(node.targets) == 1 and type(node.value) is cst.Call:
            target, func = node.targets[0].target, node.value.func
            holder = (("name", target.value) if type(target) is cst.Name else
                      ("attr", target.attr.value) if type(target) is cst.Attribute else None)
            if holder is not None and type(func) is cst.Name:
                uses.holders.setdefault(func.value, []).append(holder)
        stack.extend(code_children(node))
    return uses
