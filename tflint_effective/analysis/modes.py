"""Execution modes per scope (part of the semantic model).

Modes (measured on TensorFlow 2.21, see DESIGN.md):
  G  TF1 graph mode        F   inside tf.function (autograph on)
  F0 tf.function(autograph=False)               E   TF2 eager

A node's mode is settled after the traversal (``tf.function(f)`` may follow
``def f``).  First what the code says outright, innermost first:
1. ``with tf.Graph().as_default():`` (G) and the body of ``if tf.executing_eagerly():`` (E);
2. a function's declared mode: ``@tf.function`` or a known wrapper of it, ``tf.function(f)``,
   a Keras ``call`` / ``train_step``, a ``tf.data`` ``map`` function (F, F0); failing that, a
   helper's callers: an undecorated function of this module with no mode signals of its own,
   whose name is only ever called (never used as a value, never listed in ``__all__``; public
   ones only in a script or notebook), or a method read only as ``self.<name>``, runs traced
   when every call of it is in code that runs traced: F when any caller is F, F0 when all are
   F0 (autograph converts the functions a ``tf.function`` calls: measured on TF 2.21, a
   helper's ``for i in tf.range(n)`` becomes one ``While`` op).  Resolved after the traversal, each helper once;
   a helper whose callers' modes depend on itself (recursion) gets no verdict here
   (``callers.py``);
Then signals, innermost scope first:
3. a function's own signals: sessions, placeholders, collections... (G); ``GradientTape``, ``t.numpy()`` or
   an ``if not tf.executing_eagerly(): raise/return`` guard (not G, so E, even beside TF 1.x-only names such as
   ``tf.random_uniform``, which TF1 eager execution runs too); both: no verdict;
4. the same signals gathered over the methods of the function's class;
5. the module: G on a TF1 signal at module level or spelled at the root anywhere (``tf.Session``,
   or a keyword only TF 1.x takes, ``tf.nn.softmax(x, dim=1)``, is TF 1.x code; where the requirements
   ask for TF 2 or later, only graph APIs: other such names are latent errors of TF2 code),
   on ``disable_eager_execution``, on ``import tensorflow.compat.v1 as tf`` (unless the module imports
   ``tensorflow.compat.v2`` too: written to run on either version) or RLlib's ``tf = try_import_tf()`` (which
   disables v2 behaviour; its tuple form gives no signal), unless eager execution is enabled; else E.
   ``tf.compat.v1.Session()`` inside a function of TF2 code makes that function graph
   code, not its class or module (TF2 libraries keep such calls for compatibility); one made
   with a ``config`` and only kept (``session = ...``) or handed to Keras's ``set_session`` is
   TF2 code's way to set GPU options, and no signal (eager execution stays on).
So one ``Session()`` in one function does not make a ``GradientTape`` function of the same
file graph code.  ``tf2_evidence`` says whether a scope shows positive TF2 signals
(``tf.function``, ``GradientTape``, Keras subclasses, TF2-only APIs).
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Set, Tuple

import libcst as cst

from .names import COMPREHENSIONS
from .syntax import JUMPS, bindings_in, call_arg, dotted
from .tf_api import (DATASET_TRACERS, EAGER_SIGNALS, FUNCTION_WRAPPERS, GRAPH_APIS, KERAS_TRACED_METHODS,
                     MODULE_WIDE_GRAPH, TAPES, TF1_ONLY_KEYWORDS, TF2_ONLY, TF_IMPORTERS, TRACED_KEYWORDS, TRACERS,
                     TFName, tf1_only, tf_name)

GRAPH, EAGER, TF2 = "graph", "eager", "tf2"  # signals a scope can show
SESSION_CLASSES = ("Session", "InteractiveSession")
# A TF 1.x-only name that TF1 eager execution runs too (``tf.layers``, ``tf.train.*Optimizer``):
# graph mode unless the module enables eager execution.
TF1_NAME = "tf1 name"


def _is_graph_signal(name: TFName, call: Optional[cst.Call] = None) -> bool:
    """A graph API, or a TF 1.x-only name or keyword (``tf.nn.softmax(x, dim=1)``) at the root."""
    return name.path in GRAPH_APIS or tf1_only(name) or (
        call is not None and name.compat is None and name.path in TF1_ONLY_KEYWORDS
        and any(arg.keyword and arg.keyword.value in TF1_ONLY_KEYWORDS[name.path] for arg in call.args))


def _autograph_mode(call: cst.Call) -> str:
    arg = call_arg(call, None, "autograph")
    off = arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "False"
    return "F0" if off else "F"


class Modes:
    """The visitor methods that collect mode signals, and the settling of a node's mode."""

    def _init_modes(self, function_decorators=(), python2=False) -> None:
        self.graph_signal = python2  # Python 2 code is TF1-era code
        self.eager_signal = False
        self.tf1_api = python2  # a TF 1.x-only name spelled without compat.v1: code written for TF 1.x
        self.v1_main_alias = False  # ``import tensorflow.compat.v1 as tf``
        self.v1_other_alias = False
        self.plain_tensorflow = False  # ``import tensorflow [as x]``
        self.v2_import = False  # ``import tensorflow.compat.v2 as tf2``: written to run on either version
        self.requires_tf2 = ((self.context.settings.tensorflow_versions or (None,))[0] or (0,)) >= (2,)
        self.mode_stack = []  # functions, lambdas, graph ``with`` blocks, eager-only blocks
        self.function_mode: Dict[cst.CSTNode, str] = {}
        self.traced_names: Dict[Tuple[int, str], str] = {}
        # functions (and their names) wrapped by ``tf.function`` or a wrapper of it, not by Keras or tf.data
        self.explicit: Set[object] = set()
        self.keras_classes: Set[cst.ClassDef] = set()
        self.keras_class_names: Set[Tuple[int, str]] = set()
        self.signals: Dict[cst.CSTNode, Set[str]] = {}  # function, class or module -> signals
        self.wrappers = {**FUNCTION_WRAPPERS, **dict.fromkeys(function_decorators, "F")}
        self._wrapper_leaves = {qualname.rpartition(".")[2] for qualname in self.wrappers}
        self._modes: Dict[cst.CSTNode, Tuple[cst.CSTNode, ...]] = {}  # node -> its enclosing mode_stack
        self._init_callers()
        if self._guards_eager(self.context.module.body):
            self.eager_signal = True

    # == questions ========================================================
    def mode_thunk(self, node: cst.CSTNode) -> Callable[[], str]:
        """The mode of ``node``, settled after the traversal.

        Ask while the traversal is at or inside ``node``; the answer is remembered,
        so a rule that reports later (an unused value) gets the same mode.
        """
        enclosing = self._modes.setdefault(node, tuple(self.mode_stack))
        return lambda: self._settle(enclosing)

    def tf2_thunk(self, node: cst.CSTNode) -> Callable[[], bool]:
        """Whether ``node`` runs in a scope with positive TF2 evidence, settled after the traversal."""
        enclosing = self._modes.setdefault(node, tuple(self.mode_stack))
        return lambda: self._tf2(enclosing)

    def in_tf_function_thunk(self, node: cst.CSTNode) -> Callable[[], bool]:
        """Whether the innermost function around ``node`` is wrapped by ``tf.function`` itself
        (or a wrapper of it), not traced by Keras or ``tf.data``; settled after the traversal."""
        enclosing = self._modes.setdefault(node, tuple(self.mode_stack))
        function = next((n for n in reversed(enclosing) if isinstance(n, (cst.FunctionDef, cst.Lambda))), None)
        return lambda: function is not None and self._explicit(function)

    def _explicit(self, function: cst.CSTNode) -> bool:
        if function in self.explicit:
            return True
        return isinstance(function, cst.FunctionDef) and (
            id(self._def_owner(function)), function.name.value) in self.explicit

    def tf1_api_thunk(self) -> Callable[[], bool]:
        """Whether the module spells TF 1.x-only names at the root (``tf.Session``,
        ``tf.placeholder``): plain ``tf.gradients`` there is TF1's. Settled after the traversal."""
        return lambda: self.tf1_api

    def eager_guarded(self) -> bool:
        """Inside ``if tf.executing_eagerly(): ...`` (and no function in between): only
        eager execution runs this code, whatever the mode around it."""
        return bool(self.mode_stack) and isinstance(self.mode_stack[-1], cst.BaseSuite)

    @property
    def module_mode(self) -> str:
        v1_alias = self.v1_main_alias or (self.v1_other_alias and not self.plain_tensorflow)
        graph = self.graph_signal or (v1_alias and not self.v2_import)
        return "G" if graph and not self.eager_signal else "E"

    def _settle(self, enclosing: Tuple[cst.CSTNode, ...]) -> str:
        for node in reversed(enclosing):  # what the code says outright wins over signals
            if isinstance(node, cst.With):
                return "G"
            mode = self._declared_mode(node)
            if mode is not None:
                return mode
        for node in reversed(enclosing):
            mode = self._signalled(node) or self._signalled(self._class_of(node))
            if mode is not None:
                return mode
        return self.module_mode

    def _tf2(self, enclosing: Tuple[cst.CSTNode, ...]) -> bool:
        if self._settle(enclosing) in ("F", "F0"):
            return True
        scopes = [self.context.module, *enclosing, *(self._class_of(node) for node in enclosing)]
        return any(TF2 in self.signals.get(node, ()) for node in scopes if node is not None)

    def _declared_mode(self, node: cst.CSTNode) -> Optional[str]:
        mode = self.function_mode.get(node)
        if mode is None and isinstance(node, cst.FunctionDef):
            mode = self.traced_names.get((id(self._def_owner(node)), node.name.value))
            if mode is None:
                mode = self._callee_mode(node)
        return mode

    def _signalled(self, node: Optional[cst.CSTNode]) -> Optional[str]:
        found = self.signals.get(node, ())
        if EAGER in found:  # TF 1.x names beside it are TF1 eager code; a session or placeholder contradicts it
            return None if GRAPH in found else "E"
        return "G" if GRAPH in found or TF1_NAME in found and not self.eager_signal else None

    def _class_of(self, node: cst.CSTNode) -> Optional[cst.ClassDef]:
        scope = self.context.scope_of(node) if isinstance(node, cst.FunctionDef) else None
        return scope.parent.node if scope is not None and scope.parent.is_class else None

    # == signals ==========================================================
    def _note(self, signal: str, spread: bool = True) -> bool:
        """Record ``signal`` for the innermost function (and, when ``spread``, its class) or
        class, or the module; True when that is the module."""
        scope = self.context.scope
        while isinstance(scope.node, COMPREHENSIONS):
            scope = scope.parent
        self.signals.setdefault(scope.node, set()).add(signal)
        if spread and isinstance(scope.node, (cst.FunctionDef, cst.Lambda)) and scope.parent.is_class:
            self.signals.setdefault(scope.parent.node, set()).add(signal)
        if signal == TF2:
            self.signals.setdefault(self.context.module, set()).add(signal)
        return scope.parent is None

    def _note_name(self, name: Optional[TFName], call: Optional[cst.Call] = None) -> None:
        if name is None:
            return
        if name.path in EAGER_SIGNALS:
            self.eager_signal = True
            self.tf1_api = self.tf1_api or name.compat is None  # TF 2's root has no such switch
        elif _is_graph_signal(name, call):
            if self.requires_tf2 and name.compat is None and name.path not in GRAPH_APIS:
                return  # a latent AttributeError (TypeError) in a project that requires TF 2, not TF1 code
            # A TF 1.x-only name at the root means TF1 code everywhere in the module; the same
            # API through ``compat.v1`` in TF2 code is kept for compatibility: its function only.
            tf1 = name.compat is None or name.path in MODULE_WIDE_GRAPH
            self.tf1_api = self.tf1_api or name.compat is None
            if self._note(GRAPH if name.path in GRAPH_APIS else TF1_NAME, spread=tf1) or tf1:
                self.graph_signal = True
        elif name.path in TAPES:
            self._note(EAGER)
            self._note(TF2)
        elif (name.path in TF2_ONLY and name.compat is None) or name.compat == "v2":
            self._note(TF2)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = dotted(alias.name)
            if name == "tensorflow":
                self.plain_tensorflow = True
            elif name == "tensorflow.compat.v1" and alias.asname is not None:
                self._v1_alias(alias.asname.name)
            self.v2_import = self.v2_import or name == "tensorflow.compat.v2"
        self._kill(bindings_in([node]))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted(node.module) if node.module is not None else None
        if module == "tensorflow.compat" and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                self.v2_import = self.v2_import or alias.name.value == "v2"
                if alias.name.value == "v1":
                    self._v1_alias(alias.asname.name if alias.asname else alias.name)
        self._kill(bindings_in([node]))

    def visit_Assign(self, node: cst.Assign) -> None:
        """``tf = try_import_tf()`` (RLlib) disables v2 behaviour: graph mode, module-wide.
        The tuple form (``tf1, tf, tfv = ...``) gives TensorFlow of either version: no signal."""
        value = node.value
        if (isinstance(value, cst.Call) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
                and self.context.qualname(value.func) in TF_IMPORTERS):
            self.graph_signal = True

    def _v1_alias(self, local: cst.BaseExpression) -> None:
        main = isinstance(local, cst.Name) and local.value == "tf"
        self.v1_main_alias, self.v1_other_alias = self.v1_main_alias or main, self.v1_other_alias or not main

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._record_attribute(node)
        parent = self.context.parent
        kind = type(parent)  # concrete node classes: cheaper than isinstance on libcst's ABCs
        if kind is cst.Attribute or (kind is cst.Call and parent.func is node):
            return  # only the outermost chain is resolved; calls are seen in visit_Call
        self._note_name(self.context.tf_name(node))

    def visit_Call(self, node: cst.Call) -> None:
        self._record_call(node)
        name = self.context.tf_call(node)
        if not self._configures_devices(node, name):
            self._note_name(name, node)
        if name is None and not node.args and type(node.func) is cst.Attribute and node.func.attr.value == "numpy":
            self._note(EAGER)  # ``t.numpy()`` raises on a graph tensor: the code runs eagerly
        explicit = False
        if name is not None and name.path in TRACERS:
            mode = _autograph_mode(node) if name.path == "function" else TRACERS[name.path]
            if name.path == "function":
                self._note(TF2)
                explicit = True
        elif (type(node.func) is cst.Attribute and node.func.attr.value in DATASET_TRACERS
              and self.is_dataset(node.func.value)):
            mode = "F"
        elif self._may_wrap(node.func) and self.context.qualname(node.func) in self.wrappers:
            mode = self.wrappers[self.context.qualname(node.func)]
            explicit = True
        else:
            return
        target = call_arg(node, 0, "") or next(
            (a for a in node.args if a.keyword and a.keyword.value in TRACED_KEYWORDS), None)
        if target is None:
            return
        if isinstance(target.value, cst.Lambda):
            self.function_mode[target.value] = mode
            key = target.value
        elif isinstance(target.value, cst.Name):
            owner = self.context.owner(target.value.value)
            key = (id(owner), target.value.value)
            self.traced_names[key] = mode
        else:
            return
        if explicit:
            self.explicit.add(key)

    def _configures_devices(self, call: cst.Call, name: Optional[TFName]) -> bool:
        """``session = tf.compat.v1.Session(config=config)`` (or one handed to Keras's ``set_session``):
        TF2 code's way to set GPU options (``allow_growth``); eager execution stays on."""
        if (name is None or name.compat != "v1" or name.path not in SESSION_CLASSES
                or call_arg(call, 2, "config") is None):
            return False
        parent, ancestors = self.context.parent, self.context.ancestors
        kind = type(parent)
        if kind is cst.Expr or kind is cst.Assign and type(parent.targets[0].target) is cst.Name:
            return True
        return (kind is cst.Arg and len(ancestors) > 2 and type(ancestors[-3]) is cst.Call
                and (dotted(ancestors[-3].func) or "").endswith("set_session"))

    def _may_wrap(self, func: cst.BaseExpression) -> bool:
        """Cheaply, before resolving ``func``: an attribute chain's qualified name ends with its
        last attribute, so it can name a wrapper only when a wrapper's name ends the same way."""
        return type(func) is not cst.Attribute or func.attr.value in self._wrapper_leaves

    def visit_With(self, node: cst.With) -> None:
        if any(self._is_graph_context(item.item) for item in node.items):
            self.mode_stack.append(node)

    def leave_With(self, node: cst.With) -> None:
        if self.mode_stack and self.mode_stack[-1] is node:
            self.mode_stack.pop()

    def _is_graph_context(self, expr: cst.BaseExpression) -> bool:
        """``tf.Graph().as_default()`` (or ``g.as_default()`` with g a tf.Graph())."""
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value == "as_default"):
            return False
        receiver = expr.func.value
        if isinstance(receiver, cst.Name):
            receiver = self.context.assigned_value(receiver) or receiver
        name = self.context.tf_name(receiver.func) if isinstance(receiver, cst.Call) else None
        return name is not None and name.path == "Graph"

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._kill([(node.name.value, node)])
        if any(self._is_keras_base(base.value) for base in node.bases if not base.keyword):
            self.keras_classes.add(node)
            self.keras_class_names.add((id(self.context.scope), node.name.value))
            self.signals.setdefault(node, set()).add(TF2)
            self.signals.setdefault(self.context.module, set()).add(TF2)

    def _is_keras_base(self, base: cst.BaseExpression) -> bool:
        """A Keras Model or Layer: tf.keras, standalone ``keras`` (Keras 3) or ``tf_keras``.

        Keras traces these methods with tf.function in fit/evaluate/predict on the
        TensorFlow backend; on other backends the body holds no TensorFlow tensors.
        """
        if isinstance(base, cst.Name) and (id(self.context.owner(base.value)), base.value) in self.keras_class_names:
            return True
        qualname = self.context.qualname(base) or ""
        name = tf_name(qualname)
        if name is not None and name.path.startswith("keras."):
            path = name.path[len("keras."):]
        elif qualname.startswith(("keras.", "tf_keras.")):
            path = qualname.partition(".")[2]
        else:
            return False
        return path in ("Model", "Sequential") or (
            path.startswith(("layers.", "models.")) and path.rsplit(".", 1)[-1][:1].isupper())

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._kill([(node.name.value, node)])
        for decorator in node.decorators:
            mode = self._function_decorator_mode(decorator.decorator)
            if mode:
                self.function_mode[node] = mode
                self.explicit.add(node)
                self.signals.setdefault(self.context.module, set()).add(TF2)
        scope = self.context.scope
        if (node not in self.function_mode and node.name.value in KERAS_TRACED_METHODS
                and scope.node in self.keras_classes):
            self.function_mode[node] = "F"
        if isinstance(node.body, cst.IndentedBlock) and self._guards_eager(node.body.body):
            self.signals.setdefault(node, set()).add(EAGER)

    def _function_decorator_mode(self, decorator: cst.BaseExpression) -> Optional[str]:
        call = decorator if isinstance(decorator, cst.Call) else None
        func = call.func if call else decorator
        name = self.context.tf_name(func)
        if name is None or name.path != "function":
            return self.wrappers.get(self.context.qualname(func))
        return _autograph_mode(call) if call else "F"

    def _def_owner(self, node: cst.FunctionDef):
        scope = self.context.scope_of(node)
        return None if scope is None else self.context.owner(node.name.value, scope.parent)

    def _tests_eager(self, test: cst.BaseExpression) -> bool:
        """``tf.executing_eagerly()``, possibly ``and``-ed with other conditions."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self._tests_eager(test.left) or self._tests_eager(test.right)
        name = self.context.tf_call(test)
        return name is not None and name.leaf == "executing_eagerly"

    def _guards_eager(self, statements) -> bool:
        """``if not tf.executing_eagerly(): raise ...`` (or return) among ``statements``: the
        code after it runs eagerly only."""
        for statement in statements:  # exact types: isinstance of a libcst class goes through ABCMeta
            if (type(statement) is cst.If and type(statement.test) is cst.UnaryOperation
                    and type(statement.test.operator) is cst.Not
                    and self._tests_eager(statement.test.expression)
                    and type(statement.body) is cst.IndentedBlock):
                last = statement.body.body[-1]
                if type(last) is cst.SimpleStatementLine and isinstance(last.body[-1], JUMPS):
                    return True
        return False
