"""Every table of TensorFlow API names the analysis and the rules use.

A name is a ``TFName``: the path below ``tensorflow`` with any ``compat.v1`` /
``compat.v2`` prefix removed and remembered (``tf1.math.log`` is
``TFName("math.log", "v1")``).  Many ops have a ``tf.math`` twin of a root or
``tf.nn`` name; ``canonical`` folds a twin onto one spelling, and
``with_math(...)`` spells both, so no table writes ``"math."`` twins by hand.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional, Sequence

TENSORFLOW = "tensorflow"
# Modules that re-export TensorFlow under another name (the ``tensorflow-modules`` setting adds more).
SHIMS = {
    "keras.src.utils.module_utils.tensorflow": TENSORFLOW,
}


# Functions that import TensorFlow and return it: RLlib's ``try_import_tf``.  Assigned to one
# name it gives ``tensorflow.compat.v1`` with v2 behaviour disabled (graph mode); unpacked,
# ``tf1, tf, tfv = try_import_tf()`` gives compat.v1, ``tensorflow`` (1.x or 2.x) and the version.
TF_IMPORTERS = frozenset({"ray.rllib.utils.try_import_tf", "ray.rllib.utils.framework.try_import_tf"})
TF_IMPORTED = ("tensorflow.compat.v1", TENSORFLOW)  # the modules, by position in the tuple


def shims(tensorflow_modules: Sequence[str] = ()) -> Dict[str, str]:
    """Qualified names that stand for the ``tensorflow`` module."""
    return {**SHIMS, **{module: TENSORFLOW for module in tensorflow_modules}}


def with_math(*names: str) -> FrozenSet[str]:
    """``names`` and their ``tf.math`` twins: ``with_math("log") == {"log", "math.log"}``."""
    return frozenset(n for name in names for n in (name, f"math.{name.rpartition('.')[2]}"))


# ``tf.math.X`` names that are also spelled at the root or in ``tf.nn`` (their canonical spelling).
_MATH_TWINS = {
    **{name: name for name in (
        "log", "exp", "sqrt", "square", "abs", "maximum", "minimum", "sigmoid", "divide", "truediv",
        "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
        "reduce_all", "reduce_logsumexp", "count_nonzero", "equal", "not_equal", "log1p", "tanh")},
    "softmax": "nn.softmax", "log_softmax": "nn.log_softmax",
}


@dataclass(frozen=True)
class TFName:
    """A TensorFlow API name with the ``tensorflow.`` and compat prefix removed."""

    path: str  # e.g. "math.reduce_sum", "nn.softmax", "Print"
    compat: Optional[str]  # "v1", "v2" or None

    @functools.cached_property  # asked of most calls by several rules
    def leaf(self) -> str:
        return self.path.rsplit(".", 1)[-1]

    @property
    def canonical(self) -> str:
        """The path with a ``tf.math`` twin folded onto its root or ``tf.nn`` spelling."""
        if self.path.startswith("math."):
            return _MATH_TWINS.get(self.path[5:], self.path)
        return self.path

    @property
    def is_v1(self) -> bool:
        """Spelled through ``tensorflow.compat.v1``: TensorFlow 1.x behaviour in any version."""
        return self.compat == "v1"


@functools.lru_cache(maxsize=4096)  # a few hundred qualified names per file, asked again and again
def tf_name(qualname: Optional[str]) -> Optional[TFName]:
    if qualname is None or not (qualname == TENSORFLOW or qualname.startswith("tensorflow.")):
        return None
    path = qualname[len("tensorflow."):] if qualname != TENSORFLOW else ""
    compat = None
    for version in ("v1", "v2"):
        prefix = f"compat.{version}"
        if path == prefix or path.startswith(prefix + "."):
            compat, path = version, path[len(prefix) + 1:]
            break
    return TFName(path, compat)


# Reductions that reduce every dimension when called without an axis.
REDUCTIONS = ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
              "reduce_all", "reduce_logsumexp", "count_nonzero")
MATH_ONLY_REDUCTIONS = ("reduce_std", "reduce_variance", "reduce_euclidean_norm")

# -- numerics (TFE401-TFE405) -------------------------------------------------------
LOG = with_math("log")
EXP = with_math("exp")
SOFTMAX = with_math("nn.softmax")
LOG_SOFTMAX = with_math("nn.log_softmax")
SIGMOID = with_math("sigmoid") | {"nn.sigmoid"}
REDUCE_SUM = with_math("reduce_sum")
REDUCE_MAX = with_math("reduce_max")
REDUCE_LOGSUMEXP = with_math("reduce_logsumexp")
# Samplers whose first argument (``logits``) is unnormalised log-probabilities.
SAMPLERS = {"multinomial", "random.categorical", "random.multinomial"}
# The index of the largest input: -inf in a log-probability never holds it.
ARGMAX = with_math("argmax") | {"arg_max"}
# The k largest inputs and their indices (a beam search step): -inf is never among them while k is small.
TOP_K = {"nn.top_k", "math.top_k"}
DIVISIONS = with_math("divide", "truediv")
# Layers whose output is their ``activation`` applied last (TFE402-TFE404 see a softmax or
# sigmoid there): the position of the ``activation`` parameter, None for keyword only.
ACTIVATED_LAYER_FUNCTIONS = {  # tf.layers / tf.compat.v1.layers functions
    "layers.dense": 2, **dict.fromkeys(("layers.conv1d", "layers.conv2d", "layers.conv3d",
                                        "layers.conv2d_transpose", "layers.conv3d_transpose",
                                        "layers.separable_conv1d", "layers.separable_conv2d"))}
ACTIVATED_LAYER_CLASSES = {  # Keras layers (and the tf.layers classes), by class name
    "Dense": 1, "Activation": 0, **dict.fromkeys((
        "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
        "SeparableConv1D", "SeparableConv2D", "DepthwiseConv1D", "DepthwiseConv2D", "EinsumDense"))}
# Keras activation names (``activation="softmax"``, ``keras.activations.sigmoid``) as the TF op they are.
KERAS_ACTIVATIONS = {"softmax": "nn.softmax", "sigmoid": "sigmoid"}

# -- execution modes and tensor-ness (semantics) -----------------------------------
# Uses that mean graph execution whatever the import (tf.compat.v1.Session in TF2 code).
GRAPH_APIS = {
    "disable_eager_execution", "disable_v2_behavior", "Session", "InteractiveSession",
    "placeholder", "sparse_placeholder", "GraphKeys", "get_collection", "get_collection_ref",
    "add_to_collection", "add_to_collections", "global_variables_initializer",
    "local_variables_initializer", "variables_initializer", "initialize_all_variables",
    "tables_initializer", "train.Saver", "train.MonitoredTrainingSession", "summary.FileWriter",
}
# Names only TensorFlow 1.x has: under plain ``tensorflow`` they mean TF1 code (graph by default).
# The root names of ``tf.compat.v1`` that TF 2's root lacks (a test checks them against the installed
# TensorFlow), without the switches that turn TF 2 behaviour on or off (``EAGER_SIGNALS``, ``GRAPH_APIS``).
TF1_ONLY = {
    "AttrValue", "ConditionalAccumulator", "ConditionalAccumulatorBase", "ConfigProto", "Dimension", "Event",
    "FIFOQueue", "FixedLenFeature", "FixedLenSequenceFeature", "FixedLengthRecordReader", "GPUOptions", "GraphDef",
    "GraphKeys", "GraphOptions", "HistogramProto", "IdentityReader", "InteractiveSession", "LMDBReader",
    "LogMessage", "MetaGraphDef", "NameAttrList", "NoGradient", "NodeDef", "NotDifferentiable", "OpError",
    "OptimizerOptions", "PaddingFIFOQueue", "Print", "PriorityQueue", "QueueBase", "RandomShuffleQueue",
    "ReaderBase", "RunMetadata", "RunOptions", "Session", "SessionLog", "SparseConditionalAccumulator",
    "SparseFeature", "SparseTensorValue", "Summary", "SummaryMetadata", "TFRecordReader", "TensorInfo",
    "TextLineReader", "VarLenFeature", "VariableScope", "WholeFileReader", "accumulate_n", "add_check_numerics_ops",
    "add_to_collection", "add_to_collections", "all_variables", "angle", "arg_max", "arg_min",
    "assert_greater_equal", "assert_integer", "assert_less_equal", "assert_near", "assert_negative",
    "assert_non_negative", "assert_non_positive", "assert_none_equal", "assert_positive", "assert_proper_iterable",
    "assert_rank_at_least", "assert_rank_in", "assert_same_float_dtype", "assert_scalar", "assert_type",
    "assert_variables_initialized", "assign", "assign_add", "assign_sub", "batch_gather", "batch_scatter_update",
    "batch_to_space_nd", "betainc", "bincount", "ceil", "check_numerics", "cholesky", "cholesky_solve",
    "clip_by_average_norm", "colocate_with", "confusion_matrix", "conj", "container", "control_flow_v2_enabled",
    "convert_to_tensor_or_indexed_slices", "convert_to_tensor_or_sparse_tensor", "count_nonzero", "count_up_to",
    "create_partitioned_variables", "cross", "cumprod", "decode_base64", "decode_compressed", "decode_csv",
    "decode_json_example", "decode_raw", "delete_session_tensor", "depth_to_space", "dequantize",
    "deserialize_many_sparse", "diag", "diag_part", "digamma", "dimension_at_index", "dimension_value", "div",
    "div_no_nan", "encode_base64", "erf", "erfc", "executing_eagerly_outside_functions", "expm1",
    "extract_image_patches", "fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel", "fake_quant_with_min_max_vars_per_channel_gradient", "fft", "fft2d",
    "fft3d", "fixed_size_partitioner", "floor_div", "floordiv", "floormod", "get_collection", "get_collection_ref",
    "get_default_graph", "get_default_session", "get_local_variable", "get_seed", "get_session_handle",
    "get_session_tensor", "get_variable", "get_variable_scope", "global_norm", "global_variables",
    "global_variables_initializer", "glorot_normal_initializer", "glorot_uniform_initializer", "ifft", "ifft2d",
    "ifft3d", "igamma", "igammac", "imag", "initialize_all_tables", "initialize_all_variables",
    "initialize_local_variables", "initialize_variables", "invert_permutation", "is_finite", "is_inf", "is_nan",
    "is_non_decreasing", "is_numeric_tensor", "is_strictly_increasing", "is_variable_initialized", "lbeta",
    "lgamma", "lin_space", "load_file_system_library", "local_variables", "local_variables_initializer", "log",
    "log1p", "log_sigmoid", "logical_xor", "make_template", "matching_files", "matrix_band_part",
    "matrix_determinant", "matrix_diag", "matrix_diag_part", "matrix_inverse", "matrix_set_diag", "matrix_solve",
    "matrix_solve_ls", "matrix_transpose", "matrix_triangular_solve", "min_max_variable_partitioner", "mod",
    "model_variables", "moving_average_variables", "multinomial", "no_regularizer", "op_scope",
    "orthogonal_initializer", "parse_example", "parse_single_example", "parse_single_sequence_example",
    "parse_tensor", "placeholder", "placeholder_with_default", "polygamma", "py_func", "qr", "quantize",
    "quantize_v2", "quantized_concat", "random_crop", "random_gamma", "random_normal", "random_poisson",
    "random_shuffle", "random_uniform", "read_file", "real", "reciprocal", "reduce_join", "regex_replace",
    "report_uninitialized_variables", "reset_default_graph", "resource_variables_enabled", "reverse_v2", "rint",
    "rsqrt", "scatter_add", "scatter_div", "scatter_max", "scatter_min", "scatter_mul", "scatter_nd_add",
    "scatter_nd_sub", "scatter_nd_update", "scatter_sub", "scatter_update", "segment_max", "segment_mean",
    "segment_min", "segment_prod", "segment_sum", "self_adjoint_eig", "self_adjoint_eigvals",
    "serialize_many_sparse", "serialize_sparse", "serialize_tensor", "set_random_seed", "setdiff1d",
    "space_to_depth", "sparse_add", "sparse_concat", "sparse_fill_empty_rows", "sparse_mask", "sparse_matmul",
    "sparse_maximum", "sparse_merge", "sparse_minimum", "sparse_placeholder", "sparse_reduce_max",
    "sparse_reduce_max_sparse", "sparse_reduce_sum", "sparse_reduce_sum_sparse", "sparse_reorder",
    "sparse_reset_shape", "sparse_reshape", "sparse_retain", "sparse_segment_mean", "sparse_segment_sqrt_n",
    "sparse_segment_sum", "sparse_slice", "sparse_softmax", "sparse_split", "sparse_tensor_dense_matmul",
    "sparse_tensor_to_dense", "sparse_to_dense", "sparse_to_indicator", "sparse_transpose", "squared_difference",
    "string_join", "string_split", "string_strip", "string_to_hash_bucket", "string_to_hash_bucket_fast",
    "string_to_hash_bucket_strong", "string_to_number", "substr", "svd", "tables_initializer", "tensor_scatter_add",
    "tensor_scatter_sub", "tensor_scatter_update", "to_bfloat16", "to_complex128", "to_complex64", "to_double",
    "to_float", "to_int32", "to_int64", "trace", "trainable_variables", "truncated_normal",
    "truncated_normal_initializer", "uniform_unit_scaling_initializer", "unsorted_segment_max",
    "unsorted_segment_mean", "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n",
    "unsorted_segment_sum", "variable_axis_size_partitioner", "variable_op_scope", "variable_scope",
    "variables_initializer", "variance_scaling_initializer", "verify_tensor_all_finite", "where_v2",
    "wrap_function", "write_file", "zeta",
    "summary.merge_all",
}
TF1_ONLY_PREFIXES = ("layers.", "contrib.", "nn.rnn_cell.")
# Keywords that only TF 1.x's signature of a function accepts (TF 2's raises a TypeError): a root call passing
# one was written for TF 1.x, as one spelling a ``TF1_ONLY`` name was.  ``paths: keywords`` per line, taken from
# the signatures of TensorFlow 2.21's ``tf.compat.v1`` and ``tf`` (a test checks them against the installed
# TensorFlow), without ``name`` and the keywords rules report, whose finding is no evidence against itself
# (TFE102's ``keep_dims`` and ``reduction_indices``, TFE703's ``colocate_gradients_with_ops``, TFE901's ``keep_prob``).
TF1_ONLY_KEYWORDS = {path: frozenset(keywords.split()) for line in """
    argmax argmin math.argmax math.argmin: dimension
    assert_equal assert_greater assert_less debugging.assert_equal debugging.assert_greater: data
    debugging.assert_greater_equal debugging.assert_less debugging.assert_less_equal debugging.assert_near: data
    debugging.assert_negative debugging.assert_non_negative debugging.assert_non_positive: data
    debugging.assert_none_equal debugging.assert_positive: data
    assert_rank debugging.assert_rank debugging.assert_rank_at_least debugging.assert_rank_in: data summarize
    autograph.to_code: arg_types arg_values indentation
    autograph.to_graph: arg_types arg_values
    batch_to_space nn.space_to_batch space_to_batch: block_size
    cond: fn1 fn2 strict
    constant: verify_shape
    convert_to_tensor: preferred_dtype
    debugging.assert_all_finite: msg t
    device: device_name_or_function
    expand_dims math.log_softmax math.softmax nn.log_softmax nn.softmax: dim
    nn.softmax_cross_entropy_with_logits: dim
    image.crop_and_resize: box_ind
    image.extract_glimpse: uniform_noise
    image.resize: align_corners
    image.sample_distorted_bounding_box: seed2
    io.decode_raw: bytes
    math.count_nonzero: input_tensor
    nn.avg_pool nn.avg_pool2d nn.max_pool: value
    nn.batch_norm_with_global_normalization: m t v
    nn.conv1d: use_cudnn_on_gpu value
    nn.conv2d: filter use_cudnn_on_gpu
    nn.conv2d_transpose nn.conv3d_transpose: filter value
    nn.conv3d: filter
    nn.convolution: dilation_rate filter
    nn.ctc_beam_search_decoder: merge_repeated
    nn.ctc_loss: ctc_merge_repeated inputs preprocess_collapse_repeated sequence_length time_major
    nn.depthwise_conv2d nn.separable_conv2d: rate
    nn.dilation2d: filter rates
    nn.embedding_lookup: partition_strategy validate_indices
    nn.embedding_lookup_sparse nn.nce_loss nn.safe_embedding_lookup_sparse: partition_strategy
    nn.sampled_softmax_loss: partition_strategy
    nn.erosion2d: kernel rates
    nn.fractional_avg_pool nn.fractional_max_pool: deterministic seed2
    nn.max_pool_with_argmax: Targmax
    nn.pool: dilation_rate
    nn.weighted_cross_entropy_with_logits: targets
    ones_like zeros_like: optimize tensor
    reverse_sequence: batch_dim seq_dim
    saved_model.load: import_scope sess
    sparse.add: thresh
    sparse.concat: concat_dim expand_nonconcat_dim
    sparse.split: keyword_required split_dim
    squeeze: squeeze_dims
    strings.split: result_type source
    strings.to_hash_bucket strings.to_number: string_tensor
    summary.audio summary.image summary.scalar: collections family tensor
    summary.histogram: collections family values
    summary.text: collections tensor
    test.assert_equal_graph_def: checkpoint_v2 hash_table_shared_name
    test.compute_gradient: extra_feed_dict init_targets x_init_value x_shape y y_shape
    while_loop: return_same_structure
