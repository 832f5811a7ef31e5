"""A `tf.function` traced again on every iteration of a loop.

Why: a ``tf.function`` traces its Python body into a graph once per new input
signature, and a Python number is part of the signature by its value.
Measured on TF 2.21: ``f(x, i)`` in ``for i in range(8)`` traces ``f`` 8 times
(``f.experimental_get_tracing_count()``), and so does
``@tf.function(reduce_retracing=True)``, with ints as with floats; a
``tf.function`` created inside the loop (``tf.function(g)`` or a decorated
``def``), or inside a function that the loop calls, is a new function with an
empty cache at every iteration and traces every time.  Tracing costs far more
than running the graph (100 calls of a small matmul function: 1.9 s with
``i``, 0.04 s with ``tf.constant(float(i))``).  TensorFlow warns at run
time, after five retraces ("5 out of the last 5 calls ... triggered
tf.function retracing").
Pass a tensor (``tf.constant(i)``, a ``tf.range`` counter, ``step`` from a
``tf.Variable``) or fix the signature with ``input_signature``, and create the
function once, before the loop.

Severity: warning in E (the loop runs eagerly); off elsewhere (a loop inside a
``tf.function`` is traced once or converted by autograph).

Fix safety: none offered: ``tf.constant(i)`` changes what the function
computes when it uses the number as a Python int (a shape, ``range(i)``), and
moving a function out of a loop changes what it captures.

Known problems: a counter is the target of ``for`` over ``range(...)`` (more
than five values) or the index of ``enumerate(...)``, not rebound in the loop,
passed in the innermost loop, or a name that loop binds only to arithmetic on
counters and numbers (``%`` gives few values: not counted).  The callee is a
name bound only to a ``def`` decorated by ``tf.function`` alone, or once to
``tf.function(g)``, without ``input_signature``; methods (``self.step(i)``)
and wrappers are not seen.  A function created in a loop over ``range``,
``enumerate``, a dataset or ``while`` is reported when that loop (not an inner
one) calls it; one created by another function, when that function has no
decorator, defines it in its own body, calls it outside a loop, and is itself
called in such a loop of the same module.
"""
import libcst as cst

from ..analysis.loops import is_builtin
from ..analysis.syntax import bindings_in, call_arg
from ..rule import WARNING, Rule, per_mode

BOUNDARIES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power)
NUMBERS = (cst.Integer, cst.Float)
PASSED = ("`{callee}` (a tf.function) gets the Python number `{arg}`, a new value on every iteration: it is "
          "traced again for each value (`reduce_retracing=True` does not help); pass a tensor "
          "(`tf.constant({arg})`) or give it an `input_signature`")
IN_LOOP = ("a tf.function created inside a loop is a new function on every iteration and is traced every "
           "time; create it once, before the loop")
IN_CALLEE = ("a tf.function created inside `{outer}`, which is called in a loop: every call creates and traces a "
             "new function; create it once, outside `{outer}`")


