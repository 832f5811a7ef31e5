"""An assert, `check_numerics` or `Print` op that never runs: nothing depends on it (TF1 graph mode).

Why: in a TF1 graph, ``Session.run`` computes only what the fetched tensors
depend on.  ``tf.debugging.assert_*``, ``tf.debugging.Assert`` and ``tf.print``
return an op; ``tf.Print`` and ``tf.debugging.check_numerics`` return a copy of
their input that prints or checks when it is computed.  A result that is
discarded, bound to a name nobody reads, or listed in a
``tf.control_dependencies`` block that creates no op (``pass``, or only Python
statements: ``y = x`` only renames a tensor, ``n = 0`` or ``step += 1`` on a
number makes nothing; a block that calls any function may create ops) is
pruned: the check silently never runs and bad data flows on
(measured on TF 2.21: an unwired ``assert_positive`` lets negative weights
through; wired in, it raises ``InvalidArgumentError``).  Wire it with
``with tf.control_dependencies([check]): y = tf.identity(x)`` or
``runtime_checks.with_assertions(x, check)``, and use the copy ``tf.Print``
returns instead of its input.

Severity: error in G; off in F, F0 and E (automatic control dependencies run
stateful ops inside ``tf.function``, and eager ops run at once).

Fix safety: none offered; where the check belongs in the data flow is a
decision about the program.

Not reported either: a discarded check written again in the same block with its result used
(``tf.Print(t, [t])  # does nothing``, then ``v = tf.Print(t, [t])``), a demonstration of the cure
beside the mistake, as in TensorFlow's own guide.

Known problems: static checks (``assert_type``, ``assert_rank*``, ``assert_scalar``...)
are not reported: TensorFlow makes them while the graph is built when the dtype or shape
is known (a rank known only at run time is missed).  Nor are comparisons of static shapes
and numbers (``assert_equal(x.get_shape()[1], 3)``) or of an estimator's mode, a Python string,
with a mode key (``assert_equal(mode, tf.estimator.ModeKeys.TRAIN)``): TensorFlow checks them
while building the graph, and raises there if they differ.  Nor is
``assert_variables_initialized``: reading an uninitialised variable raises
``FailedPreconditionError`` by itself, so the unwired check lets nothing through.  A check stored in a container or an
attribute, or returned
from a helper, counts as used even if the caller drops it; a module-level
check that only another module imports is reported.  A ``control_dependencies``
block holding compound statements (``if``, ``for``...) counts as creating ops;
a dependency list is followed through a name only when it is a list literal
bound once in the same scope.
"""
from typing import Iterator, Optional

import libcst as cst

from ..analysis.context import NUMBER
from ..analysis.session_loops import walk
from ..analysis.syntax import call_arg, code_children
from ..rule import ERROR, Rule, per_mode

# Return a copy of their first argument that runs the check when computed.
PASS_THROUGH = {"Print", "check_numerics", "debugging.check_numerics", "verify_tensor_all_finite",
                "debugging.verify_tensor_all_finite", "debugging.assert_all_finite"}
RETURNS_OP = {"Assert", "debugging.Assert", "print"}
# Checks made while the graph is built whenever the static shape or dtype allows: nothing to wire.
STATIC_CHECKS = {"assert_type", "assert_same_float_dtype", "assert_proper_iterable", "assert_rank",
                 "assert_rank_at_least", "assert_rank_in", "assert_scalar"}
# Checks of what TensorFlow checks anyway at run time: reading an uninitialised variable raises.
REDUNDANT_CHECKS = {"assert_variables_initialized"}
STATIC_SHAPES = {"get_shape", "as_list", "num_elements"}  # methods of tensors and static shapes
COMPARISONS = {"assert_equal", "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater",
               "assert_greater_equal", "assert_near"}  # the checks of x against y
WIRE = "wire it with `tf.control_dependencies([...])` or `runtime_checks.with_assertions(tensor, check)`"
DISCARDED = "`{op}(...)` is discarded: in graph mode nothing depends on it, so it never runs; " + WIRE
UNUSED = "`{name}` (from `{op}`) is never used, so graph mode prunes it; " + WIRE
UNUSED_COPY = "`{name}` (from `{op}`) is never used, so the op never runs: use `{name}` where `{source}` is used"
NO_OP_BLOCK = ("this `tf.control_dependencies` block creates no op, so nothing waits for this check "
               "(`y = x` only renames a tensor: use `y = tf.identity(x)`)")
NO_OP_VALUES = (cst.Name, cst.Attribute, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)
NUMBERS = (cst.Integer, cst.Float, cst.Imaginary)
PYTHON_ONLY = (cst.Pass, cst.Del, cst.Global, cst.Nonlocal, cst.Break, cst.Continue)


