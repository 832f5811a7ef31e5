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
function once, before the loop.  A trace per value is deliberate when the body
uses the number as a Python value (``layers[i](x)`` raises ``TypeError`` on a
tensor; ``tf.zeros([i])`` loses its static shape): that is not reported.

Severity: warning in E (the loop runs eagerly); off elsewhere (a loop inside a
``tf.function`` is traced once or converted by autograph).

Fix safety: none offered: ``tf.constant(i)`` changes what the function
computes when it uses the number as a Python int, and moving a function out of
a loop changes what it captures.

Known problems: a counter is the target of ``for`` over ``range(...)`` (more
than five values) or the index of ``enumerate(...)``, not rebound in the loop,
passed in the innermost loop, or a name that loop binds only to arithmetic on
counters and numbers (``%`` gives few values: not counted).  The callee is a
name bound only to a ``def`` of this module decorated by ``tf.function``
alone, or once to ``tf.function(g)`` of such a ``def``, without
``input_signature``; and its parameter is read only where a tensor serves as
well: arithmetic (not with a literal list or string), an elementwise
TensorFlow op (``tf.cast(i, ...)``, ``tf.add(x, i)``; not a shape or count),
the data or ``step`` of a TF2 summary (``tf.summary.scalar("loss", l,
step=i)``), the index of a known tensor (``t[:, i]``; not a slice bound, which
a tensor would leave without a static shape), ``return``, or a local name
read likewise.  Methods, lambdas, imported
functions and wrappers are not seen.  A function created in a loop over
``range``, ``enumerate``, a dataset or ``while`` is reported when that loop
(not an inner one) calls it; one created by another function, when that
function has no decorator, defines it in its own body, calls it outside a
loop, and is itself called in such a loop of the same module.
"""
import re

import libcst as cst

from ..analysis.loops import (PYTHON_VALUE, is_read, is_step_loop, loop_counters, number_per_iteration,
                              number_use, statement_loops)
from ..analysis.syntax import bound_parameter, call_arg
from ..rule import WARNING, Rule, per_mode

PASSED = ("`{callee}` (a tf.function) gets the Python number `{arg}`, a new value on every iteration: it is "
          "traced again for each value (`reduce_retracing=True` does not help); pass a tensor "
          "(`tf.constant({arg})`) or give it an `input_signature`")
_UNKNOWN = object()  # not yet in a cache whose answers may be None
_FUNCTIONS = frozenset({cst.FunctionDef, cst.Lambda})
# ``tf.function`` is reached as an attribute (``tf.function``, ``tf.compat.v2.function``) or imported
# by name (``from tensorflow import function``, in a list, across lines)
_ATTRIBUTE = re.compile(r"\.[ \t\\\r\n]*+function\b")
_IMPORTED = re.compile(r"\bimport[ \t\\\r\n(]++(?:[\w., \t\\\r\n]++|#[^\r\n]*+)*+")
_FUNCTION = re.compile(r"\bfunction\b")
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

    @classmethod
    def may_report_in(cls, source: str) -> bool:
        return "function" in source and (_ATTRIBUTE.search(source) is not None or any(
            _FUNCTION.search(names.group()) for names in _IMPORTED.finditer(source)))

    def setup(self) -> None:
        self.defs = {}  # (id(scope), name) -> its FunctionDef
        self.traced = {}  # (id(scope), name) of a tf.function without input_signature -> key of its def
        self.uses = {}  # (id(FunctionDef), name) -> PYTHON_VALUE, or the keys of the local names it is assigned to
        self.passed = []  # (callee key, position or keyword, node, message, mode): Python numbers per iteration
        self.created = []  # (loop id or outer key, name called or None, node, message, mode, outer scope id)
        self.called = set()  # (id(innermost loop), name) and (id(function scope), name) of calls by name
        self.called_in_loop = {}  # (id(scope), name) of functions called in a step loop -> modes of the calls
        # scope -> {name: the def owning it, or None}, memoized (bindings do not change during the
        # traversal); the last scope's table is kept at hand
        self.owner_functions = {}
        self.scope_seen = self.owners_seen = None

    def _is_function(self, expr) -> bool:
        # tf_call: the last call's answer is kept, and every rule asks it of every call
        name = self.context.tf_call(expr) if type(expr) is cst.Call else self.context.tf_name(expr)
        return getattr(name, "path", "") == "function"

    def _traces_per_value(self, expr) -> bool:
        """``tf.function`` or ``tf.function(...)`` without ``input_signature``."""
        return self._is_function(expr) and (type(expr) is not cst.Call or call_arg(expr, 1, "input_signature") is None)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        key = (id(self.context.scope), node.name.value)
        self.defs[key] = node
        decorators = [d.decorator for d in node.decorators]
        if any(self._is_function(d) for d in decorators):
            if len(decorators) == 1 and self._traces_per_value(decorators[0]):
                self.traced[key] = key
            self._created(decorators[0] if len(decorators) == 1 else node.name, node.name.value, node)

    def visit_Name(self, node: cst.Name) -> None:
        context = self.context
        scope = context.scope
        if scope is context.module_scope or not is_read(context.parent, node):
            return  # number_use would say None: nothing to record (and the owner costs more)
        if scope is not self.scope_seen:  # most names are read where the last one was
            self.scope_seen, self.owners_seen = scope, self.owner_functions.setdefault(scope, {})
        name = node.value
        function = self.owners_seen.get(name, _UNKNOWN)
        if function is _UNKNOWN:
            function = self.owners_seen[name] = self._owner_function(scope, name)
        if function is None:
            return
        key = (id(function), name)
        if self.uses.get(key) is PYTHON_VALUE:
            return  # settled: no other read can change it
        use = number_use(context, node)
        if type(use) is cst.Name:
            local = context.owner(use.value)
            use = (id(local.node), use.value) if type(getattr(local, "node", None)) is cst.FunctionDef else PYTHON_VALUE
        if use is PYTHON_VALUE:
            self.uses[key] = PYTHON_VALUE
        elif use is not None:
            self.uses.setdefault(key, set()).add(use)

    def _owner_function(self, scope, name: str):
        """The ``def`` whose scope binds ``name`` as seen from ``scope``, or None."""
        node = getattr(self.context.owner(name, scope), "node", None)
        return node if type(node) is cst.FunctionDef else None

    def visit_Call(self, node: cst.Call) -> None:
        parent, scope = self.context.parent, self.context.scope
        if type(parent) is not cst.Decorator and self._is_function(node):
            if type(parent) is cst.Call and parent.func is node:
                self._created(node, None, node)
            elif type(parent) is cst.Assign and len(parent.targets) == 1 and type(parent.targets[0].target) is cst.Name:
                target, wrapped = parent.targets[0].target.value, node.args[0].value if node.args else None
                self._created(node, target, parent)
                if (type(wrapped) is cst.Name and self._traces_per_value(node) and not node.args[0].keyword
                        and len(self.context.bindings(wrapped.value) or ()) == 1):
                    self.traced[(id(scope), target)] = (id(self.context.owner(wrapped.value)), wrapped.value)
        if type(node.func) is not cst.Name:
            return
        name, loops = node.func.value, statement_loops(self.context.ancestors)
        owner = self.context.owner(name)
        if not loops:
            self.called.add((id(self._function_scope()), name))
            return
        self.called.add((id(loops[0]), name))
        if owner is None or len(self.context.bindings(name)) != 1 or not is_step_loop(self.context, loops[0]):
            return
        mode = self.context.mode_thunk(node)
        self.called_in_loop.setdefault((id(owner), name), []).append(mode)
        counters = loop_counters(self.context, loops[0])
        if not counters or any(arg.star for arg in node.args):
            return
        for position, arg in enumerate(node.args):
            if number_per_iteration(self.context, arg.value, counters, loops[0]):
                code = self.context.module.code_for_node(arg.value)
                where = arg.keyword.value if arg.keyword else position
                self.passed.append(((id(owner), name), where, arg.value, PASSED.format(callee=name, arg=code), mode))

    def _created(self, report_node, name, statement) -> None:
        """A tf.function made at ``statement``: in a step loop of this function, or in a function's body."""
        loops = statement_loops(self.context.ancestors)
        mode = self.context.mode_thunk(report_node)
        if loops:
            if is_step_loop(self.context, loops[0]):
                self.created.append((id(loops[0]), name, report_node, IN_LOOP, mode, None))
            return
        function = self._function_scope().node
        if (type(function) is not cst.FunctionDef or function.decorators
                or not (statement is report_node or _in_body(statement, function))):
            return
        scope = self.context.scope_of(function)
        message = IN_CALLEE.format(outer=function.name.value)
        self.created.append(((id(scope.parent), function.name.value), name, report_node, message, mode, id(scope)))

    def _function_scope(self):
        """The scope of the innermost function around here (the module's outside any)."""
        scope = self.context.scope
        while scope.parent is not None and type(scope.node) not in _FUNCTIONS:
            scope = scope.parent
        return scope

    def _as_python_value(self, key) -> bool:
        """The parameter or local name ``key`` reaches a use as a Python value."""
        seen, stack = {key}, [key]
        while stack:
            uses = self.uses.get(stack.pop(), frozenset())
            if uses is PYTHON_VALUE:
                return True
            stack.extend(uses - seen)
            seen |= uses
        return False

    def leave_Module(self, node: cst.Module) -> None:
        for callee, where, arg, message, mode in self.passed:
            function = self.defs.get(self.traced.get(callee))
            parameter = function and bound_parameter(function.params, where)
            if parameter and not self._as_python_value((id(function), parameter)):
                self.report(arg, message, when=_in_eager(mode))
        for place, name, report_node, message, mode, scope in self.created:
            if scope is None:
                called = name is None or (place, name) in self.called
            else:
                called = any(m() == "E" for m in self.called_in_loop.get(place, ())) and (
                    name is None or (scope, name) in self.called)
            if called:
                self.report(report_node, message, when=_in_eager(mode))


def _in_body(statement, function) -> bool:
    """``statement`` is a statement of ``function``'s own body, not nested in a block."""
    body = function.body
    return isinstance(body, cst.IndentedBlock) and any(
        s is statement or (isinstance(s, cst.SimpleStatementLine) and statement in s.body) for s in body.body)


def _in_eager(mode):
    return lambda: mode() == "E"
