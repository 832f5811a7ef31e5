"""Tensor indexed or sliced with the variable of a Python loop.

Why: every ``x[i]``, ``tf.slice`` or ``tf.gather`` is one op; inside a loop
the interpreter runs, that is one op per iteration.  Eager mode pays the op
overhead each time and ``tf.function`` or a TF1 graph unrolls the loop
(measured on TF 2.21 with benchmarks/bench_python_loop_slicing.py, 500 rows:
eager ~10,000x slower than ``tf.reduce_sum(x, axis=0)``; traced, 2,503 graph
ops and ~4 s for the first call instead of 4 ops).  ``tf.unstack(x)`` slices
everything with one op (~7x faster than per-row slicing in eager mode); a
vectorised op (``tf.reduce_sum``, ``tf.map_fn``, ``tf.vectorized_map``) is the
real cure.  Severity: a warning where the loop is certainly run by Python and
the slices are gathered across iterations (accumulated, ``z += x[i]`` or ``z =
z + f(x[i])``; appended; a comprehension's element, through TensorFlow ops and
operators), the pattern one vectorised op replaces; info where a slice is one
step of other per-row work (a shape, a value bound to a name, an argument of
your own function), where the loop is often inherent (ragged examples).
Inside ``tf.function`` autograph turns ``for i in tf.range(n)`` (or ``range``
of a tensor) into one ``tf.while_loop``: such loops are reported in eager code
only, and ``for`` statements whose iterable is not provably Python's
(``range`` of Python ints) are off in ``tf.function``.  Comprehensions are
never converted and are reported in every mode.  A helper of the module
called only from ``tf.function`` code runs traced too (the semantic model gives
it mode F), so its ``for i in tf.range(n)`` is not reported.  Eager code is
exempt where vectorising has nothing to gain: a literal count of at most 16
(``range(9)``: 16 slices and adds take about a millisecond, measured on TF 2.21)
and a slice handed straight to Python (the receiver of ``.numpy()``, an argument
of ``print``, ``int``, ``float``..., of matplotlib / PIL / IPython, of an object
such as ``ax = fig.add_subplot(...)`` made by one, or of a test's
``self.assert...``): a plotting grid, a printout.  Graphs still unroll both.

Fix safety: none offered.  Even the plain accumulation ``z = tf.zeros(...)``,
``for i in range(n): z += x[i]`` is not provably ``tf.reduce_sum(x[:n],
axis=0)``: the reduction adds in another order, so float results differ in
the last bits (measured: up to 1e-4 on 500 rows), and the shape and dtype of
the zeros, which broadcasting may change, are not known statically.

Known problems: ``while`` loops and loops in helpers called from a loop are not
seen.  A slice bound to a name first (``idx = order[i]``) is never taken for
Python's, whatever reads the name.  Only loops over the rows of the data are
reported: the loop variable picks the first axis (``x[i]``, ``x[i, :]``,
``tf.gather(x, i)``, ``tf.slice(x, [i, 0], ...)``); a loop over another axis
(``x[:, i]``, ``x[..., i]``, ``tf.gather(x, i, axis=1)``: features, channels,
time steps, bits) is not, whatever its count.  And the loop runs once per row:
a literal count above 4 (``range(500)``, five literal items; in
eager code above 16), or the length of the sliced
tensor's first axis (``range(len(x))``, ``range(x.shape[0])``, ``tf.range(n)``
with ``x = tf.reshape(..., [n, 4])``) unless its static shape shows 4 rows or
fewer.  A count of unknown origin (``range(num_gpus)``, ``enumerate(ks)``) or of
another axis (``x.shape[-1]``: features, dimensions; ``n`` of ``tf.reshape(x, [m,
n])``), or one that pads the rows (``range(k)`` over ``tf.concat([v, tf.fill([k -
1], 0)], 0)``: shifted windows), may be a handful, whose
slices cost nothing measurable: not reported.  A tensor computed anew in each iteration
(its expression reads a name the loop binds, ``y = f(x_i); y[:n]``) is not
reported: it is not one tensor sliced piece by piece, even when the loop as
a whole could be vectorised.  Tensors held in attributes of other objects
(``table.rows[i]``) or coming from other modules are not known to be tensors.  Shape vectors
(``tf.shape(x)[i]``) are not reported: their loops are bounded by the rank.
"""
from typing import Set

import libcst as cst

from ..analysis.loops import enclosing_loops, is_python_int, literal_count, range_arguments
from ..analysis.static_shapes import static_shape
from ..analysis.syntax import call_arg, has_star_args, names_in
from ..rule import DISPLAY_ONLY, INFO, MODES, WARNING, Rule, per_mode

