"""The semantic model: execution mode of a node, and whether a value is a tensor.

The model runs as the first visitor of the engine's single traversal.

Modes: ``modes.py`` (signals per scope, settled after the traversal).
Tensor-ness: ``kinds.py`` (kinds of expressions) over ``flow.py`` (flow-sensitive
kinds of names).

Known blind spots: names rebound by a walrus inside a loop before a use in the
same loop; ``==`` / ``!=`` are never tensors here (in TF1 graph mode they
compare identities), rules that care ask about the operands.
"""
from __future__ import annotations

import weakref
from typing import Dict, List, Optional, Tuple

import libcst as cst

from .callers import CallerModes
from .flow import Flow, _Branch, _Frame
from .kinds import DATASET, SCALAR, TENSOR, TENSOR_KINDS, Kinds
from .modes import Modes
from .summaries import Summaries
from .syntax import call_arg
from .tf_api import SHAPE_VECTORS, TFName


class SemanticModel(Modes, CallerModes, Flow, Kinds, cst.BatchableCSTVisitor):
    """Collects mode signals and name kinds during the traversal; answers questions."""

    def __init__(self, context, table, function_decorators=(), python2=False):
        super().__init__()
        self.context = weakref.proxy(context)  # the context holds this model
        self.summaries = Summaries(context.module, table, weakref.proxy(self))
        self.frames: List[_Frame] = [_Frame(context.module_scope)]
        self.branches: List[_Branch] = []
        self.loops: List[Dict[str, str]] = []
        self._cache: Dict[int, Tuple[cst.CSTNode, Optional[str]]] = {}  # id(expr) -> (expr, kind)
        self._static: Dict[int, Optional[str]] = {}
        self._init_modes(function_decorators, python2)

    # == questions ========================================================
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

    def kind(self, expr: cst.BaseExpression) -> Optional[str]:
        # keyed by id (a node's hash is a Python call); the entry holds the node, so its id is not reused
        known = self._cache.get(id(expr))
        if known is None:
            known = self._cache[id(expr)] = (expr, self._kind(expr, self.context.scope, True))
        return known[1]

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
            elif isinstance(function, cst.FunctionDef):
                frame.lazy.add(param.name.value)
        for param in self._signature_params(function, params):
            frame.kinds[param.name.value] = TENSOR
            frame.lazy.discard(param.name.value)
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
