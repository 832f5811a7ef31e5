"""The semantic model: execution mode of a node, and whether a value is a tensor.

Modes (measured on TensorFlow 2.21, see DESIGN.md):
  G  TF1 graph mode        F   inside tf.function (autograph on)
  F0 tf.function(autograph=False)               E   TF2 eager

The model runs as the first visitor of the engine's single traversal.

Modes.  A function's mode can be decided by code that comes later
(``tf.function(f)`` after ``def f``, a ``Session()`` at the bottom of the
module), so ``mode_thunk`` only captures the enclosing functions and graph
blocks of a node and settles the mode after the traversal: the innermost
function with a known mode wins, then ``with tf.Graph().as_default()`` (G) or
the body of ``if tf.executing_eagerly():`` (E, see ``eager_guarded``), then
the module (G on TF1 signals, else E).

Tensor-ness: ``kinds.py`` (kinds of expressions) over ``flow.py`` (flow-sensitive
kinds of names).

Known blind spots: names rebound by a walrus inside a loop before a use in the
same loop; ``==`` / ``!=`` are never tensors here (in TF1 graph mode they
compare identities), rules that care ask about the operands.
"""
from __future__ import annotations

import weakref
from typing import Callable, Dict, List, Optional, Set, Tuple

import libcst as cst

from .flow import Flow, _Branch, _Frame
from .kinds import DATASET, SCALAR, TENSOR, TENSOR_KINDS, Kinds
from .syntax import bindings_in, call_arg, dotted
from .tf_api import (DATASET_TRACERS, EAGER_SIGNALS, GRAPH_APIS, KERAS_TRACED_METHODS, SHAPE_VECTORS, TF1_ONLY,
                     TF1_ONLY_PREFIXES, TRACED_KEYWORDS, TRACERS, TFName, tf_name)


def _is_graph_signal(name: TFName) -> bool:
    if name.path in GRAPH_APIS:
        return True
    return name.compat is None and (name.path in TF1_ONLY or name.path.startswith(TF1_ONLY_PREFIXES)
                                    or name.path.startswith("train.") and name.path.endswith("Optimizer"))


