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

Tensor-ness is flow-sensitive within a function.  Each function (and the
module) has a table name -> kind, updated as assignments are left, so at any
node the table describes the program point before it.  Branches merge: a name
keeps a kind only if every path reaching the use agrees.  At a loop head, a
name bound in the loop keeps its kind only if every binding in the loop
re-establishes it (checked to a fixed point before the body is entered);
after ``try`` the names bound in its body are unknown to the handlers.  Names
read from an enclosing function or the module (closures, globals) are judged
flow-insensitively: every binding must agree.  Unknown is never a tensor.

Known blind spots: names rebound by a walrus inside a loop before a use in the
same loop; ``==`` / ``!=`` are never tensors here (in TF1 graph mode they
compare identities), rules that care ask about the operands.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple

import libcst as cst

from .names import TFName, dotted, tf_name
from .rule import call_arg, has_star_args

# Kinds of values.  SCALAR is a tensor of rank 0; NUMBER a Python int/float literal.
TENSOR, SCALAR, DATASET, NUMBER = "tensor", "scalar", "dataset", "number"
TENSOR_KINDS = (TENSOR, SCALAR)

# Uses that mean graph execution whatever the import (tf.compat.v1.Session in TF2 code).
GRAPH_APIS = {
    "disable_eager_execution", "disable_v2_behavior", "Session", "InteractiveSession",
    "placeholder", "sparse_placeholder", "GraphKeys", "get_collection", "get_collection_ref",
    "add_to_collection", "add_to_collections", "global_variables_initializer",
    "local_variables_initializer", "variables_initializer", "initialize_all_variables",
    "tables_initializer", "train.Saver", "train.MonitoredTrainingSession", "summary.FileWriter",
}
# Names only TensorFlow 1.x has: under plain ``tensorflow`` they mean TF1 code (graph by default).
TF1_ONLY = {
    "log", "Print", "random_normal", "random_uniform", "truncated_normal", "to_float",
    "to_int32", "to_int64", "get_variable", "variable_scope", "global_variables",
    "trainable_variables", "set_random_seed", "reset_default_graph", "get_default_graph",
    "assign", "assign_add", "summary.merge_all",
}
TF1_ONLY_PREFIXES = ("layers.", "contrib.", "nn.rnn_cell.")
EAGER_SIGNALS = {"enable_eager_execution", "enable_v2_behavior"}

# Calls that trace the function given as first argument, and the mode its body runs in.
TRACERS = {"function": "F", "autograph.to_graph": "F", "wrap_function": "F0",
           "py_function": "E", "numpy_function": "E", "py_func": "E"}
TRACED_KEYWORDS = ("func", "entity", "fn", "python_function", "map_func", "predicate")
DATASET_TRACERS = {"map", "filter", "flat_map", "interleave"}
DATASET_METHODS = DATASET_TRACERS | {
    "batch", "padded_batch", "shuffle", "repeat", "prefetch", "take", "skip", "cache", "unbatch",
    "shard", "concatenate", "enumerate", "with_options", "take_while", "rebatch", "ragged_batch",
}
RECORD_DATASETS = {"data.TFRecordDataset", "data.TextLineDataset", "data.FixedLengthRecordDataset"}
KERAS_TRACED_METHODS = {"call", "train_step", "test_step", "predict_step"}

