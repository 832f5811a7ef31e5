"""Reduction without an explicit axis.

Why: with no ``axis`` a reduction collapses every dimension.  Combined with
broadcasting this hides shape bugs: ``reduce_sum([[1], [2]] + [1, 2])`` is 12,
because the sum silently broadcasts to a 2x2 matrix first, when 6 was meant.
Naming the axis makes the intent checkable: a wrong shape then fails loudly or
gives a result of the wrong rank.  Say ``axis=None`` when reducing every
element is the intent.  Same number in every execution mode, so the severity is
the same everywhere.  A warning only where the code gives evidence that a silent broadcast can
happen, where a reduction's operand combines two values through a broadcasting operator
(``x + y``, ``labels * log_p``, ``(a - b) * 0.5``, also through a name bound once to it):
static shapes that both grow (``[2, 1]`` against ``[2]``), or two different parameters of
the enclosing function known to be tensors (annotated or documented as such, or given
tensors by every call in the module), or element-wise functions of them, which only the
callers shape (``y_true - y_pred``), unless a call in the function that reads both checks
shapes or asserts (``x.shape.assert_is_compatible_with(y.shape)``).  Everything else is
info: a plain full reduction of one value, where the missing axis is a matter of style,
and mixes whose shapes the analysis cannot compare.  Real code ties most such shapes
where a local analysis cannot see it (one network applied to two batches, a variable
created with the other operand's shape, a shape check in another function), so reporting
them as warnings was wrong about half the time on code the rule was not tuned on.
Among the mixes, an operand that is a number, a scalar tensor (``tf.cast(tf.shape(x)[1],
tf.float32)``, ``tf.size(x)``, a full reduction, ``tf.norm(x)``,
``tf.math.log(float(n))``), an attribute, subscript or ``d.get(k, 1.0)`` not
known to be a tensor (``self.eps``, ``cfg["eps"]``: often Python floats) or a
parameter with a number default does not count.  Nor do two operands the code
gives one shape: element-wise functions of the same value
(``p * tf.math.log(p + 1e-8)``), ``tf.ones_like(t)`` / ``tf.zeros_like(t)`` /
``tf.fill(tf.shape(t), v)`` against ``t``, ``tf.reshape(a, s)`` against
``tf.reshape(b, s)``, slices of one tensor of the same extents
(``x[:, 1:] - x[:, :-1]``; ``x[:, 0:1]`` against a ``keepdims=True`` reduction
of ``x`` along axis 1), Gram matrices (``tf.matmul(x, x, transpose_b=True)``
against the same of ``y``), a stride-1 ``"SAME"`` convolution of the other
operand, one method called with the same arguments (``q.log_prob(z) -
p.log_prob(z)``), a value broadcast on purpose (``tf.tile``, ``tf.expand_dims``,
``[:, None]``).  A reduction bound by ``functools.partial`` is reported
where the partial is called, when neither passes an axis.  Reductions of a
shape (``tf.reduce_prod(tf.shape(x)[1:])``, ``x.shape``), of a scalar, or of a
list holding a number (``tf.reduce_max([n - k, 0])``: packing it gives a vector,
or fails) have no other axis to mean and are not reported.  Keras's reductions
are read the same way: the backend's (``K.mean(x)``, of ``tf.keras``, Keras 2
or ``tf_keras``) and Keras 3's ``keras.ops`` (``ops.sum(x)``).

Fix safety: none offered; the intended axis cannot be known from the code.

Known problems: calls that pass arguments through ``*args`` / ``**kwargs`` are
not checked; a reduction passed as a function (``tf.nest.map_structure(
tf.reduce_sum, xs)``, ``map``), a partial bound to a name more than once, or a
wrapper of your own are not seen.  A file that imports Keras but not
TensorFlow is read only when it calls ``compile(`` (Keras's own sources spell
``ops.mean(`` everywhere).  A shape is recognised when computed by a
module's ``shape`` function (``tf.shape``, ``np.shape``) or read from
``.shape``; shapes returned by methods (``dist.batch_shape_tensor()``) and
lists of scalars built by helpers are reported.  Tensors held in attributes or
dicts (``self.labels - self.logits``), parameters not known to be tensors and
values computed in the function from anything but its parameters get info, not
warning, even when their shapes differ; so does a broadcast inside an
element-wise call (``tf.square(labels - logits)``: only the operator at the top
is examined).  Two tensor parameters whose callers always pass one shape (a
contract in prose, a check in another function) are still a warning.
"""
import libcst as cst

from ..analysis.keras_models import keras_path
from ..analysis.numeric_patterns import ELEMENTWISE
from ..analysis.session_loops import walk
from ..analysis.same_shape import BINARY_ELEMENTWISE, same_shape, shape_source
from ..analysis.static_shapes import static_shape, stretches_both
from ..analysis.syntax import has_star_args, leaf_name, names_in, parameter
from ..analysis.context import NUMBER, SCALAR, TENSOR
from ..analysis.tf_api import MATH_ONLY_REDUCTIONS, REDUCTIONS, with_math
from ..rule import INFO, WARNING, Rule