""".strip().splitlines() for paths, keywords in [line.split(":")] for path in paths.split()}
EAGER_SIGNALS = {"enable_eager_execution", "enable_v2_behavior", "contrib.eager.enable_eager_execution"}
MODULE_WIDE_GRAPH = {"disable_eager_execution", "disable_v2_behavior"}  # whatever the spelling

# Wrappers that stand for ``tf.function`` (the ``function-decorators`` setting adds more).
FUNCTION_WRAPPERS = {"tf_agents.utils.common.function": "F", "tf_agents.utils.common.function_in_tf1": "F"}
TAPES = {"GradientTape", "autodiff.GradientTape"}
# Names only TensorFlow 2 has: positive evidence that a scope is TF2 code.
TF2_ONLY = {"random.set_seed", "summary.create_file_writer", "config.list_physical_devices",
            "config.list_logical_devices", "experimental.numpy", "keras.optimizers.legacy", "function"}
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
    # TF1 root spellings of the parsers (they give dicts), static Python-valued questions
    "parse_example", "parse_single_example", "parse_sequence_example", "parse_single_sequence_example",
    "decode_csv", "resource_variables_enabled", "is_gpu_available", "is_built_with_cuda", "is_numeric_tensor",
    "dimension_value", "dimension_at_index", "get_collection_ref", "assert_type",
    # ``tf.train``'s checkpoint paths, spelled at the root (``tf.latest_checkpoint(d)``: a string or None)
    "latest_checkpoint", "checkpoint_exists", "get_checkpoint_state",
}
# Functions TF 1.0 removed (renamed): a module calling them was written for TF 0.x.
REMOVED_IN_1_0 = {
    "mul", "sub", "neg", "select", "pack", "unpack", "batch_matmul", "listdiff", "complex_abs",
    "scalar_summary", "histogram_summary", "image_summary", "audio_summary", "merge_summary",
    "merge_all_summaries", "train.SummaryWriter",
}
# Functions whose positional order TF 1.0 changed, with the 0.x arity: an integer first is the 0.x
# order (``concat(concat_dim, values)``, ``split(split_dim, num_split, value)``).
REORDERED_IN_1_0 = {"concat": 2, "split": 3}
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
SCALAR_REDUCTIONS = with_math(*REDUCTIONS, *MATH_ONLY_REDUCTIONS)
SCALAR_APIS = {"rank", "size", "norm", "linalg.norm"}  # norm: scalar without axis too
SHAPE_VECTORS = {"shape", "shape_n"}

# -- TF1 graph code: tensor == literal (TFE302), labels without gradient (TFE406) -------
# Ops that take a boolean tensor, with the (position, keyword) of each boolean parameter:
# TFE302 may hand them ``tf.equal(...)`` in place of a Python ``==``.
BOOLEAN_CONSUMERS = {
    **dict.fromkeys(("where", "where_v2"), ((0, "condition"),)),
    "cond": ((0, "pred"),), "boolean_mask": ((1, "mask"),), "debugging.Assert": ((0, "condition"),),
    "Assert": ((0, "condition"),),
    **dict.fromkeys(("cast", "to_float", "to_int32", "to_int64", "dtypes.cast"), ((0, "x"),)),
    **dict.fromkeys(with_math("logical_and", "logical_or", "logical_xor"), ((0, "x"), (1, "y"))),
    **dict.fromkeys(with_math("logical_not"), ((0, "x"),)),
    **dict.fromkeys(with_math("reduce_any", "reduce_all"), ((0, "input_tensor"),)),
}
# Cross-entropies whose TF1 versions stop the gradient into their labels.
TF1_LABELS_STOPPED = {"nn.softmax_cross_entropy_with_logits": "labels",
                      "losses.softmax_cross_entropy": "onehot_labels"}


def tf1_only(name: TFName) -> bool:
    """A name only TensorFlow 1.x has under plain ``tensorflow`` (``tf.Session``, ``tf.log``):
    the code was written for, and runs on, TensorFlow 1.x."""
    return name.compat is None and (
        name.path in GRAPH_APIS or name.path in TF1_ONLY or name.path.startswith(TF1_ONLY_PREFIXES)
        or name.path.startswith("train.") and name.path.endswith("Optimizer"))


def builds_graph(name: TFName) -> bool:
    """A call only code that builds a TF1-style graph makes (sessions, placeholders,
    collections, ``tf.Graph()``, ``disable_eager_execution``), or a TF 1.x-only name."""
    return name.path in GRAPH_APIS or name.path == "Graph" or tf1_only(name)

# -- TF1 session loops (TFE601) and batch-norm update ops (TFE602) ---------------------
# Calls that give a session: ``.run`` / ``.eval`` on their result executes the graph.
SESSIONS = {"Session", "InteractiveSession", "get_default_session", "train.MonitoredSession",
            "train.MonitoredTrainingSession", "train.SingularMonitoredSession"}
VARIABLES = {"Variable", "get_variable", "get_local_variable"}
# Calls that add ops to the default graph although ``kinds.returns_tensor`` says no tensor.
OP_BUILDERS = {
    "Variable", "assign", "assign_add", "assign_sub", "group", "no_op", "tuple", "global_variables_initializer",
    "local_variables_initializer", "variables_initializer", "initialize_all_variables",
    "initialize_local_variables", "tables_initializer", "train.Saver", "Print", "Assert",
    "debugging.Assert", "py_func", "py_function", "numpy_function", "cond", "case", "while_loop",
    "map_fn", "scan", "gradients", "unstack", "split", "identity_n", "nn.moments", "train.piecewise_constant",
}
OP_BUILDER_PREFIXES = ("layers.", "losses.", "metrics.", "summary.", "image.resize_", "debugging.assert_",
                       "assert_")
ITERATOR_FACTORIES = {"make_one_shot_iterator", "make_initializable_iterator"}  # iterator.get_next() builds
# Batch normalisations that put their moving-average updates in UPDATE_OPS: the parameter that
# says whether it trains (position, keyword) and its default.  ``tf.contrib`` / ``tf_slim``
# ``batch_norm`` (any module path) also take ``updates_collections`` (None: update in place).
BATCH_NORM_TRAINING = {"layers.batch_normalization": (14, "training", False),
                       "batch_norm": (9, "is_training", True)}
# Train-op builders that run the UPDATE_OPS themselves (contrib/slim, runtime_checks).
RUNS_UPDATE_OPS = {"create_train_op", "optimize_loss", "train_op_with_updates", "with_update_ops"}
# Calls that make every tf.function body run eagerly (measured on TF 2.21: ``.numpy()`` and a
# ``tf.Variable`` per call then work inside ``@tf.function``).
RUN_FUNCTIONS_EAGERLY = {"config.run_functions_eagerly", "config.experimental_run_functions_eagerly"}