class SemanticModel(Flow, Kinds, cst.BatchableCSTVisitor):
    """Collects mode signals and name kinds during the traversal; answers questions."""

    def __init__(self, context):
        super().__init__()
        self.context = weakref.proxy(context)  # the context holds this model
        self.graph_signal = False
        self.eager_signal = False
        self.v1_main_alias = False  # ``import tensorflow.compat.v1 as tf``
        self.v1_other_alias = False
        self.plain_tensorflow = False  # ``import tensorflow [as x]``
        self.mode_stack: List[cst.CSTNode] = []  # functions, lambdas, graph ``with`` blocks
        self.function_mode: Dict[cst.CSTNode, str] = {}
        self.traced_names: Dict[Tuple[int, str], str] = {}
        self.keras_classes: Set[cst.ClassDef] = set()
        self.keras_class_names: Set[Tuple[int, str]] = set()
        self.frames: List[_Frame] = [_Frame(context.module_scope)]
        self.branches: List[_Branch] = []
        self.loops: List[Dict[str, str]] = []
        self._cache: Dict[cst.CSTNode, Optional[str]] = {}
        self._static: Dict[int, Optional[str]] = {}
        self._modes: Dict[cst.CSTNode, Tuple[cst.CSTNode, ...]] = {}  # node -> its enclosing mode_stack

    # == questions ========================================================
    def mode_thunk(self, node: cst.CSTNode) -> Callable[[], str]:
        """The mode of ``node``, settled after the traversal.

        Ask while the traversal is at or inside ``node``; the answer is remembered,
        so a rule that reports later (an unused value) gets the same mode.
        """
        enclosing = self._modes.setdefault(node, tuple(self.mode_stack))
        return lambda: self._settle(enclosing)

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        """True only when ``expr`` is certainly a tensor at this point (unknown: False)."""
        return self.kind(expr) in TENSOR_KINDS

    def is_scalar(self, expr: cst.BaseExpression) -> bool:
        """True only when ``expr`` is certainly a tensor of rank 0."""
        return self.kind(expr) == SCALAR

    def is_dataset(self, expr: cst.BaseExpression) -> bool:
        return self.kind(expr) == DATASET

    def is_shape_vector(self, expr: cst.BaseExpression) -> bool:
        """A shape as a value (``tf.shape(x)``, ``x.shape``, any module's ``shape`` function such
        as ``np.shape``), a slice or an element of one, or a name bound once to one: of rank 1
        at most, and indexed per dimension."""
        while isinstance(expr, cst.Subscript):
            expr = expr.value
        if isinstance(expr, cst.Name):
            expr = self.context.assigned_value(expr) or expr
            while isinstance(expr, cst.Subscript):
                expr = expr.value
        if isinstance(expr, cst.Attribute):
            return expr.attr.value == "shape"
        name = self.context.tf_call(expr)
        if name is not None:
            return name.path in SHAPE_VECTORS
        qualname = self.context.qualname(expr.func) if isinstance(expr, cst.Call) else None
        return qualname is not None and qualname.endswith(".shape")

    def eager_guarded(self) -> bool:
        """Inside ``if tf.executing_eagerly(): ...`` (and no function in between): only
        eager execution runs this code, whatever the mode around it."""
        return bool(self.mode_stack) and isinstance(self.mode_stack[-1], cst.BaseSuite)

    def kind(self, expr: cst.BaseExpression) -> Optional[str]:
        if expr not in self._cache:
            self._cache[expr] = self._kind(expr, self.context.scope, True)
        return self._cache[expr]

    @property
    def module_mode(self) -> str:
        graph = self.graph_signal or self.v1_main_alias or (self.v1_other_alias and not self.plain_tensorflow)
        return "G" if graph and not self.eager_signal else "E"

    def _settle(self, enclosing: Tuple[cst.CSTNode, ...]) -> str:
        for node in reversed(enclosing):
            if isinstance(node, cst.With):
                return "G"
            mode = self.function_mode.get(node)
            if mode is None and isinstance(node, cst.FunctionDef):
                mode = self.traced_names.get((id(self._def_owner(node)), node.name.value))
            if mode is not None:
                return mode
        return self.module_mode

    # == mode signals =====================================================
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = dotted(alias.name)
            if name == "tensorflow":
                self.plain_tensorflow = True
            elif name == "tensorflow.compat.v1" and alias.asname is not None:
                self._v1_alias(alias.asname.name)
        self._kill(bindings_in([node]))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted(node.module) if node.module is not None else None
        if module == "tensorflow.compat" and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if alias.name.value == "v1":
                    self._v1_alias(alias.asname.name if alias.asname else alias.name)
        self._kill(bindings_in([node]))

    def _v1_alias(self, local: cst.BaseExpression) -> None:
        if isinstance(local, cst.Name) and local.value == "tf":
            self.v1_main_alias = True
        else:
            self.v1_other_alias = True

    def visit_Attribute(self, node: cst.Attribute) -> None:
        parent = self.context.parent
        if isinstance(parent, cst.Attribute) or (isinstance(parent, cst.Call) and parent.func is node):
            return  # only the outermost chain is resolved; calls are seen in visit_Call
        self._note_signal(self.context.tf_name(node))

    def _note_signal(self, name: Optional[TFName]) -> None:
        if name is None:
            return
        if name.path in EAGER_SIGNALS:
            self.eager_signal = True
        elif not self.graph_signal and _is_graph_signal(name):
            self.graph_signal = True

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        self._note_signal(name)
        if name is not None and name.path in TRACERS:
            mode = _autograph_mode(node) if name.path == "function" else TRACERS[name.path]
        elif (isinstance(node.func, cst.Attribute) and node.func.attr.value in DATASET_TRACERS
              and self.is_dataset(node.func.value)):
            mode = "F"
        else:
            return
        target = call_arg(node, 0, "") or next((a for a in node.args if a.keyword and a.keyword.value in TRACED_KEYWORDS), None)
        if target is None:
            return
        if isinstance(target.value, cst.Lambda):
            self.function_mode[target.value] = mode
        elif isinstance(target.value, cst.Name):
            owner = self.context.owner(target.value.value)
            self.traced_names[(id(owner), target.value.value)] = mode

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
        if isinstance(receiver, cst.Call):
            name = self.context.tf_name(receiver.func)
            return name is not None and name.path == "Graph"
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._kill([(node.name.value, node)])
        if any(self._is_keras_base(base.value) for base in node.bases if not base.keyword):
            self.keras_classes.add(node)
            self.keras_class_names.add((id(self.context.scope), node.name.value))

    def _is_keras_base(self, base: cst.BaseExpression) -> bool:
        """A Keras Model or Layer: tf.keras, standalone ``keras`` (Keras 3) or ``tf_keras``.

        Keras traces these methods with tf.function in fit/evaluate/predict on the
        TensorFlow backend; on other backends the body holds no TensorFlow tensors.
        """
        if isinstance(base, cst.Name):
            owner = self.context.owner(base.value)
            if (id(owner), base.value) in self.keras_class_names:
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
        scope = self.context.scope
        if (node not in self.function_mode and node.name.value in KERAS_TRACED_METHODS
                and scope.node in self.keras_classes):
            self.function_mode[node] = "F"

    def _function_decorator_mode(self, decorator: cst.BaseExpression) -> Optional[str]:
        call = decorator if isinstance(decorator, cst.Call) else None
        name = self.context.tf_name(call.func if call else decorator)
        if name is None or name.path != "function":
            return None
        return _autograph_mode(call) if call else "F"

    def _def_owner(self, node: cst.FunctionDef):
        scope = self.context.scope_of(node)
        return None if scope is None else self.context.owner(node.name.value, scope.parent)

    # == function frames ==================================================
    def visit_Parameters(self, node: cst.Parameters) -> None:
        function = self.context.parent
        if not isinstance(function, (cst.FunctionDef, cst.Lambda)):
            return
        self.mode_stack.append(function)
        frame = _Frame(self.context.scope)
        params = [*node.posonly_params, *node.params, *node.kwonly_params]
        for param in params:
            if param.annotation is not None and self._is_tensor_annotation(param):
                frame.kinds[param.name.value] = TENSOR
        for param in self._signature_params(function, params):
            frame.kinds[param.name.value] = TENSOR
        self.frames.append(frame)
        self._cache.clear()

    def _is_tensor_annotation(self, param: cst.Param) -> bool:
        default = param.default
        if isinstance(default, cst.Name) and default.value == "None":
            return False
        name = self.context.tf_name(param.annotation.annotation)
        return name is not None and name.path == "Tensor"

    def _signature_params(self, function, params: List[cst.Param]) -> List[cst.Param]:
        """Parameters fixed to tensors by ``@tf.function(input_signature=[tf.TensorSpec(...)])``."""
        for decorator in getattr(function, "decorators", ()):
            call = decorator.decorator
            if not isinstance(call, cst.Call) or self._function_decorator_mode(call) is None:
                continue
            signature = call_arg(call, 1, "input_signature")
            if signature is None or not isinstance(signature.value, (cst.List, cst.Tuple)):
                return []
            specs = signature.value.elements
            in_class = self.context.scope_of(function).parent.is_class
            positional = [*function.params.posonly_params, *function.params.params][in_class:]
            return [param for param, spec in zip(positional, specs)
                    if isinstance(spec.value, cst.Call)
                    and (self.context.tf_name(spec.value.func) or TFName("", None)).path == "TensorSpec"]
        return []

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._leave_function(node)

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self._leave_function(node)

    def _leave_function(self, node) -> None:
        if self.mode_stack and self.mode_stack[-1] is node:
            self.mode_stack.pop()
            self.frames.pop()
            self._cache.clear()

    def visit_Global(self, node: cst.Global) -> None:
        self.frames[0].escaped.update(n.name.value for n in node.names)
        self._cache.clear()

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        scope = self.context.scope.parent
        for item in node.names:
            owner = self.context.owner(item.name.value, scope) if scope else None
            for frame in self.frames:
                if frame.scope is owner:
                    frame.escaped.add(item.name.value)
        self._cache.clear()


def _autograph_mode(call: cst.Call) -> str:
    arg = call_arg(call, None, "autograph")
    off = arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "False"
    return "F0" if off else "F"