BROADCASTING = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)

# Every spelling takes the axis as its second parameter.
TARGETS = with_math(*REDUCTIONS) | {f"math.{name}" for name in MATH_ONLY_REDUCTIONS}
# Keras's own: the backend's (``K.mean``: tf.keras, Keras 2, tf_keras) and Keras 3's ``keras.ops``
_KERAS_LEAVES = {"sum", "mean", "max", "min", "prod", "std", "var", "any", "all", "logsumexp"}
KERAS_TARGETS = {f"{module}.{leaf}" for module in ("backend", "ops") for leaf in _KERAS_LEAVES} | {
    "ops.count_nonzero", "ops.amax", "ops.amin"}
_KERAS_NAMES = {target.partition(".")[2] for target in KERAS_TARGETS}
AXIS_KEYWORDS = ("axis", "reduction_indices")  # TF1's spelling: TFE102 asks to rename it
SCALAR_PRESERVING = ELEMENTWISE | BINARY_ELEMENTWISE  # of scalars, a scalar


class ReductionWithoutAxis(Rule):
    """Reduction without an explicit `axis` reduces every dimension."""

    CODE = "TFE101"
    MESSAGE = ("reduction without `axis` reduces all dimensions, hiding broadcasting mistakes; "
               "pass `axis=...` (or `axis=None` to reduce every element on purpose)")
    SEVERITY = WARNING
    NEEDS = ("reduce_", "count_nonzero", "backend", "ops")  # every import of a target spells one
    BAD = """
        total = tf.reduce_sum(x + y)  # x: [2, 1], y: [2] -> broadcasts to [2, 2]
    """
    GOOD = """
        total = tf.reduce_sum(x + y, axis=0)  # a shape mistake now shows in the result's rank
    """

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        if name is not None and name.path in TARGETS or self._keras_reduction(node.func):
            args = None if has_star_args(node) else node.args
        elif name is not None:
            args = None
        else:
            bound = self._partial_reduction(node.func)
            args = None if bound is None or has_star_args(bound) or has_star_args(node) else [
                *bound.args[1:], *node.args]
        if args is not None and not _gives_axis(args):
            self._report_unless_one_axis(node, _operand(args))

    def _keras_reduction(self, func: cst.BaseExpression) -> bool:
        return leaf_name(func) in _KERAS_NAMES and keras_path(self.context, func) in KERAS_TARGETS

    def _report_unless_one_axis(self, node: cst.Call, operand) -> None:
        if operand is None or not (self.context.is_shape_vector(operand) or self.context.is_scalar(operand)
                                   or self._packs_scalars(operand)):
            self.report(node, severity=WARNING if self._mixes(operand) else INFO)

    def _mixes(self, operand) -> bool:
        """Two operands that may be tensors of different shapes, combined by a broadcasting operator."""
        value = self.context.assigned_value(operand) if isinstance(operand, cst.Name) else operand
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, BROADCASTING):
            sides = (value.left, value.right)
        elif isinstance(value, cst.Comparison) and len(value.comparisons) == 1:
            sides = (value.left, value.comparisons[0].comparator)
        else:
            return False
        tensors = [side for side in sides if self._may_be_tensor(side)]
        if len(tensors) == 1:  # ``(x + y) * 0.5``: look inside the tensor side
            return self._mixes(tensors[0]) if not isinstance(tensors[0], cst.Name) else False
        if not tensors or same_shape(self.context, sides[0], sides[1], self._may_be_tensor):
            return False
        return self._independent_inputs(*sides) or stretches_both(
            static_shape(self.context, sides[0]), static_shape(self.context, sides[1]))

    def _independent_inputs(self, left, right) -> bool:
        """Two different parameters of the enclosing function known to be tensors (annotated or
        documented so, or given tensors by every call in the module), or element-wise functions of
        them (``y_true - y_pred``, ``labels * tf.math.log(p)``): only the callers fix their shapes,
        and the function does not check that they agree."""
        names = [self._parameter_read(side) for side in (left, right)]
        return None not in names and names[0] != names[1] and not self._checked_together(*names)

    def _parameter_read(self, expr):
        key = shape_source(self.context, expr, self._may_be_tensor)
        if not (isinstance(key, tuple) and key[0] == "of" and key[1] not in ("self", "cls")):
            return None
        function = self.context.scope.node
        own = self.context.owner(key[1]) is self.context.scope and len(self.context.bindings(key[1])) == 1
        if not (own and type(function) is cst.FunctionDef and parameter(function, key[1])):
            return None
        return key[1] if self.context.kind(cst.Name(key[1])) == TENSOR else None

    def _checked_together(self, *names: str) -> bool:
        """A call in the function that reads both and whose name speaks of shapes or assertions
        (``tf.debugging.assert_shapes``, ``x.shape.assert_is_compatible_with(y.shape)``,
        ``_check_shapes(a, b)``)."""
        for call in walk(self.context.scope.node.body):
            if type(call) is not cst.Call:
                continue
            callee = cst.Module([]).code_for_node(call.func).lower()
            if ("shape" in callee or "assert" in callee or "check" in callee) and set(names) <= names_in([call]):
                return True
        return False

    def _may_be_tensor(self, expr, depth: int = 0) -> bool:
        """A tensor of rank 1 or more, or of unknown kind but not read the way Python numbers
        are: unknown attributes and subscripts (``self.eps``, ``cfg["eps"]``), ``d.get(k, 1.0)``
        and parameters with a number default (``eps=1e-8``) may well be floats, and do not
        count; nor do scalars the code computes (``tf.cast(tf.shape(x)[1], tf.float32)``,
        ``tf.math.log(float(n))``), also through a name bound once to them (there, an
        attribute or a subscript is no evidence: ``d = pair[0]`` may be a tensor).
        ``depth`` > 0: looking through a name or into an element-wise op's arguments."""
        kind = self.context.kind(expr)
        if kind not in (None, TENSOR):
            return False
        if isinstance(expr, cst.Name) and depth < 4:
            value = self.context.assigned_value(expr)
            if value is not None and not self._may_be_tensor(value, depth + 1):
                return False
        if isinstance(expr, cst.Subscript) and self.context.is_shape_vector(expr.value):
            return not (len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index))
        if isinstance(expr, cst.Call) and not has_star_args(expr):
            return self._may_be_tensor_call(expr, kind, depth)
        if kind is not None:
            return True
        if isinstance(expr, (cst.BaseString, cst.Integer, cst.Float)):
            return False
        if isinstance(expr, (cst.Attribute, cst.Subscript)):
            return depth > 0
        if isinstance(expr, cst.Name):
            return not self._number_parameter(expr.value)
        if isinstance(expr, cst.UnaryOperation):
            return self._may_be_tensor(expr.expression, depth)
        if isinstance(expr, cst.BinaryOperation):
            return self._may_be_tensor(expr.left, depth) or self._may_be_tensor(expr.right, depth)
        return True

    def _may_be_tensor_call(self, call: cst.Call, kind, depth: int) -> bool:
        """Not when an element-wise op of numbers and scalars, a number conversion (``float(n)``),
        or ``d.get(key, <number>)``."""
        name = self.context.tf_call(call)
        if name is not None and name.path in SCALAR_PRESERVING:  # the operands: one, or two (not a dtype)
            operands = [arg.value for arg in call.args if arg.keyword is None][:1 + (name.path not in ELEMENTWISE)]
            return any(self._may_be_tensor(operand, depth + 1) for operand in operands)
        func = call.func
        if isinstance(func, cst.Name) and func.value in ("float", "int", "len") and self.context.owner(
                func.value) is None:
            return False
        if isinstance(func, cst.Attribute) and func.attr.value == "get" and len(call.args) == 2:
            default = call.args[1].value
            default = default.expression if isinstance(default, cst.UnaryOperation) else default
            return kind is not None or not isinstance(default, (cst.Integer, cst.Float))
        return True

    def _number_parameter(self, name: str) -> bool:
        """A parameter of the current function, never rebound, whose default is a number."""
        owner = self.context.owner(name)
        function = owner.node if owner is not None and owner is self.context.scope else None
        if not isinstance(function, cst.FunctionDef) or len(self.context.bindings(name)) != 1:
            return False
        param = parameter(function, name)
        default = param.default if param is not None else None
        if isinstance(default, cst.UnaryOperation):
            default = default.expression
        return isinstance(default, (cst.Integer, cst.Float))

    def _packs_scalars(self, operand) -> bool:
        """``[n - k, 0]``: a list with a number or a scalar packs into a vector (or fails loudly)."""
        return isinstance(operand, (cst.List, cst.Tuple)) and any(
            not isinstance(element, cst.StarredElement)
            and self.context.kind(element.value) in (NUMBER, SCALAR)
            for element in operand.elements)

    def _partial_reduction(self, func: cst.BaseExpression):
        """``functools.partial(<reduction>, ...)`` bound once to the name called."""
        value = self.context.assigned_value(func) if type(func) is cst.Name else None
        if not (type(value) is cst.Call and self.context.qualname(value.func) == "functools.partial"
                and value.args and value.args[0].keyword is None):
            return None
        reduction = self.context.tf_name(value.args[0].value)
        return value if reduction is not None and reduction.path in TARGETS else None


def _gives_axis(args) -> bool:
    """An axis among a reduction's arguments: by keyword, or as the second positional one."""
    positional = [arg for arg in args if arg.keyword is None]
    return len(positional) >= 2 or any(
        arg.keyword is not None and arg.keyword.value in AXIS_KEYWORDS for arg in args)


def _operand(args):
    """The reduced tensor: the first positional argument, or ``input_tensor=``."""
    return next((arg.value for arg in args if arg.keyword is None or arg.keyword.value == "input_tensor"),
                None)