# TensorFlow attributes that are not tensors when called (or read).
NOT_TENSOR = {
    "device", "name_scope", "variable_scope", "TensorShape", "DType", "as_dtype",
    "get_static_value", "executing_eagerly", "control_dependencies", "function",
    "is_tensor", "get_default_graph", "Graph", "Session", "GradientTape", "Variable",
    "Module", "print", "Print", "group", "no_op", "TensorSpec", "make_ndarray",
    "get_variable", "get_variable_scope", "make_tensor_proto", "get_logger", "inside_function",
    "executing_eagerly_outside_functions", "get_current_name_scope", "init_scope",
    "set_random_seed", "random.set_seed", "reset_default_graph", "get_default_session",
    "add_to_collection", "get_collection", "global_variables", "trainable_variables",
    "load_op_library", "load_library", "io.write_file", "Assert", "custom_gradient",
    "recompute_grad", "py_function", "numpy_function", "py_func", "tuple", "gradients",
    "map_fn", "while_loop", "cond", "case", "switch_case", "scan", "foldl", "foldr",
    "vectorized_map", "unstack", "split", "meshgrid", "unique", "unique_with_counts",
    "dynamic_partition", "identity_n", "setdiff1d", "clip_by_global_norm", "math.top_k",
    "nn.top_k", "nn.moments", "nn.weighted_moments", "nn.sufficient_statistics",
    "nn.normalize_moments", "nn.dynamic_rnn", "nn.bidirectional_dynamic_rnn", "nn.static_rnn",
    "nn.ctc_beam_search_decoder", "nn.ctc_greedy_decoder", "nn.max_pool_with_argmax",
    "nn.fractional_max_pool", "nn.fractional_avg_pool", "linalg.eig", "linalg.eigh",
    "linalg.svd", "linalg.qr", "linalg.lu", "strings.split", "strings.unicode_split",
    "io.parse_example", "io.parse_single_example", "io.parse_sequence_example",
    "io.parse_single_sequence_example", "random.get_global_generator", "random.set_global_generator",
    "random.create_rng_state", "nn.raw_rnn", "nn.static_bidirectional_rnn", "nn.static_state_saving_rnn",
    "nn.fused_batch_norm", "nn.ctc_unique_labels", "nn.collapse_repeated", "nn.compute_accidental_hits",
    "image.combined_non_max_suppression", "image.non_max_suppression_padded",
    "image.non_max_suppression_with_scores", "image.sample_distorted_bounding_box", "linalg.slogdet",
    "math.approx_max_k", "math.approx_min_k", "strings.unicode_decode", "strings.unicode_decode_with_offsets",
    "strings.unicode_split_with_offsets", "io.decode_csv", "io.decode_proto", "audio.decode_wav", "shape_n",
    "broadcast_static_shape", "variable_creator_scope", "colocate_with", "container", "get_seed",
    "make_template", "get_local_variable", "local_variables", "model_variables", "moving_average_variables",
    "all_variables", "import_graph_def", "add_check_numerics_ops", "control_flow_v2_enabled",
    "is_symbolic_tensor", "hessians", "register_tensor_conversion_function", "no_gradient",
}
NOT_TENSOR_PREFIXES = (
    "config.", "dtypes.", "keras.", "data.", "distribute.", "train.", "summary.",
    "io.gfile.", "saved_model.", "debugging.", "test.", "errors.", "estimator.",
    "compat.", "experimental.", "random.Generator", "random.experimental.", "sysconfig.",
    "version", "autograph.", "nest.", "types.", "layers.", "initializers.", "optimizers.",
    "losses.", "metrics.", "lookup.", "queue.", "feature_column.", "tpu.", "lite.",
    "image.resize_", "sparse.", "ragged.", "raw_ops.", "contrib.", "linalg.experimental.",
)
# Public modules whose functions give tensors (``tensorflow.python.*`` and the like are internals).
TENSOR_MODULES = {"math", "nn", "linalg", "random", "image", "signal", "strings", "bitwise", "audio",
                  "io", "quantization", "manip", "spectral"}
# Reductions that give a scalar when called without an axis.
SCALAR_REDUCTIONS = {
    f"{prefix}{name}" for prefix in ("", "math.")
    for name in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
                 "reduce_any", "reduce_all", "reduce_logsumexp", "count_nonzero",
                 "reduce_std", "reduce_variance", "reduce_euclidean_norm")
}
SCALAR_APIS = {"rank", "size", "norm", "linalg.norm"}  # norm: scalar without axis too
SHAPE_VECTORS = {"shape", "shape_n"}
ARITHMETIC_COMPARISONS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
JUMPS = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def _is_graph_signal(name: TFName) -> bool:
    if name.path in GRAPH_APIS:
        return True
    return name.compat is None and (name.path in TF1_ONLY or name.path.startswith(TF1_ONLY_PREFIXES)
                                    or name.path.startswith("train.") and name.path.endswith("Optimizer"))


def returns_tensor(name: TFName) -> bool:
    """Whether calling this TensorFlow API gives a tensor (unknown: no)."""
    path = name.path
    if not path or path in NOT_TENSOR or path.startswith(NOT_TENSOR_PREFIXES):
        return False
    if "." in path and path.split(".", 1)[0] not in TENSOR_MODULES:
        return False
    leaf = name.leaf
    if leaf.startswith(("assert_", "_", "enable_", "disable_")) or leaf.endswith("candidate_sampler"):
        return False
    if "initializer" in leaf:
        return False
    return leaf[:1].islower()  # classes (tf.Variable, tf.TensorArray, ...) are not tensors