class FunctionRetraced(Rule):
    """tf.function traced again per iteration: a Python number per step, or created per step."""

    CODE = "TFE703"
    MESSAGE = "tf.function traced again on every iteration of a loop"
    SEVERITY = per_mode(None, E=WARNING)
    BAD = """
        @tf.function
        def scale(x, factor):
            return x * factor

        for step in range(100):
            y = scale(tf.ones([3]), step)
    """
    GOOD = """
        @tf.function
        def scale(x, factor):
            return x * factor

        for step in tf.range(100):
            y = scale(tf.ones([3]), step)
    """

    def setup(self) -> None:
        self.decorated = {}  # (id(scope), name) -> decorated by tf.function alone, without input_signature
        self.passed = []  # (callee key or None when certain, node, message, mode): Python numbers per iteration
        self.created = []  # (loop id or outer key, name called or None, node, message, mode, outer scope id)
        self.called = set()  # (id(innermost loop), name) and (id(function scope), name) of calls by name
        self.called_in_loop = {}  # (id(scope), name) of functions called in a step loop -> modes of the calls

    def _is_function(self, expr) -> bool:
        func = expr.func if type(expr) is cst.Call else expr
        return getattr(self.context.tf_name(func), "path", "") == "function"

    def _traces_per_value(self, expr) -> bool:
        """``tf.function`` or ``tf.function(...)`` without ``input_signature``."""
        return self._is_function(expr) and (type(expr) is not cst.Call or call_arg(expr, 1, "input_signature") is None)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        decorators = [d.decorator for d in node.decorators]
        if not any(self._is_function(d) for d in decorators):
            return
        key = (id(self.context.scope), node.name.value)
        self.decorated[key] = len(decorators) == 1 and self._traces_per_value(decorators[0])
        self._created(decorators[0] if len(decorators) == 1 else node.name, node.name.value, node)

    def visit_Call(self, node: cst.Call) -> None:
        parent = self.context.parent
        if type(parent) is not cst.Decorator and self._is_function(node):
            if type(parent) is cst.Call and parent.func is node:
                self._created(node, None, node)
            elif type(parent) is cst.Assign and len(parent.targets) == 1 and type(parent.targets[0].target) is cst.Name:
                self._created(node, parent.targets[0].target.value, parent)
        if type(node.func) is not cst.Name:
            return
        name, loops = node.func.value, self._loops()
        owner = self.context.owner(name)
        if not loops:
            self.called.add((id(self._function_scope()), name))
            return
        self.called.add((id(loops[0]), name))
        if owner is None or len(self.context.bindings(name)) != 1 or not self._step_loop(loops[0]):
            return
        mode = self.context.mode_thunk(node)
        self.called_in_loop.setdefault((id(owner), name), []).append(mode)
        value = self.context.assigned_value(node.func)
        certain = type(value) is cst.Call and value.args and self._traces_per_value(value)
        callee = None if certain else (id(owner), name)
        counters = self._counters(loops[0])
        for arg in node.args:
            if counters and not arg.star and self._per_iteration(arg.value, counters, loops[0], 3):
                code = self.context.module.code_for_node(arg.value)
                self.passed.append((callee, arg.value, PASSED.format(callee=name, arg=code), mode))

    def _created(self, report_node, name, statement) -> None:
        """A tf.function made at ``statement``: in a step loop of this function, or in a function's body."""
        loops = self._loops()
        mode = self.context.mode_thunk(report_node)
        if loops:
            if self._step_loop(loops[0]):
                self.created.append((id(loops[0]), name, report_node, IN_LOOP, mode, None))
            return
        function = self._function_scope().node
        if (type(function) is not cst.FunctionDef or function.decorators
                or not (statement is report_node or _in_body(statement, function))):
            return
        scope = self.context.scope_of(function)
        message = IN_CALLEE.format(outer=function.name.value)
        self.created.append(((id(scope.parent), function.name.value), name, report_node, message, mode, id(scope)))

    def _loops(self):
        """The loops whose body holds the node being visited, innermost first, in this function."""
        ancestors, found = self.context.ancestors, []
        for index in range(len(ancestors) - 2, -1, -1):
            node = ancestors[index]
            if isinstance(node, BOUNDARIES):
                break
            if isinstance(node, (cst.For, cst.While)) and ancestors[index + 1] is node.body:
                found.append(node)
        return found

    def _function_scope(self):
        """The scope of the innermost function around here (the module's outside any)."""
        scope = self.context.scope
        while scope.parent is not None and not isinstance(scope.node, (cst.FunctionDef, cst.Lambda)):
            scope = scope.parent
        return scope

    def _step_loop(self, loop) -> bool:
        """A loop that runs many steps: ``while``, ``range`` (more than five values), ``enumerate``, a dataset."""
        if type(loop) is cst.While:
            return True
        return self._iterator(loop.iter) in ("range", "enumerate") or self.context.is_dataset(loop.iter)

    def _iterator(self, expr) -> str:
        """``range`` (more than five values) or ``enumerate``, the builtins; else ''."""
        func = expr.func if type(expr) is cst.Call else None
        kind = next((k for k in ("range", "enumerate") if is_builtin(self.context, func, k)), "")
        literal = kind == "range" and all(type(a.value) is cst.Integer and not a.keyword for a in expr.args)
        return "" if literal and len(range(*(int(a.value.value, 0) for a in expr.args))) <= 5 else kind

    def _counters(self, loop):
        """Names that hold a new Python int on each iteration of ``loop``."""
        if type(loop) is not cst.For:
            return set()
        kind, target = self._iterator(loop.iter), loop.target
        if kind == "enumerate" and type(target) is cst.Tuple and target.elements:
            target = target.elements[0].value
        elif kind != "range":
            return set()
        if type(target) is not cst.Name or any(n == target.value for n, _ in bindings_in(_statements(loop))):
            return set()
        return {target.value}

    def _per_iteration(self, expr, counters, loop, depth) -> bool:
        """A Python number computed from the loop counters with arithmetic."""
        if type(expr) is cst.Name:
            if expr.value in counters:
                return not self.context.is_tensor(expr)
            values = [node for n, node in bindings_in(_statements(loop)) if n == expr.value]
            return depth > 0 and bool(values) and all(
                type(v) is cst.Assign and self._per_iteration(v.value, counters, loop, depth - 1) for v in values)
        if type(expr) is cst.BinaryOperation and type(expr.operator) in ARITHMETIC:
            sides = (expr.left, expr.right)
            return all(self._number(s, counters, loop, depth) for s in sides) and any(
                self._per_iteration(s, counters, loop, depth) for s in sides)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return self._per_iteration(expr.expression, counters, loop, depth)
        if type(expr) is cst.Call and len(expr.args) == 1 and any(
                is_builtin(self.context, expr.func, cast) for cast in ("int", "float")):
            return self._per_iteration(expr.args[0].value, counters, loop, depth)
        return False

    def _number(self, expr, counters, loop, depth) -> bool:
        if type(expr) in NUMBERS or self._per_iteration(expr, counters, loop, depth):
            return True
        if type(expr) is cst.Name:
            return type(self.context.assigned_value(expr)) in NUMBERS
        return False

    def leave_Module(self, node: cst.Module) -> None:
        for callee, arg, message, mode in self.passed:
            if callee is None or self.decorated.get(callee):
                self.report(arg, message, when=_in_eager(mode))
        for place, name, report_node, message, mode, scope in self.created:
            if scope is None:
                called = name is None or (place, name) in self.called
            else:
                called = any(m() == "E" for m in self.called_in_loop.get(place, ())) and (
                    name is None or (scope, name) in self.called)
            if called:
                self.report(report_node, message, when=_in_eager(mode))


def _statements(loop):
    body = loop.body
    return body.body if isinstance(body, cst.IndentedBlock) else [body]


def _in_body(statement, function) -> bool:
    """``statement`` is a statement of ``function``'s own body, not nested in a block."""
    body = function.body
    return isinstance(body, cst.IndentedBlock) and any(
        s is statement or (isinstance(s, cst.SimpleStatementLine) and statement in s.body) for s in body.body)


def _in_eager(mode):
    return lambda: mode() == "E"