class AssertOpNeverRun(Rule):
    """Assert or Print op whose result nothing depends on: pruned in graph mode."""

    CODE = "TFE311"
    SEVERITY = per_mode(None, G=ERROR)
    EXAMPLE_HEADER = "import tensorflow.compat.v1 as tf\n"
    BAD = """
        check = tf.debugging.assert_positive(x)
        y = x / tf.reduce_sum(x, axis=None)
    """
    GOOD = """
        check = tf.debugging.assert_positive(x)
        with tf.control_dependencies([check]):
            y = x / tf.reduce_sum(x, axis=None)
    """

    def setup(self) -> None:
        self.pending = {}  # (id(owner scope), name) -> [(call, name, owner, loop)]: not read since
        self.pending_names = set()  # a cheap filter for visit_Name

    def _check_op(self, node: cst.CSTNode) -> Optional[str]:
        """"copy" or "op" for a check call, else None."""
        name = self.context.tf_call(node)
        if name is None:
            return None
        if name.path in PASS_THROUGH:
            return "copy"
        leaf = name.leaf
        if name.path in RETURNS_OP or (leaf.startswith("assert_") and leaf not in STATIC_CHECKS | REDUNDANT_CHECKS
                                       and name.path in (leaf, "debugging." + leaf)
                                       and not self._static_values(node, leaf)):
            return "op"
        return None

    def _static_values(self, call: cst.Call, leaf: str) -> bool:
        """The values an ``assert_*`` checks are known while the graph is built (static shapes,
        numbers): TensorFlow checks them then, and raises there if they fail."""
        names = ("x", "y") if leaf in COMPARISONS else ("x",)
        values = [arg.value for arg in call.args[:len(names)] if arg.keyword is None]
        values += [arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value in names]
        if len(names) == 2 and any(self._mode_key(value) for value in values):
            return True  # an estimator's mode is a Python string: ``assert_equal(mode, ModeKeys.TRAIN)``
        return len(values) == len(names) and all(self._static(value, 0) for value in values)

    def _mode_key(self, expr: cst.BaseExpression) -> bool:
        """``tf.estimator.ModeKeys.TRAIN`` and the like: a Python string constant."""
        return type(expr) is cst.Attribute and (self.context.qualname(expr.value) or "").endswith(".ModeKeys")

    def _static(self, expr: cst.BaseExpression, depth: int) -> bool:
        if type(expr) is cst.Name and depth < 5:
            expr = self.context.assigned_value(expr)
        kind = type(expr)
        if kind in NUMBERS or kind is cst.Attribute and expr.attr.value == "shape":
            return True
        if kind is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in STATIC_SHAPES:
            return not self.context.tf_call(expr)  # ``x.get_shape()``, not a TensorFlow function
        if kind is cst.Subscript or kind is cst.Attribute and expr.attr.value == "value":
            return self._static(expr.value, depth + 1)  # a dimension of a static shape
        if kind in (cst.List, cst.Tuple):
            return all(type(e) is cst.Element and self._static(e.value, depth + 1) for e in expr.elements)
        return False

    def _code(self, node: cst.CSTNode) -> str:
        return self.context.module.code_for_node(node)

    def visit_Expr(self, node: cst.Expr) -> None:
        if self._check_op(node.value) and not self._written_again(node):
            self.report(node.value, DISCARDED.format(op=self._code(node.value.func)))

    def _written_again(self, node: cst.Expr) -> bool:
        """The same call is written again in this block with its result used (``v = tf.Print(t, [t])``
        after ``tf.Print(t, [t])  # does nothing``, or in ``with tf.control_dependencies([...])``): a
        demonstration of the cure beside the mistake, or a duplicate of a check that runs."""
        ancestors = self.context.ancestors
        block = ancestors[-3] if len(ancestors) > 2 else None
        if type(block) not in (cst.IndentedBlock, cst.Module):
            return False
        statements = list(block.body)
        for index, statement in enumerate(statements):
            if type(statement) is cst.SimpleStatementLine:
                parts = [small for small in statement.body if small is not node and type(small) is not cst.Expr]
            else:  # ``with tf.control_dependencies([check]):`` wires it
                parts = [item.item for item in statement.items] if type(statement) is cst.With else []
            for part in parts:
                target = part.targets[0].target if type(part) is cst.Assign and len(part.targets) == 1 else None
                if type(target) is cst.Name and part.value.deep_equals(node.value):
                    if any(_reads(later, target.value) for later in statements[index + 1:]):
                        return True  # ``v = tf.Print(t, [t])``, then ``v`` read
                elif any(type(call) is cst.Call and call.deep_equals(node.value) for call in walk(part)):
                    return True
        return False

    def leave_Assign(self, node: cst.Assign) -> None:
        target = node.targets[0].target if len(node.targets) == 1 else None
        if type(target) is cst.Name and self._check_op(node.value):
            self.context.mode_thunk(node.value)  # remember the mode here; reported at the end
            owner = self.context.owner(target.value)
            self.pending_names.add(target.value)
            self.pending.setdefault((id(owner), target.value), []).append(
                (node.value, target.value, owner, self._outermost_loop()))

    def _outermost_loop(self) -> Optional[cst.CSTNode]:
        loop = None
        for node in reversed(self.context.ancestors):
            if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                break
            if isinstance(node, (cst.For, cst.While)):
                loop = node
        return loop

    def visit_Name(self, node: cst.Name) -> None:
        if node.value not in self.pending_names:
            return
        parent = self.context.parent
        if (isinstance(parent, cst.AssignTarget) and parent.target is node
                or isinstance(parent, cst.Attribute) and parent.attr is node
                or isinstance(parent, cst.Arg) and parent.keyword is node):
            return
        owner = self.context.owner(node.value)
        self.pending.pop((id(owner), node.value), None)

    def leave_Module(self, node: cst.Module) -> None:
        for candidates in self.pending.values():
            for call, name, owner, loop in candidates:
                if (loop is not None and _reads(loop, name)) or _read_in_nested_scope(owner.node, name):
                    continue
                template = UNUSED_COPY if self._check_op(call) == "copy" else UNUSED
                source = call_arg(call, 0, "tensor")
                self.report(call, template.format(name=name, op=self._code(call.func),
                                                  source=self._code(source.value) if source else "its input"))

    def visit_With(self, node: cst.With) -> None:
        if not self._creates_no_op(node.body):
            return
        for item in node.items:
            name = self.context.tf_call(item.item)
            deps = call_arg(item.item, 0, "control_inputs") if name else None
            if name is None or name.path != "control_dependencies" or deps is None:
                continue
            listed = deps.value
            if isinstance(listed, cst.Name) and self.context.is_local(listed.value):
                listed = self.context.assigned_value(listed)  # deps = [check]; with ...(deps):
                if not isinstance(listed, (cst.List, cst.Tuple)):
                    continue
                if any(self._is_check(element.value) for element in listed.elements):
                    self.report(deps.value, NO_OP_BLOCK)
            elif isinstance(listed, (cst.List, cst.Tuple)):
                for element in listed.elements:
                    if self._is_check(element.value):
                        self.report(element.value, NO_OP_BLOCK)

    def _is_check(self, value: cst.BaseExpression) -> bool:
        """A check call, or a name bound once to one."""
        bound = self.context.assigned_value(value) if isinstance(value, cst.Name) else None
        return bool(self._check_op(value) or (bound is not None and self._check_op(bound)))

    def _creates_no_op(self, body: cst.BaseSuite) -> bool:
        """Only Python statements: ``pass``, docstrings, renames (``y = x``), numbers (``n = 0``,
        ``step += 1`` on a number), ``return x``, ``del``, ``global``...: no call, no TensorFlow op."""
        lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
        for line in lines:
            if not isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                return False
            for small in line.body:
                value = getattr(small, "value", None)
                if isinstance(small, PYTHON_ONLY) or isinstance(small, (cst.Return, cst.AnnAssign)) and value is None:
                    continue
                if isinstance(small, cst.AugAssign):
                    if not (isinstance(value, NUMBERS) and self.context.kind(small.target) == NUMBER):
                        return False
                elif not (isinstance(small, (cst.Expr, cst.Assign, cst.AnnAssign, cst.Return)) and _inert(value)):
                    return False
        return True


def _inert(value: cst.BaseExpression) -> bool:
    """A name, attribute, literal, or a tuple or list of them: evaluating it creates no op."""
    if isinstance(value, (cst.Tuple, cst.List)):
        return all(_inert(element.value) for element in value.elements if not isinstance(element, cst.StarredElement))
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        return isinstance(value.expression, NUMBERS)
    return isinstance(value, NO_OP_VALUES + NUMBERS)


def _loads(tree: cst.CSTNode) -> Iterator[cst.Name]:
    """Names read in a subtree (a superset: stores other than ``name = ...`` are included)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            yield node
        elif isinstance(node, (cst.Attribute, cst.Arg)):
            stack.append(node.value)
        elif not (isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name)):
            stack.extend(code_children(node))


def _reads(tree: cst.CSTNode, name: str) -> bool:
    return any(load.value == name for load in _loads(tree))


def _read_in_nested_scope(owner: cst.CSTNode, name: str) -> bool:
    """A function or lambda inside ``owner`` reads ``name``: it may run at any time."""
    stack = list(code_children(owner))
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            if _reads(node, name):
                return True
        else:
            stack.extend(code_children(node))
    return False
