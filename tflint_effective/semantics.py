"""The semantic model: execution mode of a node, and whether a value is a tensor.

Modes (measured on TensorFlow 2.21, see DESIGN.md):
  G  TF1 graph mode        F   inside tf.function (autograph on)
  F0 tf.function(autograph=False)               E   TF2 eager

The model runs as the first visitor of the engine's single traversal.  Function
modes can be decided by code that comes later (``tf.function(f)`` after ``def
f``), so a report only captures *where* it is; ``mode_of`` settles it after the
traversal.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Set, Tuple

import libcst as cst

from .names import TFName, dotted

# Uses that make a whole module TF1-graph code.
GRAPH_SIGNALS = {
    "disable_eager_execution", "disable_v2_behavior", "Session", "InteractiveSession",
    "placeholder", "placeholder_with_default", "GraphKeys", "get_collection",
    "add_to_collection", "global_variables_initializer", "get_variable", "variable_scope",
    "train.Saver", "log", "Print", "random_normal", "random_uniform", "to_float", "to_int32",
    "truncated_normal", "global_variables", "trainable_variables", "train.AdamOptimizer",
    "train.GradientDescentOptimizer", "train.MomentumOptimizer", "train.RMSPropOptimizer",
    "train.AdagradOptimizer", "train.Optimizer",
}
GRAPH_PREFIXES = ("layers.", "contrib.", "train.", "summary.FileWriter")

# TensorFlow attributes that are not tensors when called (or read).
NOT_TENSOR = {
    "device", "name_scope", "variable_scope", "TensorShape", "DType", "as_dtype",
    "get_static_value", "executing_eagerly", "control_dependencies", "function",
    "is_tensor", "get_default_graph", "Graph", "Session", "GradientTape", "Variable",
    "Module", "print", "Print", "group", "no_op", "TensorSpec", "make_ndarray",
}
NOT_TENSOR_PREFIXES = (
    "config.", "dtypes.", "keras.", "data.", "distribute.", "train.", "summary.",
    "io.gfile.", "saved_model.", "debugging.", "test.", "errors.", "estimator.",
    "compat.", "experimental.", "random.Generator", "sysconfig.", "version",
    "autograph.", "nest.", "types.", "layers.", "initializers.", "optimizers.", "losses.",
    "metrics.", "lookup.", "queue.", "feature_column.", "tpu.", "lite.", "image.resize_",
)
NOT_TENSOR_METHODS = {"numpy", "get_shape", "as_list", "item", "tolist", "shape", "dtype", "name"}


def _is_graph_signal(name: TFName) -> bool:
    return name.compat == "v1" or name.path in GRAPH_SIGNALS or name.path.startswith(GRAPH_PREFIXES)


def returns_tensor(name: TFName) -> bool:
    """Whether calling this TensorFlow API gives a tensor (unknown: no)."""
    path = name.path
    if not path or path in NOT_TENSOR or path.startswith(NOT_TENSOR_PREFIXES):
        return False
    leaf = name.leaf
    # Classes (tf.Variable, tf.TensorArray, ...) and private helpers are not tensors.
    return leaf[:1].islower() and not leaf.startswith("_")


class SemanticModel(cst.BatchableCSTVisitor):
    """Collects mode signals during the traversal; answers mode and tensor questions."""

    def __init__(self, context):
        super().__init__()
        self.context = context
        self.module_graph = False
        self.graph_blocks = 0  # depth of ``with tf.Graph().as_default():``
        self.function_mode: Dict[cst.CSTNode, str] = {}
        self.traced_names: Set[Tuple[object, str, str]] = set()

    # -- signals ----------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if alias.asname is not None and dotted(alias.name) == "tensorflow.compat.v1":
                self.module_graph = True

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted(node.module) if node.module is not None else None
        if module == "tensorflow.compat" and not isinstance(node.names, cst.ImportStar):
            if any(a.name.value == "v1" for a in node.names):
                self.module_graph = True

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.module_graph or isinstance(self.context.parent, cst.Attribute):
            return  # only the outermost attribute of a chain is resolved
        name = self.context.tf_name(node)
        if name is not None and _is_graph_signal(name):
            self.module_graph = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            mode = self._function_decorator_mode(decorator.decorator)
            if mode:
                self.function_mode[node] = mode

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_name(node.func)
        if name is None or name.path != "function" or not node.args:
            return
        target = node.args[0].value
        if isinstance(target, cst.Name) and node.args[0].keyword is None:
            scope = self.context.scope
            owner = self.context.resolver.owner(target.value, scope)
            self.traced_names.add((id(owner), target.value, _autograph_mode(node)))

    def visit_With(self, node: cst.With) -> None:
        if any(self._is_graph_context(item.item) for item in node.items):
            self.graph_blocks += 1

    def leave_With(self, node: cst.With) -> None:
        if any(self._is_graph_context(item.item) for item in node.items):
            self.graph_blocks -= 1

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

    def _function_decorator_mode(self, decorator: cst.BaseExpression) -> Optional[str]:
        call = decorator if isinstance(decorator, cst.Call) else None
        name = self.context.tf_name(call.func if call else decorator)
        if name is None or name.path != "function":
            return None
        return _autograph_mode(call) if call else "F"

    # -- questions --------------------------------------------------------
    def mode_thunk(self, node: cst.CSTNode) -> Callable[[], str]:
        functions = [s for s in self.context.scopes if isinstance(s.node, cst.FunctionDef)]
        in_graph_block = self.graph_blocks > 0

        def settle() -> str:
            for scope in reversed(functions):
                mode = self.function_mode.get(scope.node)
                if mode is None and scope.parent is not None:
                    for candidate in ("F", "F0"):
                        if (id(scope.parent), scope.node.name.value, candidate) in self.traced_names:
                            mode = candidate
                if mode is not None:
                    return mode
            if in_graph_block or self.module_graph:
                return "G"
            return "E"

        return settle

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        """True only when ``expr`` is certainly a tensor (unknown: False)."""
        if isinstance(expr, cst.Call):
            name = self.context.tf_name(expr.func)
            return name is not None and returns_tensor(name)
        if isinstance(expr, cst.BinaryOperation):
            return self.is_tensor(expr.left) or self.is_tensor(expr.right)
        if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            return self.is_tensor(expr.expression)
        if isinstance(expr, cst.Subscript):
            return self.is_tensor(expr.value)
        if isinstance(expr, cst.Name):
            value = self.context.assigned_value(expr)
            return value is not None and self.is_tensor(value)
        return False


def _autograph_mode(call: cst.Call) -> str:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "autograph":
            if isinstance(arg.value, cst.Name) and arg.value.value == "False":
                return "F0"
    return "F"

