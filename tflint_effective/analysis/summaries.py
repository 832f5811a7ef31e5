"""Facts across function boundaries within one module (part of the semantic model).

- A parameter of a private (``_name``) or nested function is a tensor when every call of
  the function in the module passes one (and the function is used in no other way: passed
  as a value, it may be called from anywhere); a public function's parameter only when its
  docstring documents it as a ``Tensor`` (``docstrings.py``) and no call in sight passes it a
  Python number (a literal, a loop counter: ``counters.py``).
- A call of a module function or of a method through ``self`` has the kind every one of
  its ``return`` values has.
- ``self.attr`` read in a method has the kind every ``self.attr = ...`` of the class gives;
  so has ``obj.attr`` when ``obj`` is a name bound once to an instance of a class of the
  module (``model = Model(...)``), no class-level name ``attr`` exists and nothing else in
  the module assigns an attribute named ``attr``.  ``attribute_value`` gives the one value
  such an attribute holds, when the class assigns it exactly once.
- ``passed_arguments`` gives the value each call of a function gives one of its parameters,
  ``agreed_argument`` the one value they all give.
Every answer is computed on first use, flow-insensitively, with the kinds of the module's
values; a question that depends on itself (recursion) is unknown, and unknown is never a
tensor.  Call sites are collected by one walk of the module, only when a question needs them.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from .arguments import argument, given, parameter, parameters, position, positional_names
from .assignments import attribute_targets, instance_uses, self_assignments
from .counters import is_counter
from .docstrings import documented_tensor, imports_other_tensors
from .kinds import NUMBER
from .names import COMPREHENSIONS, FUNCTION_LIKE, Scope
from .returns import Returned, live_return
from .syntax import code_children, is_none

_CONSTANTS = frozenset({"True", "False", "None"})
_SCOPE_TYPES = frozenset({cst.Module, cst.ClassDef, *FUNCTION_LIKE, *COMPREHENSIONS})  # what may open a scope


class Summaries:
    """Answers about one module for the semantic model, which evaluates values."""

    def __init__(self, module: cst.Module, table, model):
        self.module = module
        self.table = table
        self.model = model  # a weak proxy: the model holds these summaries
        self._calls: Optional[Dict[str, List[Tuple[cst.Call, Scope]]]] = None
        self._escaped: set = set()  # function names used other than by calling them
        self._busy: set = set()
        self._answers: Dict[tuple, Optional[str]] = {}

    def parameter_kind(self, function: cst.FunctionDef, name: str) -> Optional[str]:
        return self._memo(("param", id(function), name), lambda: self._parameter_kind(function, name))

    def return_kind(self, function: cst.FunctionDef) -> Optional[str]:
        return self._memo(("return", id(function)), lambda: self._return_kind(function))

    def attribute_kind(self, cls: cst.ClassDef, attr: str) -> Optional[str]:
        return self._memo(("attr", id(cls), attr), lambda: self._attribute_kind(cls, attr))

    def function_called(self, func: cst.BaseExpression, scope: Scope, instances: bool = False
                        ) -> Optional[cst.FunctionDef]:
        """The module's own function (or method through ``self``; with ``instances``, also through a
        name bound once to an instance of a class of the module, ``class_of_instance``) that ``func``
        names, if certain."""
        if isinstance(func, cst.Name):
            return self._defined(func.value, scope)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            name = func.value.value
            cls = self.class_of_self(name, scope) or (self.class_of_instance(name, scope) if instances else None)
            if cls is not None:
                return self._method(cls, func.attr.value)
        return None

    def positional_parameter(self, call: cst.Call, scope: Scope, index: int) -> Optional[str]:
        """The parameter of the module's function (or method through ``self``) ``call`` calls that its
        ``index``-th positional argument goes to."""
        function = self.function_called(call.func, scope)
        inner = self.table.scopes.get(function) if function is not None else None
        names = positional_names(function, inner) if inner is not None else []
        return names[index] if index < len(names) else None

    def returned_value(self, call: cst.Call, scope: Scope, is_function=lambda value, scope: False
                       ) -> Optional[Returned]:
        """What the module's undecorated function (or method through ``self``) that ``call`` calls
        returns given the arguments of ``call`` (``returns.live_return``), with the function's scope."""
        function = self.function_called(call.func, scope)
        if function is None or function.decorators or function.asynchronous is not None:
            return None
        inner = self.table.scopes[function]
        passed = [] if any(arg.star for arg in call.args) else (
            (param.name.value, given(call, scope, function, inner, param)) for param in parameters(function))
        return live_return(function, inner, {name: value for name, value in passed if value}, is_function)

    def _method(self, cls: cst.ClassDef, name: str) -> Optional[cst.FunctionDef]:
        """``cls``'s method ``name``: its own, or one it inherits through classes of the module
        that each have one base (a base from elsewhere, or several, before it is found: unsure)."""
        seen = set()
        while cls is not None and id(cls) not in seen:
            seen.add(id(cls))
            scope = self.table.scopes[cls]
            if name in scope.bindings:
                return self._defined(name, scope, own_scope=True)
            if len(cls.bases) != 1 or not isinstance(cls.bases[0].value, cst.Name):
                return None
            cls = self._module_class(cls.bases[0].value.value, scope.parent)
        return None

    def passed_arguments(self, function: cst.FunctionDef, name: str
                         ) -> Optional[List[Tuple[cst.BaseExpression, Optional[Scope]]]]:
        """The value each call of ``function`` (undecorated) gives the parameter ``name``, passed or
        left to its default, with the scope it is read in, when the module only calls it, every
        call of that name is of it and none passes ``*args`` / ``**kwargs``."""
        scope, param = self.table.scopes.get(function), parameter(function, name)
        calls = self._every_call(function, scope) if scope and param and not function.decorators else None
        if not calls or any(arg.star for call, _ in calls for arg in call.args):
            return None
        values = [given(call, site, function, scope, param) for call, site in calls]
        return None if any(value is None for value in values) else values

    def agreed_argument(self, function: cst.FunctionDef, name: str) -> Optional[Tuple[cst.BaseExpression, Scope]]:
        """The value every call of ``function`` gives the parameter ``name`` (``passed_arguments``),
        when they agree.  A name passed on (``is_training``) agrees only when every call is in the
        same scope."""
        values = self.passed_arguments(function, name)
        if not values:
            return None
        (first, where), *rest = values
        if not all(v.deep_equals(first) for v, _ in rest):
            return None
        if type(first) is cst.Name and first.value not in _CONSTANTS and any(site is not where for _, site in rest):
            return None  # the same name in different scopes
        return first, where

    def _every_call(self, function: cst.FunctionDef, scope: Scope) -> Optional[List[Tuple[cst.Call, Optional[Scope]]]]:
        """Every call of ``function`` in the module, with its scope, if the module uses it only by
        calling it: by name (or through ``self``), or, for ``__call__``, through the names and
        attributes that hold the class's instances when these are only called or have attributes
        read (their scopes are not known: None)."""
        if function.name.value != "__call__" or not scope.parent.is_class:
            sites = self._call_sites(function)
            return sites if sites and len(sites) == len(self._calls[function.name.value]) else None
        uses = self._memo(("instance uses",), lambda: instance_uses(self.module))
        cls = scope.parent.node.name.value
        holders = uses.holders.get(cls, ())
        if not holders or uses.names[cls] != len(holders) + 1 or ("name", "self") in uses.calls:
            return None  # an instance made and not bound, the class used some other way, ``self(...)``
        calls = []
        for holder in set(holders):
            called, bound = uses.calls.get(holder, ()), holders.count(holder)
            held_too = sum(held.count(holder) for held in uses.holders.values()) - bound  # another class's
            used = (uses.names if holder[0] == "name" else uses.attrs)[holder[1]]
            if held_too or used != bound + len(called) + uses.dotted[holder]:
                return None  # the holder is passed on, or holds something else too
            calls += [(call, None) for call in called]
        return calls

    def instance_attribute_kind(self, name: str, attr: str, scope: Scope) -> Optional[str]:
        """The kind of ``name.attr`` when ``name`` is an instance of a class of the module."""
        cls = self.class_of_instance(name, scope)
        if cls is None or not self._only_assigned_in(cls, attr):
            return None
        return self.attribute_kind(cls, attr)

    def attribute_value(self, node: cst.Attribute, scope: Scope) -> Optional[Tuple[cst.BaseExpression, Scope]]:
        """The value ``self.attr`` / ``obj.attr`` holds, with the method it is computed in, when the
        class assigns ``self.attr = value`` once and nothing else in the module assigns ``attr``."""
        if not isinstance(node.value, cst.Name):
            return None
        attr = node.attr.value
        cls = self.class_of_self(node.value.value, scope) or self.class_of_instance(node.value.value, scope)
        if cls is None or not self._only_assigned_in(cls, attr):
            return None
        values = self._memo(("attrs", id(cls)), lambda: self_assignments(cls)).get(attr, ())
        if len(values) != 1 or values[0][0] is None:
            return None
        value, method = values[0]
        return value, self.table.scopes[method]

    def class_of_instance(self, name: str, scope: Scope) -> Optional[cst.ClassDef]:
        """The module's class of which ``name`` is an instance: ``name`` bound once, to a call of a
        name bound once, by an undecorated ``class`` statement of the module."""
        context = self.model.context
        owner = context.owner(name, scope)
        value = owner.value_once(name) if owner is not None else None
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return None
        return self._module_class(value.func.value, owner.bindings[name][0].scope)

    def _module_class(self, name: str, scope: Scope) -> Optional[cst.ClassDef]:
        """The undecorated ``class`` statement ``name`` means in ``scope``, when bound only by it."""
        owner = self.model.context.owner(name, scope)
        if owner is None or len(owner.bindings[name]) != 1:
            return None
        classes = self._memo(("classes",), lambda: self._statements(cst.ClassDef))
        found = classes.get((id(owner), name), ())
        return found[0] if len(found) == 1 and not found[0].decorators else None

    def _statements(self, kind: type) -> Dict[Tuple[int, str], list]:
        """(id(scope), name) -> the ``class`` (or ``def``) statements of that name directly in it."""
        found: Dict[Tuple[int, str], list] = {}
        for node, scope in self.table.scopes.items():
            if type(node) is kind:
                found.setdefault((id(scope.parent), node.name.value), []).append(node)
        return found

    def _only_assigned_in(self, cls: cst.ClassDef, attr: str) -> bool:
        """Every assignment of an attribute named ``attr`` in the module is a ``self.attr = ...``
        of ``cls``'s methods, and the class body binds no name ``attr`` (a property, a default)."""
        if attr in self.table.scopes[cls].bindings:
            return False
        counts = self._memo(("attribute targets",), lambda: attribute_targets(self.module))
        ours = self._memo(("attrs", id(cls)), lambda: self_assignments(cls)).get(attr, ())
        return counts.get(attr, 0) == len(ours)

    # -- answers ---------------------------------------------------------------------------
    def _memo(self, key, compute):
        if key not in self._answers:
            if key in self._busy:
                return None
            self._busy.add(key)
            try:
                self._answers[key] = compute()
            finally:
                self._busy.discard(key)
        return self._answers[key]

    def _parameter_kind(self, function: cst.FunctionDef, name: str) -> Optional[str]:
        scope = self.table.scopes.get(function)
        param = parameter(function, name)
        if scope is None or param is None or not (param.default is None or is_none(param.default)):
            return None  # a default other than None: the parameter is not always a tensor
        doc = self._memo(("doc", id(function)), lambda: function.get_docstring(clean=True))
        if doc and name in doc and documented_tensor(doc, name, self._memo(
                ("other tensors",), lambda: imports_other_tensors(self.table.root))):
            return None if self._given_numbers(function, scope, name) else "tensor"
        private = function.name.value.startswith("_") and not function.name.value.startswith("__")
        nested = isinstance(scope.parent.node, (cst.FunctionDef, cst.Lambda))
        if not (private or nested) or function.decorators:
            return None
        at = position(function, scope, name)
        sites = self._call_sites(function) if at is not None else None
        if not sites:
            return None
        kinds = set()
        for call, call_scope in sites:
            arg = argument(call, at, name)
            if arg is None or self._is_shape(arg, call_scope):
                return None  # a shape passed as a value is indexed per dimension, not a tensor to flag
            kinds.add(self.model.static_kind(arg, call_scope))
        return kinds.pop() if len(kinds) == 1 else None

    def _given_numbers(self, function: cst.FunctionDef, scope: Scope, name: str) -> bool:
        """A call in sight passes the parameter a Python number or loop counter: the docstring's
        Tensor is not all it takes."""
        at = position(function, scope, name)
        for call, site in self._call_sites(function) or ():
            arg = argument(call, at, name)
            if arg is not None and (self.model.static_kind(arg, site) == NUMBER
                                    or is_counter(arg, site, self.model.context)):
                return True
        return False

    def _return_kind(self, function: cst.FunctionDef) -> Optional[str]:
        scope = self.table.scopes.get(function)
        if scope is None or function.asynchronous is not None:
            return None
        values = list(_returns(function.body))
        if not values or any(v is None for v in values):
            return None
        kinds = {self.model.static_kind(value, scope) for value in values}
        return kinds.pop() if len(kinds) == 1 else None

    def _attribute_kind(self, cls: cst.ClassDef, attr: str) -> Optional[str]:
        assigned = self._memo(("attrs", id(cls)), lambda: self_assignments(cls))
        values = assigned.get(attr, ())
        if not values or any(value is None for value, _ in values):
            return None
        kinds = {self.model.static_kind(value, self.table.scopes[method]) for value, method in values}
        return kinds.pop() if len(kinds) == 1 else None

    def _is_shape(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        """``tf.shape(x)``, ``x.shape``, ``x.get_shape()`` or a piece of one, through a name bound once."""
        while isinstance(expr, cst.Subscript):
            expr = expr.value
        if isinstance(expr, cst.Name):
            owner = self.model.context.owner(expr.value, scope)
            value = owner.value_once(expr.value) if owner is not None else None
            return value is not None and self._is_shape(value, scope)
        if isinstance(expr, cst.Attribute):
            return expr.attr.value == "shape"
        if isinstance(expr, cst.Call):
            qualname = self.model.context.qualname(expr.func, scope) or ""
            return qualname.endswith((".shape", ".shape_n")) or (
                isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "get_shape")
        return False

    # -- resolving functions -------------------------------------------------------------
    def _defined(self, name: str, scope: Scope, own_scope: bool = False) -> Optional[cst.FunctionDef]:
        owner = scope
        if not own_scope:
            while owner is not None and (name not in owner.bindings or (owner.is_class and owner is not scope)):
                owner = owner.parent
        if owner is None or len(owner.bindings.get(name, ())) != 1:
            return None
        found = self._memo(("functions",), lambda: self._statements(cst.FunctionDef)).get((id(owner), name), ())
        return found[0] if len(found) == 1 else None

    def class_of_self(self, name: str, scope: Scope) -> Optional[cst.ClassDef]:
        """The class whose method ``scope`` is, when ``name`` is that method's first parameter."""
        while scope is not None and not isinstance(scope.node, cst.FunctionDef):
            scope = scope.parent  # comprehensions and lambdas inside the method
        if scope is None or not scope.parent.is_class:
            return None
        params = [*scope.node.params.posonly_params, *scope.node.params.params]
        if not params or params[0].name.value != name or scope.node.decorators:
            return None
        return scope.parent.node

    def _call_sites(self, function: cst.FunctionDef) -> Optional[List[Tuple[cst.Call, Scope]]]:
        if self._calls is None:
            self._calls = {}
            self._collect(self.module, self.table.root)
        name = function.name.value
        if name in self._escaped:
            return None
        return [(call, scope) for call, scope in self._calls.get(name, ())
                if self.function_called(call.func, scope) is function]

    def _collect(self, root: cst.CSTNode, scope: Scope) -> None:
        """Every call in ``root`` (read in ``scope``) whose function is a plain name or
        ``<name>.<attr>``, with its scope, and the names used in any other way.  A nested scope is
        collected by a call of its own, at once: the order is that of one depth-first walk."""
        calls, escaped = self._calls, self._escaped
        stack: List[cst.CSTNode] = [root]
        while stack:
            node = stack.pop()
            kind = type(node)  # concrete node classes: ``is`` is exact, isinstance is slow on ABCs
            # only these open scopes (hashing a node is a Python call); lambdas and comprehensions on demand
            if kind in _SCOPE_TYPES and node is not root:
                self._collect(node, self.table.scope_for(node, scope))
                continue
            if kind is cst.Call:
                func = node.func
                func_kind = type(func)
                called = func.value if func_kind is cst.Name else (
                    func.attr.value if func_kind is cst.Attribute and type(func.value) is cst.Name else None)
                if called is not None:
                    calls.setdefault(called, []).append((node, scope))
                    stack.extend(node.args)
                    if func_kind is cst.Attribute:
                        stack.append(func.value)
                    continue
            elif kind is cst.Name:
                escaped.add(node.value)
                continue
            elif kind is cst.Attribute:  # its name is used; the rest is punctuation
                escaped.add(node.attr.value)
                stack.append(node.value)
                continue
            elif kind is cst.Arg or kind is cst.Element:  # the commonest containers, read directly
                if kind is cst.Arg and node.keyword is not None:
                    escaped.add(node.keyword.value)
                stack.append(node.value)
                continue
            elif kind is cst.FunctionDef:
                stack.extend([*node.decorators, node.params, node.body])
                continue
            stack.extend(code_children(node))


def _returns(body):
    """The values of the ``return`` statements of a function body (None for a bare return);
    ``yield`` makes the function a generator: then one None."""
    stack = [body]
    while stack:
        node = stack.pop()
        kind = type(node)  # concrete node classes: cheaper than isinstance on libcst's ABCs
        if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
            continue
        if kind is cst.Return:
            yield node.value
            continue
        if kind is cst.Yield or kind is cst.Await:
            yield None
            return
        stack.extend(code_children(node))