def merge(a: Optional[str], b: Optional[str]) -> Optional[str]:
    """The kind a value has on both paths (a scalar is a tensor)."""
    if a == b:
        return a
    return TENSOR if {a, b} == {TENSOR, SCALAR} else None


def _refines(kind: Optional[str], hypothesis: Optional[str]) -> bool:
    return kind == hypothesis or (hypothesis == TENSOR and kind == SCALAR)


def _ends_with_jump(block: cst.BaseSuite) -> bool:
    body = block.body
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, JUMPS)


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)


def _pairs(target, value) -> Iterator[Tuple[str, Optional[cst.BaseExpression]]]:
    """(name, value bound to it) for an assignment target; None when unknown."""
    if isinstance(target, cst.Name):
        yield target.value, value
    elif (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))
          and len(target.elements) == len(value.elements)
          and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))):
        for t, v in zip(target.elements, value.elements):
            yield from _pairs(t.value, v.value)
    else:
        for name in _target_names(target):
            yield name, None


def bindings_in(statements: Iterable[cst.CSTNode]) -> Iterator[Tuple[str, cst.CSTNode]]:
    """Every (name, binding node) in a list of statements, not entering nested scopes.

    The binding node is an Assign, AnnAssign or AugAssign (its value is known),
    or anything else (a loop target, an import, ``del``...: unknown value).
    """
    for stmt in statements:
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                yield from _small_bindings(small)
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            yield stmt.name.value, stmt
            continue
        if isinstance(stmt, cst.For):
            yield from ((name, stmt) for name in _target_names(stmt.target))
        elif isinstance(stmt, cst.With):
            yield from ((name, stmt) for item in stmt.items if item.asname
                        for name in _target_names(item.asname.name))
        for handler in getattr(stmt, "handlers", ()):
            if handler.name is not None:
                yield from ((name, handler) for name in _target_names(handler.name.name))
            yield from bindings_in(handler.body.body)
        for case in getattr(stmt, "cases", ()):
            yield from bindings_in(case.body.body)
        body = getattr(stmt, "body", None)
        if isinstance(body, cst.BaseSuite):
            yield from bindings_in(body.body if isinstance(body, cst.IndentedBlock) else [body])
        orelse = getattr(stmt, "orelse", None)
        if orelse is not None:
            yield from bindings_in([orelse] if isinstance(orelse, cst.If) else orelse.body.body)
        final = getattr(stmt, "finalbody", None)
        if final is not None:
            yield from bindings_in(final.body.body)


def _small_bindings(small: cst.BaseSmallStatement) -> Iterator[Tuple[str, cst.CSTNode]]:
    if isinstance(small, cst.Assign):
        for target in small.targets:
            yield from ((name, small) for name in _target_names(target.target))
    elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        yield from ((name, small) for name in _target_names(small.target))
    elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
        for alias in small.names:
            name = alias.asname.name if alias.asname else alias.name
            yield (dotted(name) or "").split(".")[0], small
    elif isinstance(small, cst.Del):
        yield from ((name, small) for name in _target_names(small.target))


@dataclass
class _Frame:
    """Flow-sensitive kinds of the names a function (or the module) owns."""

    scope: object
    kinds: Dict[str, str] = field(default_factory=dict)
    escaped: Set[str] = field(default_factory=set)  # rebound by ``global`` / ``nonlocal``


@dataclass
class _Branch:
    saved: Dict[str, str]
    outs: List[Dict[str, str]] = field(default_factory=list)
    after_body: Optional[Dict[str, str]] = None  # try: the normal path
    else_jumps: bool = False  # if: the else block never falls through
    merged: bool = False