# Slicing ops: the keywords of the sliced tensor (the first parameter) and of what picks its rows (the second).
SLICING_OPS = {"slice": ("input_", "begin"), "strided_slice": ("input_", "begin"), "gather": ("params", "indices"),
               "gather_nd": ("params", "indices")}
# Ops that build a tensor of a shape given as a list: where the shape is (position, keyword).
SHAPED = {"reshape": (1, "shape"), "zeros": (0, "shape"), "ones": (0, "shape"), "fill": (0, "dims"),
          "placeholder": (1, "shape"), "random.normal": (0, "shape"), "random.uniform": (0, "shape"),
          "random.truncated_normal": (0, "shape"), "random_normal": (0, "shape"), "random_uniform": (0, "shape"),
          "truncated_normal": (0, "shape")}
FEW_ITERATIONS = 4
FEW_EAGER_ITERATIONS = 16  # eager: 16 slices and adds of 4 floats take ~1 ms (TF 2.21, CPU)
PRINTING = frozenset({"print", "int", "float", "bool", "str", "repr", "format"})  # builtins
DISPLAY_MODULES = ("matplotlib.", "PIL.", "IPython.", "seaborn.")
EVERYWHERE = per_mode(WARNING)
UNLESS_AUTOGRAPH = per_mode(WARNING, F=None)
EAGER_ONLY = per_mode(None, E=WARNING)
COMPREHENSIONS = (cst.ListComp, cst.GeneratorExp, cst.SetComp)  # their ``elt`` is collected
OPERATORS = (cst.BinaryOperation, cst.UnaryOperation)


