"""TF1 session loops: which calls run a session, which add ops to the graph (TFE601).

Every question takes the scope its expression is read in, so a loop body, a
module-local function it calls and the function a loop calls can be judged
before the traversal reaches them.  Unknown receivers (parameters, attributes)
are never sessions: rules that use this stay silent about them.
"""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Set, Tuple

import libcst as cst

from .kinds import returns_tensor
from .names import FUNCTION_LIKE, OTHER, Assigned, Scope
from .periodic import never_true, periodic
from .syntax import assigns_outer_name, bindings_in, call_arg, code_children
from .tf_api import (ITERATOR_FACTORIES, OP_BUILDER_PREFIXES, OP_BUILDERS, SESSIONS, VARIABLES, TFName,
                     tf_name)

NESTED = (*FUNCTION_LIKE, cst.ClassDef)
RUN_METHODS = ("run", "eval")
VARIABLE_METHODS = ("assign", "assign_add", "assign_sub")
OPTIMIZER_METHODS = ("minimize", "apply_gradients", "compute_gradients")
# Iterables of counters or of Python data (one iteration per step), and wrappers of iterables.
STEP_BUILTINS = ("range", "xrange")
WRAPPER_BUILTINS = ("enumerate", "zip", "reversed")
STEP_SOURCES = {"os.listdir", "glob.glob", "glob.iglob", "itertools.count", "six.moves.range",
                "six.moves.xrange", "tqdm.trange", "tqdm.auto.trange"}
WRAPPERS = {"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm"}
TF_FILE_LISTS = ("Glob", "glob", "listdir", "ListDirectory")
NEW_SESSIONS = SESSIONS - {"get_default_session"}  # calls that open a session, not find one


def statements(node: cst.CSTNode) -> List[cst.CSTNode]:
    """The statements of a module, a function or a compound statement's body."""
    body = node if isinstance(node, (cst.Module, cst.BaseSuite)) else getattr(node, "body", None)
    if isinstance(body, cst.SimpleStatementSuite):
        return [body]
    return list(body.body) if isinstance(body, (cst.Module, cst.IndentedBlock)) else []


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node below ``node`` that runs with it (not the bodies of nested functions and classes)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(child for child in code_children(current) if type(child) not in NESTED)