class SemanticModel(cst.BatchableCSTVisitor):
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
        self.frames: List[_Frame] = [_Frame(context.table.root)]
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
            owner = self.context.resolver.owner(target.value.value, self.context.scope)
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
            owner = self.context.resolver.owner(base.value, self.context.scope)
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
        scope = self.context.table.scopes.get(node)
        return None if scope is None else self.context.resolver.owner(node.name.value, scope.parent)

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
            in_class = self.context.table.scopes[function].parent.is_class
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
            owner = self.context.resolver.owner(item.name.value, scope) if scope else None
            for frame in self.frames:
                if frame.scope is owner:
                    frame.escaped.add(item.name.value)
        self._cache.clear()

    # == bindings =========================================================
    @property
    def env(self) -> Dict[str, str]:
        return self.frames[-1].kinds

    def _set_env(self, kinds: Dict[str, str]) -> None:
        self.frames[-1].kinds = kinds
        self._cache.clear()

    def _bind(self, pairs: Iterable[Tuple[str, Optional[str]]]) -> None:
        frame = self.frames[-1]
        for name, kind in list(pairs):
            if self.context.resolver.owner(name, self.context.scope) is not frame.scope:
                continue  # a class attribute, a global: judged flow-insensitively
            if kind is None or name in frame.escaped:
                frame.kinds.pop(name, None)
            else:
                frame.kinds[name] = kind
        self._cache.clear()

    def _kill(self, bindings: Iterable[Tuple[str, object]]) -> None:
        self._bind((name, None) for name, _ in bindings)

    def leave_Assign(self, node: cst.Assign) -> None:
        self._bind((name, self._value_kind(value)) for target in node.targets
                   for name, value in _pairs(target.target, node.value))

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind((name, self._value_kind(value)) for name, value in _pairs(node.target, node.value))

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind([(name, self._augmented_kind(node)) for name in _target_names(node.target)])

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind((name, self.kind(node.value)) for name in _target_names(node.target))

    def leave_Del(self, node: cst.Del) -> None:
        self._kill((name, node) for name in _target_names(node.target))

    def visit_AsName(self, node: cst.AsName) -> None:
        if isinstance(self.context.parent, cst.WithItem):
            self._kill((name, node) for name in _target_names(node.name))

    def _value_kind(self, value: Optional[cst.BaseExpression]) -> Optional[str]:
        return None if value is None else self.kind(value)

    def _augmented_kind(self, node: cst.AugAssign) -> Optional[str]:
        operator = type(node.operator).__name__.replace("Assign", "")
        if not isinstance(node.target, cst.Name):
            return None
        return _arithmetic(operator, self.kind(node.target), self.kind(node.value))

    # == control flow =====================================================
    def visit_If(self, node: cst.If) -> None:
        self.branches.append(_Branch(dict(self.env)))

    def leave_If(self, node: cst.If) -> None:
        branch = self.branches.pop()
        self._set_env(_merge_all([*branch.outs, None if branch.else_jumps else self.env]))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_block(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_block(node)

    def _enter_block(self, node: cst.BaseSuite) -> None:
        parent = self.context.parent
        if isinstance(parent, cst.If) and parent.body is node and self._tests_eager(parent.test):
            self.function_mode[node] = "E"  # a graph or tf.function never runs it
            self.mode_stack.append(node)

    def _tests_eager(self, test: cst.BaseExpression) -> bool:
        """``tf.executing_eagerly()``, possibly ``and``-ed with other conditions."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self._tests_eager(test.left) or self._tests_eager(test.right)
        name = self.context.tf_call(test)
        return name is not None and name.leaf == "executing_eagerly"

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._leave_block(node)

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._leave_block(node)

    def _leave_block(self, node: cst.BaseSuite) -> None:
        if self.mode_stack and self.mode_stack[-1] is node:
            self.mode_stack.pop()
        parent = self.context.parent
        if isinstance(parent, cst.If) and parent.body is node:
            branch = self.branches[-1]
            if not _ends_with_jump(node):
                branch.outs.append(self.env)
            self._set_env(dict(branch.saved))
        elif isinstance(parent, (cst.Try, cst.TryStar)) and parent.body is node:
            self.branches[-1].after_body = self.env

    def visit_Try(self, node: cst.Try) -> None:
        branch = _Branch(dict(self.env))
        for name, _ in bindings_in(node.body.body):
            branch.saved.pop(name, None)  # a handler may start anywhere in the body
        self.branches.append(branch)

    visit_TryStar = visit_Try

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._set_env(dict(self.branches[-1].saved))
        if node.name is not None:
            self._kill((name, node) for name in _target_names(node.name.name))

    visit_ExceptStarHandler = visit_ExceptHandler

    def leave_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if not _ends_with_jump(node.body):
            self.branches[-1].outs.append(self.env)

    leave_ExceptStarHandler = leave_ExceptHandler

    def visit_Else(self, node: cst.Else) -> None:
        parent = self.context.parent
        if isinstance(parent, (cst.Try, cst.TryStar)):
            self._set_env(self.branches[-1].after_body)
        elif isinstance(parent, (cst.For, cst.While)):
            self._set_env(dict(self.loops[-1]))  # runs when the loop head exits

    def leave_Else(self, node: cst.Else) -> None:
        parent = self.context.parent
        if isinstance(parent, (cst.Try, cst.TryStar)):
            self.branches[-1].after_body = self.env
        elif isinstance(parent, cst.If):
            self.branches[-1].else_jumps = _ends_with_jump(node.body)

    def visit_Finally(self, node: cst.Finally) -> None:
        branch = self.branches[-1]
        self._set_env(_merge_all([branch.after_body, *branch.outs]))
        branch.merged = True

    def leave_Try(self, node: cst.Try) -> None:
        branch = self.branches.pop()
        if not branch.merged:
            self._set_env(_merge_all([branch.after_body, *branch.outs]))

    leave_TryStar = leave_Try

    def visit_Match(self, node: cst.Match) -> None:
        self.branches.append(_Branch(dict(self.env)))

    def visit_MatchCase(self, node: cst.MatchCase) -> None:
        self._set_env(dict(self.branches[-1].saved))

    def leave_MatchCase(self, node: cst.MatchCase) -> None:
        self.branches[-1].outs.append(self.env)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self._kill([(node.name.value, node)])

    def leave_Match(self, node: cst.Match) -> None:
        branch = self.branches.pop()
        self._set_env(_merge_all([*branch.outs, branch.saved]))

    def visit_For(self, node: cst.For) -> None:
        self._enter_loop([node], node)

    def visit_While(self, node: cst.While) -> None:
        self._enter_loop(node.body.body, node)

    def _enter_loop(self, statements, node) -> None:
        """Kinds at the loop head: a name bound in the loop keeps its kind only if
        every binding in the loop gives it again, assuming the others do (fixed point)."""
        bound = list(bindings_in(statements if isinstance(node, cst.While) else [node]))
        if isinstance(node, cst.While) and node.orelse is not None:
            bound += bindings_in(node.orelse.body.body)
        head = dict(self.env)
        changed = True
        while changed:
            changed = False
            self._set_env(head)
            for name, binding in bound:
                if name in head and not _refines(self._binding_kind(name, binding), head[name]):
                    kind = merge(head.pop(name), self._binding_kind(name, binding))
                    if kind is not None:
                        head[name] = kind
                    changed = True
                    break
        self._set_env(dict(head))
        self.loops.append(head)

    def _binding_kind(self, name: str, binding: cst.CSTNode) -> Optional[str]:
        if isinstance(binding, cst.Assign):
            kinds = [self._value_kind(value) for target in binding.targets
                     for bound, value in _pairs(target.target, binding.value) if bound == name]
            return kinds[0] if len(set(kinds)) == 1 else None
        if isinstance(binding, cst.AnnAssign):
            return next((self._value_kind(v) for n, v in _pairs(binding.target, binding.value) if n == name),
                        None)
        if isinstance(binding, cst.AugAssign):
            return self._augmented_kind(binding)
        return None

    def leave_For(self, node: cst.For) -> None:
        self._set_env(dict(self.loops.pop()))

    leave_While = leave_For

    # == kinds of expressions =============================================
    def _kind(self, expr: cst.BaseExpression, scope, flow: bool) -> Optional[str]:
        if isinstance(expr, cst.Name):
            return self._name_kind(expr.value, scope, flow)
        if isinstance(expr, (cst.Integer, cst.Float)):
            return NUMBER
        if isinstance(expr, cst.Call):
            return self._call_kind(expr, scope, flow)
        if isinstance(expr, cst.BinaryOperation):
            return _arithmetic(type(expr.operator).__name__, self._kind(expr.left, scope, flow),
                               self._kind(expr.right, scope, flow))
        if isinstance(expr, cst.Comparison):
            if len(expr.comparisons) != 1 or not isinstance(expr.comparisons[0].operator,
                                                            ARITHMETIC_COMPARISONS):
                return None
            return _arithmetic("Compare", self._kind(expr.left, scope, flow),
                               self._kind(expr.comparisons[0].comparator, scope, flow))
        if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            return self._kind(expr.expression, scope, flow)
        if isinstance(expr, cst.Subscript):
            return TENSOR if self._kind(expr.value, scope, flow) in TENSOR_KINDS else None
        if isinstance(expr, cst.IfExp):
            return merge(self._kind(expr.body, scope, flow), self._kind(expr.orelse, scope, flow))
        if isinstance(expr, cst.NamedExpr):
            return self._kind(expr.value, scope, flow)
        return None

    def _name_kind(self, name: str, scope, flow: bool) -> Optional[str]:
        owner = self.context.resolver.owner(name, scope)
        if owner is None:
            return None
        frame = self.frames[-1]
        if flow and owner is frame.scope:
            return None if name in frame.escaped else frame.kinds.get(name)
        if owner is self.context.table.root and name in self.frames[0].escaped:
            return None
        bindings = owner.bindings[name]
        kinds = {self._static_kind(binding) for binding in bindings}
        return kinds.pop() if len(kinds) == 1 else merge(*kinds) if len(kinds) == 2 else None

    def _static_kind(self, binding) -> Optional[str]:
        """The kind of a binding's value, whatever the program point (closures, globals)."""
        key = id(binding)
        if key not in self._static:
            self._static[key] = None  # a binding that refers to itself is unknown
            value = getattr(binding, "value", None)
            if isinstance(value, cst.BaseExpression):
                self._static[key] = self._kind(value, binding.scope, False)
        return self._static[key]

    def _call_kind(self, call: cst.Call, scope, flow: bool) -> Optional[str]:
        func = call.func
        name = tf_name(self.context.resolver.qualname(func, scope))
        if name is None:
            if (isinstance(func, cst.Attribute) and func.attr.value in DATASET_METHODS
                    and self._kind(func.value, scope, flow) == DATASET):
                return DATASET
            return None
        if name.path in RECORD_DATASETS or (name.path.startswith("data.Dataset.")
                                            and name.leaf[:1].islower()):
            return DATASET
        if not returns_tensor(name):
            return None
        return SCALAR if self._is_scalar_call(name, call, scope, flow) else TENSOR

    def _is_scalar_call(self, name: TFName, call: cst.Call, scope, flow: bool) -> bool:
        if has_star_args(call):
            return False
        if name.path in SCALAR_REDUCTIONS or name.path in SCALAR_APIS:
            if name.path in SCALAR_APIS - {"norm", "linalg.norm"}:
                return True
            axis = call_arg(call, 1, "axis") or call_arg(call, None, "reduction_indices")
            keep = call_arg(call, None, "keepdims") or call_arg(call, None, "keep_dims")
            if name.path in ("norm", "linalg.norm"):
                axis = call_arg(call, 2, "axis")
            return (axis is None or _is_none(axis.value)) and (keep is None or _is_false(keep.value))
        if name.path in ("constant", "convert_to_tensor", "cast", "identity", "stop_gradient"):
            first = call_arg(call, 0, "value" if name.path != "cast" else "x")
            if first is None:
                return False
            value = first.value
            if isinstance(value, cst.UnaryOperation):
                value = value.expression
            return (self._kind(value, scope, flow) in (NUMBER, SCALAR)
                    or isinstance(value, cst.Name) and value.value in ("True", "False"))
        return False


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def _is_false(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"


def _arithmetic(operator: str, left: Optional[str], right: Optional[str]) -> Optional[str]:
    """The kind of ``left <op> right``: a tensor when either side is (``%`` needs the left:
    ``"%s" % t`` is a string)."""
    if left == NUMBER and right == NUMBER:
        return NUMBER
    if operator == "Modulo" and left not in TENSOR_KINDS:
        return None
    if left not in TENSOR_KINDS and right not in TENSOR_KINDS:
        return None
    scalar = left in (SCALAR, NUMBER) and right in (SCALAR, NUMBER) and operator != "MatrixMultiply"
    return SCALAR if scalar else TENSOR


def _merge_all(envs: List[Optional[Dict[str, str]]]) -> Dict[str, str]:
    envs = [env for env in envs if env is not None]
    if not envs:
        return {}
    result = dict(envs[0])
    for env in envs[1:]:
        for name in list(result):
            kind = merge(result[name], env.get(name))
            if kind is None:
                del result[name]
            else:
                result[name] = kind
    return result


def _autograph_mode(call: cst.Call) -> str:
    arg = call_arg(call, None, "autograph")
    off = arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "False"
    return "F0" if off else "F"