class TensorSlicedInPythonLoop(Rule):
    """Tensor sliced with a Python loop variable: one op per iteration, unrolled in graphs."""

    CODE = "TFE201"
    MESSAGE = ("tensor sliced once per iteration of a Python loop (one op each time, unrolled in "
               "graphs); iterate over `tf.unstack(x)`, or use a vectorised op "
               "(`tf.reduce_sum(x, axis=0)`, `tf.map_fn`, `tf.vectorized_map`)")
    SEVERITY = WARNING
    FIX_SAFETY = DISPLAY_ONLY
    BAD = """
        x = tf.random.normal([500, 10])
        z = tf.zeros([10])
        for i in range(500):
            z += x[i]
    """
    GOOD = """
        x = tf.random.normal([500, 10])
        z = tf.reduce_sum(x, axis=0)
    """

    def visit_Subscript(self, node: cst.Subscript) -> None:
        inner = node.value
        if type(inner) is cst.Subscript and self._severity(inner.value, _first_axis(inner.slice)):
            return  # x[i][j]: reported once, at x[i]
        severity = self._severity(node.value, _first_axis(node.slice))
        if severity:
            self.report(node, severity=self._unless_shown(node, self._unless_gathered(severity)))

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.tf_call(node)
        keywords = SLICING_OPS.get(name.path) if name is not None else None
        if keywords is None or has_star_args(node):
            return
        sliced, rows = call_arg(node, 0, keywords[0]), self._row_index(name.path, node, keywords[1])
        if sliced is not None and rows is not None:
            severity = self._severity(sliced.value, rows)
            if severity:
                self.report(node, severity=self._unless_shown(node, self._unless_gathered(severity)))

    @staticmethod
    def _row_index(op: str, node: cst.Call, keyword: str):
        """What picks the first axis: ``begin[0]`` of a slice, the indices of a gather along
        axis 0 (None when another axis or an unknown one is gathered)."""
        if op == "gather":
            axes = [call_arg(node, None, axis) for axis in ("axis", "batch_dims")]
            if any(arg is not None and not (isinstance(arg.value, cst.Integer) and arg.value.value == "0")
                   for arg in axes) or len([arg for arg in node.args if arg.keyword is None]) > 3:
                return None
        index = call_arg(node, 1, keyword)
        if index is not None and op != "gather_nd" and isinstance(index.value, (cst.List, cst.Tuple)):
            return index.value.elements[0] if index.value.elements else None
        return index

    def _severity(self, sliced, index):
        """Per-mode severity when ``sliced`` is a tensor whose first axis ``index`` picks with a
        loop variable.  Other axes (``x[:, i]``: features, channels, time steps, bits) are not
        rows of the data."""
        loops = list(enclosing_loops(self.context.ancestors))  # most slices are in no loop: asked first
        read = names_in([index]) if loops else ()
        loops = [loop for loop in loops if loop.targets & read]
        sliced_reads = names_in([sliced]) if loops else set()
        loops = [loop for loop in loops if not loop.varying & sliced_reads
                 and not self._few_iterations(loop) and self._data_sized(loop, sliced_reads)]
        if (not loops or not self.context.is_tensor(sliced)
                or self.context.is_shape_vector(sliced)):
            return None
        modes = [per_mode(self._modes(loop), E=None) if self._few_in_eager(loop) else self._modes(loop)
                 for loop in loops]
        severity = {mode: WARNING for mode in MODES if any(m[mode] for m in modes)}
        return per_mode(None, **severity) if severity else None

    def _unless_gathered(self, severity):
        if self._gathered():
            return severity
        return per_mode({mode: INFO if level else None for mode, level in severity.items()})

    def _gathered(self) -> bool:
        """The slice, or what TensorFlow ops and operators make of it, is gathered across
        iterations: accumulated (``z += x[i]``, ``z = z + ...``), appended (``out.append(...)``)
        or a comprehension's element: the pattern one vectorised op replaces.  Elsewhere the
        slice is one step of other per-row work (a shape, a ragged example), often inherent."""
        ancestors = self.context.ancestors
        child = ancestors[-1]
        for parent in reversed(ancestors[:-1]):
            kind = type(parent)
            if kind is cst.AugAssign:
                return child is parent.value
            if kind is cst.Assign:
                targets = {target.target.value for target in parent.targets if type(target.target) is cst.Name}
                return bool(targets & names_in([parent.value]))
            if kind in COMPREHENSIONS:
                return child is parent.elt
            if kind is cst.Call and child is not parent.func:
                if type(parent.func) is cst.Attribute and parent.func.attr.value in ("append", "extend"):
                    return True
                if self.context.tf_call(parent) is None:
                    return False
            elif not (kind is cst.Arg and parent.keyword is None or kind in OPERATORS
                      or kind is cst.Subscript and parent.value is child):
                return False
            child = parent
        return False

    def _few_in_eager(self, loop) -> bool:
        """A literal count of at most 16 (``range(9)``, ``n = 16; range(1, n)``): eager code
        pays about a millisecond for such slices; graphs still unroll them."""
        count = literal_count(self.context, loop.iter)
        return count is not None and count <= FEW_EAGER_ITERATIONS

    def _unless_shown(self, node, severity):
        """Off in eager code when the slice goes straight to Python: the receiver of
        ``.numpy()``, or an argument of ``print``, ``int``..., of a plotting library (also
        through ``ax = plt.subplot(...)``) or of a test's ``self.assert...``."""
        ancestors = self.context.ancestors
        at = len(ancestors) - 1
        while at >= 2:
            parent = ancestors[at - 1]
            if isinstance(parent, cst.Subscript) and parent.value is ancestors[at]:
                at -= 1  # x[i][:, 0]: the whole chain
            elif (isinstance(parent, cst.Attribute) and parent.attr.value == "numpy"
                  and isinstance(ancestors[at - 2], cst.Call) and ancestors[at - 2].func is parent):
                return per_mode(severity, E=None)
            else:
                break
        arg, call = ancestors[at - 1], ancestors[at - 2] if at >= 2 else None
        if isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and self._shows(call.func, 3):
            return per_mode(severity, E=None)
        return severity

    def _shows(self, func, depth: int) -> bool:
        """``func`` certainly hands its arguments to Python: see ``_unless_shown``."""
        if isinstance(func, cst.Name) and func.value in PRINTING:
            return self.context.owner(func.value) is None  # the builtin
        if (self.context.qualname(func) or "").startswith(DISPLAY_MODULES):
            return True
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
            return False
        if func.value.value == "self" and func.attr.value.startswith("assert"):
            return True
        made_by = self.context.assigned_value(func.value)  # ax = fig.add_subplot(...)
        return depth > 0 and isinstance(made_by, cst.Call) and self._shows(made_by.func, depth - 1)

    def _modes(self, loop):
        bounds = range_arguments(self.context, loop.iter)
        if self._tensor_driven(loop.iter, bounds):
            return EAGER_ONLY
        if loop.is_statement and not (
                bounds is not None and all(is_python_int(self.context, b) for b in bounds)):
            return UNLESS_AUTOGRAPH
        return EVERYWHERE

    def _tensor_driven(self, iterable, bounds) -> bool:
        """``tf.range(n)``, a tensor, or ``range`` of a tensor: autograph converts it."""
        name = self.context.tf_call(iterable)
        return (self.context.is_tensor(iterable) or (name is not None and name.path == "range")
                or any(self.context.is_tensor(bound) for bound in bounds or ()))

    def _data_sized(self, loop, sliced_reads) -> bool:
        """The loop runs once per row of the data: a literal count above a handful, or the
        length of the sliced tensor's first axis (``range(len(x))``, ``range(x.shape[0])``,
        ``range(n)`` with ``x = tf.reshape(..., [n, 4])``).  A count of unknown origin
        (devices, classes) or another axis (``x.shape[-1]``: features) may well be small."""
        if isinstance(loop.iter, (cst.List, cst.Tuple)):
            return len(loop.iter.elements) > FEW_ITERATIONS and not any(
                isinstance(element, cst.StarredElement) for element in loop.iter.elements)
        bounds = range_arguments(self.context, loop.iter)
        name = self.context.tf_call(loop.iter)
        if bounds is None and name is not None and name.path == "range" and not has_star_args(loop.iter):
            bounds = [arg.value for arg in loop.iter.args if arg.keyword is None]  # tf.range(n)
        if bounds is None:
            return False
        row_names = set().union(*(self._row_names(self._value(cst.Name(n))) for n in sliced_reads))
        return any(self._counts_rows(self._value(bound), sliced_reads, row_names) for bound in bounds)

    def _row_names(self, value) -> Set[str]:
        """Names that may count the rows of the tensor ``value`` builds: for a shape given as a list,
        its first dimension's (``tf.reshape(..., [n, 4])``, ``tf.zeros([n, d])``: ``n``); none for
        ``tf.concat``, whose rows add up (in ``tf.concat([x, tf.fill([k - 1], 0)], 0)``, ``k``
        pads them); for anything else, every name it reads (``rows_of(n)``, ``Table(n)``)."""
        name = self.context.tf_call(value)
        if name is not None and name.path == "concat":
            return set()
        where = SHAPED.get(name.path) if name is not None else None
        shape = call_arg(value, *where) if where else None
        if shape is None or not isinstance(shape.value, (cst.List, cst.Tuple)) or not shape.value.elements:
            return names_in([value])
        first = shape.value.elements[0]
        return set() if isinstance(first, cst.StarredElement) else names_in([first.value])

    def _counts_rows(self, expr, sliced: Set[str], row_names: Set[str]) -> bool:
        if isinstance(expr, cst.Integer):
            return int(expr.value, 0) > FEW_ITERATIONS
        if isinstance(expr, cst.Name):
            return expr.value in row_names
        if isinstance(expr, cst.BinaryOperation):
            return any(self._counts_rows(self._value(side), sliced, row_names) for side in (expr.left, expr.right))
        if isinstance(expr, cst.Call) and len(expr.args) == 1 and isinstance(expr.func, cst.Name):
            if expr.func.value == "int":
                return self._counts_rows(self._value(expr.args[0].value), sliced, row_names)
            if expr.func.value == "len":
                return self._rows_of(expr.args[0].value, sliced)
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            index = expr.slice[0].slice.value
            if isinstance(index, cst.Integer) and int(index.value, 0) == 0:
                shape = expr.value
                if isinstance(shape, cst.Attribute) and shape.attr.value == "shape":
                    return self._rows_of(shape.value, sliced)
                if isinstance(shape, cst.Call) and shape.args and self.context.tf_call(shape) is not None:
                    return self.context.tf_call(shape).path == "shape" and self._rows_of(shape.args[0].value, sliced)
        return False

    def _rows_of(self, tensor, sliced: Set[str]) -> bool:
        """``tensor`` is one of the sliced names, with a first axis not known to be small."""
        if not (isinstance(tensor, cst.Name) and tensor.value in sliced):
            return False
        shape = static_shape(self.context, tensor)
        return not (shape and shape[0] <= FEW_ITERATIONS)

    def _value(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """A name's value when it is bound exactly once by an assignment."""
        return (self.context.assigned_value(expr) or expr) if isinstance(expr, cst.Name) else expr

    def _few_iterations(self, loop) -> bool:
        if isinstance(loop.iter, (cst.List, cst.Tuple)) and not any(
                isinstance(element, cst.StarredElement) for element in loop.iter.elements):
            return len(loop.iter.elements) <= FEW_ITERATIONS
        bounds = range_arguments(self.context, loop.iter)
        return (bounds is not None and len(bounds) == 1 and isinstance(bounds[0], cst.Integer)
                and int(bounds[0].value, 0) <= FEW_ITERATIONS)


def _first_axis(elements):
    """The subscript element that picks the first axis (``x[None, i]``: ``i``)."""
    for element in elements:
        index = element.slice
        if not (isinstance(index, cst.Index) and (
                isinstance(index.value, cst.Name) and index.value.value == "None"
                or isinstance(index.value, cst.Attribute) and index.value.attr.value == "newaxis")):
            return element
    return elements[0]