class SessionLoops:
    """Per-file answers, cached: one instance per linted file (it holds no tree beyond it)."""

    def __init__(self, context):
        self.context = context
        self._sessions: Dict[int, Set[str]] = {}
        self._functions: Dict[int, Dict[str, cst.FunctionDef]] = {}
        self._runs: Dict[object, bool] = {}
        self._builds: Dict[int, bool] = {}

    # -- names ----------------------------------------------------------------------
    def api(self, func: cst.BaseExpression, scope: Scope) -> Optional[TFName]:
        return self.context.tf_name(func, scope)  # cached per node and scope

    def value(self, expr: cst.BaseExpression, scope: Scope) -> Tuple[Optional[cst.BaseExpression], Scope]:
        """``expr`` itself, or the value of a name bound exactly once by an assignment, or of an
        attribute its class assigns once (``self.optimizer = tf.train.AdamOptimizer(...)``)."""
        if isinstance(expr, cst.Attribute):
            return self.context.attribute_value(expr, scope) or (expr, scope)
        if not isinstance(expr, cst.Name):
            return expr, scope
        owner = self.context.owner(expr.value, scope)
        bindings = owner.bindings[expr.value] if owner is not None else []
        if len(bindings) == 1 and isinstance(bindings[0], Assigned):
            return bindings[0].value, bindings[0].scope
        return None, scope

    def values(self, expr: cst.BaseExpression, scope: Scope) -> List[Tuple[Optional[cst.BaseExpression], Scope]]:
        """``[value(expr)]``, or the values of a name every binding of which is an assignment
        (``accuracy = tf.reduce_mean(...)`` in two loops)."""
        owner = self.context.owner(expr.value, scope) if isinstance(expr, cst.Name) else None
        bindings = owner.bindings[expr.value] if owner is not None else ()
        if len(bindings) > 1 and all(isinstance(binding, Assigned) for binding in bindings):
            return [(binding.value, binding.scope) for binding in bindings]
        return [self.value(expr, scope)]

    def holds_run_result(self, name: cst.Name, scope: Scope) -> bool:
        """Every assignment of ``name`` is a session run's result (``probs = sess.run(p)``,
        ``t.eval()``): NumPy data, whose elements are no graph elements."""
        return all(self.is_run_result(value, where) for value, where in self.values(name, scope))

    def is_run_result(self, value: cst.BaseExpression, scope: Scope) -> bool:
        """``value`` is a session run (``sess.run(p)``, ``t.eval()``): its result is NumPy data."""
        return isinstance(value, cst.Call) and self.runs_session(value, scope)

    def called_api(self, expr: cst.BaseExpression, scope: Scope) -> Optional[TFName]:
        value, scope = self.value(expr, scope)
        return self.api(value.func, scope) if isinstance(value, cst.Call) else None

    def function(self, name: str, scope: Scope) -> Optional[cst.FunctionDef]:
        """The module-local function a plain name calls: bound once, by an undecorated ``def``."""
        owner = self.context.owner(name, scope)
        if owner is None or not isinstance(owner.node, (cst.Module, cst.FunctionDef)) \
                or owner.bindings[name] != [OTHER]:
            return None
        if id(owner) not in self._functions:
            found: Dict[str, List[cst.CSTNode]] = {}
            for bound, node in bindings_in(statements(owner.node)):
                found.setdefault(bound, []).append(node)
            self._functions[id(owner)] = {
                bound: nodes[0] for bound, nodes in found.items()
                if len(nodes) == 1 and isinstance(nodes[0], cst.FunctionDef) and not nodes[0].decorators}
        return self._functions[id(owner)].get(name)

    def scope_of(self, node: cst.CSTNode) -> Scope:
        return self.context.scope_of(node) or self.context.module_scope

    # -- sessions -------------------------------------------------------------------
    def session_names(self, scope: Scope) -> Set[str]:
        """Names every binding of which, in ``scope``, is a session (``with tf.Session() as s``)."""
        if id(scope) not in self._sessions:
            flags: Dict[str, List[bool]] = {}
            for name, node in bindings_in(statements(scope.node)):
                flags.setdefault(name, []).append(self._binds_session(name, node, scope))
            self._sessions[id(scope)] = {name for name, each in flags.items()
                                         if all(each) and len(each) == len(scope.bindings.get(name, ()))}
        return self._sessions[id(scope)]

    def session_attributes(self, cls: cst.ClassDef) -> Set[str]:
        """``self.<attr>`` that every method of ``cls`` assigns a session only."""
        if id(cls) not in self._sessions:
            flags: Dict[str, List[bool]] = {}
            for method in statements(cls):
                if isinstance(method, cst.FunctionDef):
                    scope = self.scope_of(method)
                    for node in walk(method.body):
                        for target in getattr(node, "targets", ()) if isinstance(node, cst.Assign) else ():
                            if _self_attribute(target.target):
                                flags.setdefault(target.target.attr.value, []).append(
                                    len(node.targets) == 1 and self.is_session(node.value, scope))
            self._sessions[id(cls)] = {name for name, each in flags.items() if all(each)}
        return self._sessions[id(cls)]

    def _binds_session(self, name: str, node: cst.CSTNode, scope: Scope) -> bool:
        if isinstance(node, cst.Assign):
            values = [node.value] if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) else []
        elif isinstance(node, cst.With):
            values = [item.item for item in node.items
                      if item.asname is not None and isinstance(item.asname.name, cst.Name)
                      and item.asname.name.value == name]
        else:
            return False
        return len(values) == 1 and self.is_session(values[0], scope)

    def is_session(self, expr: cst.BaseExpression, scope: Scope, kinds=SESSIONS) -> bool:
        name = self.api(expr.func, scope) if isinstance(expr, cst.Call) else None
        return name is not None and name.path in kinds

    def runs_session(self, call: cst.Call, scope: Scope) -> bool:
        """``sess.run(...)`` / ``tensor.eval()`` / ``op.run()`` on a receiver known to run a graph."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in RUN_METHODS):
            return False
        receiver = func.value
        if isinstance(receiver, cst.Name):
            owner = self.context.owner(receiver.value, scope)
            if owner is not None and receiver.value in self.session_names(owner):
                return True
        if _self_attribute(receiver) and scope.parent is not None and scope.parent.is_class and \
                receiver.attr.value in self.session_attributes(scope.parent.node):
            return True
        values = self.values(receiver, scope)  # also ``self.loss = tf.reduce_mean(...)``
        return all(self._runs_graph(func.attr.value, value, where) for value, where in values)

    def _runs_graph(self, method: str, value: Optional[cst.BaseExpression], value_scope: Scope) -> bool:
        """``.run()`` / ``.eval()`` (``method``) of ``value`` runs a graph."""
        if not isinstance(value, cst.Call):
            return False
        name = self.api(value.func, value_scope)
        if name is None:  # train_op = optimizer.minimize(loss); train_op.run()
            return method == "run" and self._optimizer_step(value, value_scope)
        if name.path in SESSIONS:
            return True
        if method == "eval":
            return returns_tensor(name) or name.path in VARIABLES
        return name.path in OP_BUILDERS and not returns_tensor(name)

    def loop_runs_session(self, loop: cst.CSTNode, scope: Scope, depth: int = 0) -> bool:
        """A session runs in the body of ``loop`` (a loop statement or a function), directly or
        through module-local functions it calls."""
        key = id(loop)
        if key not in self._runs:
            self._runs[key] = False  # recursion
            body = loop.body
            self._runs[key] = any(
                type(node) is cst.Call and (self.runs_session(node, scope) or depth < 3 and (
                    type(node.func) is cst.Name
                    and self._called_does(node.func.value, scope, depth, self.loop_runs_session)
                    or self._method_does(node.func, scope, depth, self.loop_runs_session)))
                for node in walk(body))
        return self._runs[key]

    def over_runs(self, loop: cst.CSTNode, scope: Scope) -> bool:
        """Each iteration of ``loop`` opens a session of its own and runs a loop of steps in it: it
        goes over training runs (models, folds, restarts), not over the steps of one session."""
        return self._opens_session(loop, scope) and any(
            type(node) in (cst.For, cst.While) and self.loop_runs_session(node, scope) for node in walk(loop.body))

    def _opens_session(self, block: cst.CSTNode, scope: Scope) -> bool:
        """A session opened whenever ``block`` (a loop, a ``with`` or ``try`` in it) runs:
        ``with tf.Session() as sess:`` or ``sess = tf.Session()`` among its statements."""
        for statement in statements(block):
            kind = type(statement)
            if kind is cst.With and any(self.is_session(item.item, scope, NEW_SESSIONS) for item in statement.items):
                return True
            if kind is cst.SimpleStatementLine and any(
                    type(small) is cst.Assign and self.is_session(small.value, scope, NEW_SESSIONS)
                    for small in statement.body):
                return True
            if kind in (cst.With, cst.Try) and self._opens_session(statement, scope):
                return True
        return False

    def method(self, func: cst.BaseExpression, scope: Scope) -> Optional[cst.FunctionDef]:
        """The undecorated method of the module's own class that ``func`` names (``agent.update``, ``self.step``)."""
        if type(func) is not cst.Attribute:
            return None
        method = self.context.semantics.summaries.function_called(func, scope, instances=True)
        return method if method is not None and not method.decorators else None

    def _method_does(self, func: cst.BaseExpression, scope: Scope, depth: int, question) -> bool:
        """``question`` (``loop_runs_session``) holds of the method ``func`` names."""
        method = self.method(func, scope)
        return method is not None and question(method, self.scope_of(method), depth + 1)

    def _called_does(self, name: str, scope: Scope, depth: int, question) -> bool:
        """``question`` (``loop_runs_session``, ``resets_graph``) holds of the module-local function
        ``name`` calls."""
        function = self.function(name, scope)
        return function is not None and question(function, self.scope_of(function), depth + 1)

    # -- ops ------------------------------------------------------------------------
    def builds_ops(self, call: cst.Call, scope: Scope, depth: int = 0) -> bool:
        """The call adds ops or variables to the default graph whenever it runs."""
        func = call.func
        name = self.api(func, scope)
        if name is not None:
            leaf = name.leaf
            return (name.path in OP_BUILDERS or returns_tensor(name) or leaf[:1].islower()
                    and name.path.startswith(OP_BUILDER_PREFIXES))
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in VARIABLE_METHODS:
                receiver = self.called_api(func.value, scope)
                return receiver is not None and receiver.path in VARIABLES
            if method in OPTIMIZER_METHODS:
                return self._optimizer_step(call, scope)
            if method == "get_next":
                value, value_scope = self.value(func.value, scope)
                return isinstance(value, cst.Call) and self._iterator(value, value_scope)
            # a method of the module's own class (``agent.copy_parameters()``, ``self.update()``)
            function = self.method(func, scope) if depth < 3 else None
            return function is not None and self.function_builds(function, depth + 1)
        if isinstance(func, cst.Name) and depth < 3:
            function = self.function(func.value, scope)
            return function is not None and self.function_builds(function, depth + 1)
        return False

    def _optimizer_step(self, call: cst.Call, scope: Scope) -> bool:
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in OPTIMIZER_METHODS):
            return False
        name = self.called_api(func.value, scope)
        return name is not None and name.leaf.endswith("Optimizer") and name.path.startswith(
            ("train.", "keras.optimizers."))

    def _iterator(self, value: cst.Call, scope: Scope) -> bool:
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value in ITERATOR_FACTORIES:
            return True
        name = self.api(func, scope)
        return name is not None and name.path.startswith("data.") and name.leaf in ITERATOR_FACTORIES

    def function_builds(self, function: cst.FunctionDef, depth: int) -> bool:
        """Every call of ``function`` builds ops: some op is built outside any ``if``, ``try``
        handler or fresh graph, no ``if`` returns early and no global name is assigned (a cached op)."""
        key = id(function)
        if key not in self._builds:
            self._builds[key] = False  # recursion
            scope = self.scope_of(function)
            self._builds[key] = not assigns_outer_name(function) and not any(
                isinstance(node, cst.If) and any(
                    isinstance(n, (cst.Return, cst.Raise)) for n in walk(node)) for node in walk(function.body)
            ) and any(isinstance(node, cst.Call) and self.builds_ops(node, scope, depth)
                      for node in unconditional(function.body, self, scope))
        return self._builds[key]

    # -- loops ----------------------------------------------------------------------
    def fresh_graph(self, with_node: cst.With, scope: Scope) -> bool:
        """``with tf.Graph().as_default():`` (or a name bound to ``tf.Graph()``), or ``with
        tf.Session(graph=<such a graph>):``, which makes its graph the default one too."""
        for item in with_node.items:
            call = item.item
            if type(call) is not cst.Call:
                continue
            if type(call.func) is cst.Attribute and call.func.attr.value == "as_default":
                if self._new_graph(call.func.value, scope):
                    return True
            elif getattr(self.api(call.func, scope), "path", None) in ("Session", "InteractiveSession"):
                graph = call_arg(call, 1, "graph")
                if graph is not None and self._new_graph(graph.value, scope):
                    return True
        return False

    def _new_graph(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        graph = self.called_api(expr, scope)
        return graph is not None and graph.path == "Graph"

    def resets_graph(self, loop: cst.CSTNode, scope: Scope, depth: int = 0) -> bool:
        """``tf.reset_default_graph()`` in the body of ``loop`` (a loop or a function), directly or
        through module-local functions it calls (``reset_graph()``)."""
        key = ("reset", id(loop))
        if key not in self._runs:
            self._runs[key] = False  # recursion
            self._runs[key] = any(type(node) is cst.Call and (
                getattr(self.api(node.func, scope), "path", None) == "reset_default_graph"
                or type(node.func) is cst.Name and depth < 3
                and self._called_does(node.func.value, scope, depth, self.resets_graph))
                for node in walk(loop.body))
        return self._runs[key]

    def step_loop(self, loop: cst.CSTNode, scope: Scope) -> bool:
        """A ``while`` loop, or a ``for`` over a counter or Python data (``range``, ``enumerate``
        of one, file lists): one iteration per step, not per graph element."""
        return isinstance(loop, cst.While) or self._steps(loop.iter, scope, 0)

    def _steps(self, iterable: cst.BaseExpression, scope: Scope, depth: int) -> bool:
        value, scope = self.value(iterable, scope)
        if not isinstance(value, cst.Call) or depth > 2:
            return False
        func = value.func
        builtin = func.value if isinstance(func, cst.Name) and self.context.owner(func.value, scope) is None else None
        qualname = self.context.qualname(func, scope)
        if builtin in WRAPPER_BUILTINS or qualname in WRAPPERS:
            iterables = [a.value for a in value.args if a.keyword is None]
            return bool(iterables) and all(self._steps(i, scope, depth + 1) for i in iterables)
        name = tf_name(qualname)
        return (builtin in STEP_BUILTINS or qualname in STEP_SOURCES
                or name is not None and name.path.startswith(("gfile.", "io.gfile.")) and name.leaf in TF_FILE_LISTS)


def _self_attribute(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"


def unconditional(body: cst.CSTNode, loops: SessionLoops, scope: Scope) -> Iterator[cst.CSTNode]:
    """Nodes of ``body`` that run whenever it runs (not under ``if``, an except handler, the
    right of ``and`` / ``or``, a conditional expression's branches, or a fresh graph)."""
    stack = [body]
    while stack:
        node = stack.pop()
        yield node
        for child in code_children(node):
            if not (isinstance(child, NESTED) or blocks(node, child, loops, scope)):
                stack.append(child)


def blocks(node: cst.CSTNode, child: cst.CSTNode, loops: SessionLoops, scope: Scope) -> bool:
    """``child`` of ``node`` runs only sometimes, or in a fresh graph."""
    kind = type(node)  # concrete classes
    if kind is cst.If:
        return child is not node.test and (not periodic(node.test) or never_true(loops.context, node.test))
    if kind is cst.IfExp:
        return child is not node.test
    if kind is cst.BooleanOperation:
        return child is node.right
    if kind is cst.With:
        return child is node.body and loops.fresh_graph(node, scope)
    return kind is cst.ExceptHandler or kind is cst.Try and any(
        child is handler for handler in node.handlers)
