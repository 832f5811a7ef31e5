"""The one surface a rule reads: what is known about the file at the node being visited.

The traversal keeps ``ancestors`` and ``scopes`` right around every node; the
questions below resolve names in the current scope and ask the semantic model.
Rules use nothing else of the analysis (``names``, ``semantics``), so those can
get smarter without a rule changing.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Dict, List, Optional, Tuple

import libcst as cst

from .kinds import NUMBER, SCALAR, TENSOR, TENSOR_KINDS
from .names import COMPREHENSIONS, FUNCTION_LIKE, OTHER, Binding, Resolver, Scope, ScopeTable
from .reaching import Reaching
from .returns import Returned
from .semantics import SemanticModel
from .tf_api import TFName, shims, tf_name
from .session_runs import script_runs
from .training import trains
from .toy_data import toy_data

__all__ = ["Context", "NUMBER", "SCALAR", "Settings", "TENSOR"]

_FUNCTION_TYPES = frozenset(FUNCTION_LIKE)
_COMPREHENSION_TYPES = frozenset(COMPREHENSIONS)
# The only nodes at which a scope may start (a def's or lambda's parameters, a comprehension, a
# class body) or end (a def, lambda, class, comprehension, the module): the traversal calls
# ``enter_scope`` / ``leave_scope`` at these only.
SCOPE_NODES = frozenset({cst.Parameters, *COMPREHENSIONS, cst.IndentedBlock, cst.SimpleStatementSuite,
                         *FUNCTION_LIKE, cst.ClassDef, cst.Module})


@dataclass(frozen=True)
class Settings:
    """What the configuration tells the analysis about a project."""

    tensorflow_modules: Tuple[str, ...] = ()  # modules that re-export TensorFlow
    function_decorators: Tuple[str, ...] = ()  # project wrappers that stand for tf.function
    python2: bool = False  # read as Python 2: TF1-era code, graph mode unless it shows eager signals
    # the TensorFlow versions the project supports: (oldest, first unsupported), each a tuple of
    # ints or None (frontends.requirements)
    tensorflow_versions: Optional[Tuple[Optional[Tuple[int, ...]], Optional[Tuple[int, ...]]]] = None
    # modules of the file's directory written for TF 1.x: (file name, a TF 1.x-only name it spells), at most two
    # (frontends.tf1_directories)
    tf1_directory: Tuple[Tuple[str, str], ...] = ()


class Context:
    """What rules may ask about the file being linted, at the current node."""

    def __init__(self, module: cst.Module, path: str, settings: Settings = Settings()):
        self.module = module
        self.path = path
        self.settings = settings
        self._table = ScopeTable(module, shims(settings.tensorflow_modules))
        self._resolver = Resolver(self._table)
        self.ancestors: List[cst.CSTNode] = []
        # ``ancestors[-2]`` while a visitor runs (None outside the traversal): a plain attribute the
        # traversal sets, since most visitors read it
        self.parent: Optional[cst.CSTNode] = None
        self._scopes: List[Scope] = [self._table.root]
        # plain attributes, not properties: rules read them at most nodes; ``enter_scope``/``leave_scope`` keep
        # ``scope`` equal to ``_scopes[-1]``
        self.scope: Scope = self._table.root
        self.module_scope: Scope = self._table.root
        # (id(node), id(scope)) -> (node, its TFName): bindings never change during a traversal,
        # and every rule asks about the same calls; the node is kept so its id is not reused.
        self._tf_names: Dict[Tuple[int, int], Tuple[cst.CSTNode, Optional[TFName]]] = {}
        self._last_call: Optional[cst.Call] = None  # tf_call's last question and answer, in ``scope``
        self._last_call_name: Optional[TFName] = None
        self.semantics = SemanticModel(self, self._table, settings.function_decorators, settings.python2)
        self._reaching = Reaching()

    # -- where the traversal is ---------------------------------------------------
    @property
    def node(self) -> cst.CSTNode:
        return self.ancestors[-1]

    def scope_of(self, node: cst.CSTNode) -> Optional[Scope]:
        """The scope a function or class opens (None for other nodes)."""
        return self._table.scopes.get(node)

    # -- names ---------------------------------------------------------------------
    def owner(self, name: str, scope: Optional[Scope] = None) -> Optional[Scope]:
        """The scope whose binding of ``name`` is seen from ``scope`` (default: here)."""
        return self._resolver.owner(name, scope or self.scope)

    def is_local(self, name: str) -> bool:
        """``name`` is bound in the current scope itself."""
        return self._resolver.owner(name, self.scope) is self.scope

    def bindings(self, name: str, scope: Optional[Scope] = None) -> Optional[List[Binding]]:
        """Every binding of ``name`` in the scope that owns it, seen from ``scope`` (default: here)."""
        return self._resolver.bindings(name, scope or self.scope)

    def qualname(self, node: cst.BaseExpression, scope: Optional[Scope] = None) -> Optional[str]:
        return self._resolver.qualname(node, scope or self.scope)

    def tf_name(self, node: cst.BaseExpression, scope: Optional[Scope] = None) -> Optional[TFName]:
        """The TensorFlow API an expression names, when certain (read here, or in ``scope``)."""
        scope = scope or self.scope
        key = (id(node), id(scope))
        known = self._tf_names.get(key)
        if known is None:
            # tf_name is memoized per qualified name (tf_api)
            known = self._tf_names[key] = (node, tf_name(self._resolver.qualname(node, scope)))
        return known[1]

    def tf_call(self, node: cst.CSTNode) -> Optional[TFName]:
        """The TensorFlow API a call calls, when certain (None for anything but a call)."""
        # every rule asks this of every call, one after the other: the last answer is kept (until
        # the scope changes)
        if node is self._last_call:
            return self._last_call_name
        if type(node) is not cst.Call:
            return None
        name = self.tf_name(node.func)
        self._last_call, self._last_call_name = node, name
        return name

    def assigned_value(self, name: cst.Name) -> Optional[cst.BaseExpression]:
        """The value of ``name`` if it has exactly one binding, an assignment; or, read in the
        statement being visited, the assignment that reaches it in code that runs in order
        (``reaching.py``)."""
        bindings = self._resolver.bindings(name.value, self.scope)
        if not bindings:
            return None
        binding = bindings[0] if len(bindings) == 1 else self._reaching.value(self, name, bindings)
        if binding is not None:
            self._reaching.reached(binding)
        return getattr(binding, "value", None)

    def holds_parameter(self, name: cst.Name) -> bool:
        """``name``, read here, holds the value passed to the parameter of the function around:
        bound only as the parameter, or read before the body rebinds it (``p = clip(p)``)."""
        bindings = self._resolver.bindings(name.value, self.scope)
        if not bindings or bindings[0] is not OTHER or type(self.scope.node) is not cst.FunctionDef:
            return False
        return len(bindings) == 1 or self._reaching.value(self, name, bindings) is OTHER

    def agreed_argument(self, name: cst.Name, scope: Optional[Scope] = None
                        ) -> Optional[Tuple[cst.BaseExpression, Optional[Scope]]]:
        """The value of ``name``, a parameter of the function around ``scope`` (default: here),
        when every call of that function in the module gives it the same value (passed, or left
        to the default), with the scope that value is read in (None if unknown)."""
        owner = self._resolver.owner(name.value, scope or self.scope)
        if owner is None or type(owner.node) is not cst.FunctionDef or len(owner.bindings[name.value]) != 1:
            return None  # not a parameter, or rebound in the body
        return self.semantics.summaries.agreed_argument(owner.node, name.value)

    def passed_arguments(self, function: cst.FunctionDef, name: str
                         ) -> Optional[List[Tuple[cst.BaseExpression, Optional[Scope]]]]:
        """What each call of the module's ``function`` passes its parameter ``name``, with the
        scope it is read in (None if unknown), when the module only calls it."""
        return self.semantics.summaries.passed_arguments(function, name)

    def positional_parameter(self, call: cst.Call, index: int) -> Optional[str]:
        """The parameter of the module's own function (or method through ``self``) that ``call``
        passes its ``index``-th positional argument to (``net(x, False)``: ``is_training``)."""
        return self.semantics.summaries.positional_parameter(call, self.scope, index)

    def attribute_value(self, node: cst.Attribute, scope: Optional[Scope] = None
                        ) -> Optional[Tuple[cst.BaseExpression, Scope]]:
        """The one value ``self.attr`` (in a method) or ``obj.attr`` (``obj`` bound once to an
        instance of a class of this module) holds, with the scope of the method that computes it:
        when the class assigns ``self.attr = value`` exactly once and nothing else in the module
        assigns an attribute of that name."""
        return self.semantics.summaries.attribute_value(node, scope or self.scope)

    def returned_value(self, call: cst.Call, scope: Optional[Scope] = None) -> Optional[Returned]:
        """What the module's own function or method ``call`` calls returns given the call's
        arguments, with its scope (``def probs(): return tf.nn.softmax(x)``), when one ``return``
        can run; and, when it returns a call of a parameter, what ``call`` passes for it."""
        return self.semantics.summaries.returned_value(
            call, scope or self.scope, lambda value, where: self.tf_name(value, where) is not None)

    # -- values and modes (the semantic model) ------------------------------------
    def kind(self, expr: cst.BaseExpression) -> Optional[str]:
        """``TENSOR``, ``SCALAR`` (a rank-0 tensor), ``NUMBER``, ``DATASET`` or None (unknown)."""
        return self.semantics.kind(expr)

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        """Certainly a tensor at this program point (unknown: False)."""
        return self.semantics.kind(expr) in TENSOR_KINDS

    def is_scalar(self, expr: cst.BaseExpression) -> bool:
        return self.semantics.is_scalar(expr)

    def is_dataset(self, expr: cst.BaseExpression) -> bool:
        return self.semantics.is_dataset(expr)

    def is_shape_vector(self, expr: cst.BaseExpression) -> bool:
        return self.semantics.is_shape_vector(expr)

    def eager_guarded(self) -> bool:
        """Inside ``if tf.executing_eagerly():``: only eager execution runs this code."""
        return self.semantics.eager_guarded()

    def mode_thunk(self, node: cst.CSTNode) -> Callable[[], str]:
        """The mode (``G``, ``F``, ``F0``, ``E``) of ``node``'s scope, settled after the traversal;
        ask while the traversal is at or inside ``node``."""
        return self.semantics.mode_thunk(node)

    def tf2_thunk(self, node: cst.CSTNode) -> Callable[[], bool]:
        """Whether ``node``'s scopes show positive TF2 evidence (``tf.function``, ``GradientTape``,
        a Keras subclass, a TF2-only API), settled after the traversal like ``mode_thunk``."""
        return self.semantics.tf2_thunk(node)

    def in_tf_function_thunk(self, node: cst.CSTNode) -> Callable[[], bool]:
        """Whether the innermost function around ``node`` is wrapped by ``tf.function`` itself
        (decorator, ``tf.function(f)``, a configured wrapper), not by Keras or ``tf.data``;
        settled after the traversal like ``mode_thunk``."""
        return self.semantics.in_tf_function_thunk(node)

    @cached_property
    def script_runs(self):
        """What a TF1 script's runs may be built from (``session_runs.script_runs``), or None."""
        return script_runs(self)

    @cached_property
    def toy_data(self) -> bool:
        """Every feed of the module is literal data (``toy_data.toy_data``)."""
        return toy_data(self)

    @cached_property
    def module_trains(self) -> bool:
        """The module spells an optimizer, a gradient or a training call (``training.trains``)."""
        return trains(self.module)

    def tf1_api_thunk(self) -> Callable[[], bool]:
        """Whether the module is written for TF 1.x (root ``tf.Session``, ``tf.placeholder``, ...),
        settled after the traversal."""
        return self.semantics.tf1_api_thunk()

    # -- called by the traversal, which keeps ``ancestors`` itself ---------------------
    def enter_scope(self, node: cst.CSTNode) -> None:
        """Before the visitors visit ``node`` (one of ``SCOPE_NODES``, last in ``ancestors``): the
        scope it opens, if any."""
        parent = self.ancestors[-2] if len(self.ancestors) > 1 else None
        kind = type(node)
        if kind is cst.Parameters and type(parent) in _FUNCTION_TYPES:
            opener = parent
        elif kind in _COMPREHENSION_TYPES:
            opener = node
        elif type(parent) is cst.ClassDef and node is parent.body:
            opener = parent
        else:
            return
        self.scope = self._table.scope_for(opener, self.scope)
        self._scopes.append(self.scope)
        self._last_call = None

    def leave_scope(self, node: cst.CSTNode) -> None:
        """After the visitors leave ``node`` (one of ``SCOPE_NODES``): the scope it closes, if any."""
        if self.scope.node is node:
            self._scopes.pop()
            if self._scopes:  # the module's own scope is left last, at the end of the traversal
                self.scope = self._scopes[-1]
            self._last_call = None
