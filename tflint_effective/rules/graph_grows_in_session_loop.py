"""Ops built on every iteration of a loop that runs a TF1 session: the graph grows.

Why: in TF1 graph mode every op call adds nodes to the default graph; it
computes nothing until a session runs it.  An op, variable, initializer,
``Saver``, ``tf.assign`` or ``optimizer.minimize`` built inside a loop that
runs the session adds new nodes at every step: the graph only grows, memory
leaks and each step gets slower, since the session must extend its graph
before running (measured on TF 2.21: ``sess.run(tf.reduce_mean(x, axis=0))``
in a loop adds 2 ops per step, and 1,000 steps took 28 s instead of 0.2 s
with the op built once).  Build the op once before the loop, feed what
changes through a placeholder, and call ``graph.finalize()`` before the loop
(or run it under ``runtime_checks.finalized_graph()``) so that any op built
inside raises at once; ``tf.compat.v1.train.MonitoredTrainingSession``
already finalizes.

Severity: warning in G and E (a session runs a graph); off in F and F0 (no
session inside ``tf.function``).

Fix safety: none offered; moving the op out of the loop changes what it reads
(values computed in the loop must become placeholders).

Known problems: a loop counts when it runs ``.run`` / ``.eval`` on a name
every binding of which is a session (``with tf.Session() as sess``,
``sess = tf.Session()``), on ``self.<attr>`` that the class only ever assigns
a session, on a tensor, variable or op bound once or by assignments each of which gives one
(also ``self.loss`` that the class assigns once), or when it calls a module-local function or a
method of the module's own class that does; sessions passed as parameters are not seen.
Calls of module-local functions, and of methods of the module's own classes through ``self`` or a
name bound once to an instance (``agent = Agent()``, then ``agent.copy_parameters()``; also
inherited), count as building ops when every call of theirs builds one, up to three calls deep.
An optimizer's ``minimize`` and a variable's ``assign`` count also on an attribute the class
assigns once (``self.optimizer.minimize(loss)``, ``self.epoch.assign_add(1.0)``).
Ops under an ``if`` (except a periodic ``step % n == 0``, which the message names, unless it asks for a
remainder that never comes: ``step % 10 == 450``), in an except handler, in a
fresh ``tf.Graph()`` (``as_default()``, or a session given one), or in a loop
that calls ``tf.reset_default_graph()`` (directly or through a module-local
function) are not reported, nor are calls of module-local
functions that build ops only sometimes (cached ops: an ``if`` that returns early, a ``global``
name the function assigns; one it only reads, ``global prediction``, caches nothing), nor loops
whose literal counts allow at most 15 iterations in all (``for i in range(5)``, Python 2's
``xrange(EPOCHS)`` with ``EPOCHS = 5``, ``range(1, steps + 1)`` with ``steps = 1``,
``range(len(files))`` with ``files`` a list literal, ``np.array([a, b])``, ``enumerate(range(5))`` (also
``reversed``, ``zip``), ``while n < 3`` with ``n = 0`` just before it and one ``n += 1`` at the top of its body
and no ``continue``, ``for i in range(6001)``
around ``if i % 2000 == 0``, also
nested in ``if i % 20 == 0``, ``range(n)`` with ``n`` bound to ``1`` in one branch and to ``EPOCHS
= 10`` in the other, a loop whose body ends in an unconditional ``break`` (or ``sys.exit()``) and holds
no ``continue``:
a model per ensemble member, a few test batches, a few checkpoints, one pass): a
bounded handful of copies.  An op that reads what the loop varies is reported only in loops over counters or Python data
(``range``, ``while``, file lists), and not when it indexes with them
(``variables[i].assign(...)``; slicing a batch out of data, ``data[j * size:(j + 1) * size]``, is no
indexing, nor is an index into a name every assignment of which is a session run's result, NumPy data:
``tf.argmax(probs[i])`` after ``probs = sess.run(y)``); a loop that builds some op from its elements
(``for lr in rates: opt(lr).minimize(loss)``), or runs something it binds otherwise than by an op or an
``assign`` (``model = Model(config)``, then ``sess.run(model.train_op)``), builds a model per element on
purpose and is not reported at all, nor is a loop each iteration of which opens a session of its
own and runs a loop of steps in it (``for run in range(num_runs): ...; with tf.Session() as sess:
for step in ...``): it goes over training runs, models or folds, not over the steps of one
session; ops built in the loop of steps are reported.  ``tf.get_variable`` (it may reuse),
``tf.data``, Keras layers and methods of objects of other types are not
counted as ops.  ``tf.no_op()`` alone (``run_epoch(sess, model, data,
tf.no_op())``, an idiom of TensorFlow's old PTB tutorial) is info: one empty
node per iteration, harmless over a few epochs.
"""
import builtins
import functools
import math

import libcst as cst

from ..analysis.counted_while import while_count
from ..analysis.loops import body_statements, bound_names, is_builtin, literal_count, range_arguments
from ..analysis.periodic import period
from ..analysis.session_loops import NESTED, VARIABLE_METHODS, SessionLoops, blocks, statements, walk
from ..analysis.syntax import bindings_in, call_arg, code_children
from ..rule import INFO, WARNING, Rule, per_mode

LOOPS = (cst.For, cst.While)
FEW_COPIES = 15
BOUNDARIES = (*NESTED, *LOOPS)  # the node types `boundaries` holds (visit_For and its aliases)
MESSAGE = ("`{code}`{hides} builds new graph ops {when} a loop that runs a session: the graph "
           "grows {growth} (slower steps, leaked memory); build it once before the loop, feed what changes "
           "through a placeholder, and `graph.finalize()` (or `runtime_checks.finalized_graph()`) the graph")
EVERY_STEP = {"when": "on every iteration of", "growth": "each step"}
NO_OP_MESSAGE = ("`tf.no_op()` adds an empty node on every iteration of a loop that runs a session: harmless "
                 "over a few epochs, a leak over many steps; build it once before the loop")


class GraphGrowsInSessionLoop(Rule):
    """Op built inside a loop that runs a session: the graph grows every step."""

    CODE = "TFE601"
    MESSAGE = "op built on every iteration of a session loop: the graph grows; build it once before the loop"
    SEVERITY = per_mode(WARNING, F=None, F0=None)
    EXAMPLE_HEADER = "import tensorflow.compat.v1 as tf\n"
    BAD = """
        x = tf.placeholder(tf.float32, [None])
        with tf.Session() as sess:
            for batch in batches:
                print(sess.run(tf.reduce_mean(x, axis=0), {x: batch}))
    """
    GOOD = """
        x = tf.placeholder(tf.float32, [None])
        mean = tf.reduce_mean(x, axis=0)
        with tf.Session() as sess:
            for batch in batches:
                print(sess.run(mean, {x: batch}))
    """

    def setup(self) -> None:
        self.loops = SessionLoops(self.context)
        self.reported = set()
        self.per_element = {}
        self.boundaries = []  # the loops, functions and classes around the node being visited

    def visit_For(self, node: cst.CSTNode) -> None:
        self.boundaries.append(node)

    def leave_For(self, node: cst.CSTNode) -> None:
        self.boundaries.pop()

    visit_While = visit_FunctionDef = visit_Lambda = visit_ClassDef = visit_For
    leave_While = leave_FunctionDef = leave_Lambda = leave_ClassDef = leave_For

    def visit_Call(self, node: cst.Call) -> None:
        ancestors = self.context.ancestors
        if not self.boundaries or type(self.boundaries[-1]) not in LOOPS or (
                self.reported and any(id(a) in self.reported for a in ancestors)):
            return  # not in a loop of this function
        function = next((b for b in reversed(self.boundaries) if type(b) is cst.FunctionDef), None)
        scope = self.loops.scope_of(function) if function is not None else self.context.module_scope
        if not self.loops.builds_ops(node, self.context.scope):
            return
        chain = self._loops(ancestors, scope)
        if chain and self._same_each_step(node, chain, scope) and not any(
                self._builds_per_element(loop, scope) for loop in chain):
            self.reported.add(id(node))
            name = self.context.tf_call(node)
            if name is not None and name.path == "no_op" and not node.args:
                self.report(node, NO_OP_MESSAGE, severity=INFO)
                return
            code = self.context.module.code_for_node(node.func)
            # ``def min(x): return tf.reduce_min(x)`` in the module: ``min(i + 32, n)`` is that one
            hides = f" (this module's `{code}`, which hides the builtin)" if (
                type(node.func) is cst.Name and hasattr(builtins, code)) else ""
            self.report(node, MESSAGE.format(code=code + ("(...)" if node.args else "()"), hides=hides,
                                             **self._when(ancestors, chain[-1])))

    def _when(self, ancestors, loop) -> dict:
        """When the op is built: each iteration, or each time a periodic branch in the loop runs
        (``if step % 100 == 0``), which the message names."""
        for depth in range(len(ancestors) - 2, ancestors.index(loop), -1):
            node = ancestors[depth]
            if type(node) is cst.If and ancestors[depth + 1] is node.body:
                test = self.context.module.code_for_node(node.test)
                test = f"`{test}`" if len(test) <= 40 else "its periodic test"
                return {"when": f"each time {test} holds in", "growth": "all along the run"}
        return EVERY_STEP

    def _loops(self, ancestors, scope):
        """Loops around the call, innermost first, up to the innermost one that runs a session;
        empty when the call runs only sometimes per iteration or in a fresh graph."""
        chain = []
        for depth in range(len(ancestors) - 2, -1, -1):
            node, child = ancestors[depth], ancestors[depth + 1]
            if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return []
            if blocks(node, child, self.loops, scope):
                return []
            if isinstance(node, (cst.For, cst.While)) and child is node.body:
                chain.append(node)
                if self.loops.loop_runs_session(node, scope):
                    # asked last (few loops run a session): a loop that resets the graph builds anew,
                    # one that trains in a session of its own per iteration goes over runs, not steps
                    if self._few_copies(ancestors) or self.loops.over_runs(node, scope) or any(
                            self.loops.resets_graph(loop, scope) for loop in chain):
                        return []
                    return chain
        return []

    def _few_copies(self, ancestors) -> bool:
        """The loops around the call in its function have literal counts (``range(5)``, ``n = 5;
        range(n)``, a list literal) that multiply to at most 15: a handful of copies (one per
        model, a few test batches), no growth step after step.  Under a periodic branch
        (``if i % 2000 == 0``) a ``range`` over ``i`` counts the values the branch is taken at."""
        copies, periods = 1, {}
        for depth in range(len(ancestors) - 2, -1, -1):
            node, child = ancestors[depth], ancestors[depth + 1]
            kind = type(node)
            if kind in BOUNDARIES and kind not in LOOPS:
                break
            if kind is cst.If and child is node.body:
                counter = period(self.context, node.test)
                if counter is not None:  # nested periodic branches: both hold at multiples of both
                    periods[counter[0]] = math.lcm(periods.get(counter[0], 1), counter[1])
            elif kind in LOOPS and child is node.body:
                if _runs_once(node, self.context):
                    count = 1
                elif kind is cst.For:
                    count = literal_count(self.context, node.iter)
                else:  # ``n = 0`` before ``while n < 3:`` stepping ``n += 1``
                    count = while_count(self.context, node, statements(ancestors[depth - 1]) if depth else ())
                if count is None:
                    return False
                every = periods.get(node.target.value) if kind is cst.For and type(node.target) is cst.Name else None
                if every is not None and len(range_arguments(self.context, node.iter) or ()) in (1, 2):
                    count = -(-count // every)  # the multiples of `every` among `count` consecutive values
                copies *= count
        return copies <= FEW_COPIES

    def _builds_per_element(self, loop, scope) -> bool:
        """The loop builds or runs a model per element on purpose: some op is built from what each
        iteration brings (``for lr in rates: opt(lr).minimize(loss)``), or a fetch is something the
        loop binds otherwise than by an op (``model = Model(config); sess.run(model.train_op)``).
        The initializers and savers it builds belong to those models."""
        if id(loop) not in self.per_element:
            bindings = bindings_in(statements(loop))
            varying = _varying([loop])
            built = {name for name, node in bindings if isinstance(node, cst.Assign) and type(node.value) is cst.Call
                     and (self.loops.builds_ops(node.value, scope) or _assigns(node.value))}
            self.per_element[id(loop)] = any(
                type(node) is cst.Call and (
                    self.loops.builds_ops(node, scope) and not self._same_each_step(node, [loop], scope)
                    or self.loops.runs_session(node, scope) and any(
                        name in varying and name not in built for name in self._fetched_names(node, scope)))
                for node in walk(loop.body))
        return self.per_element[id(loop)]

    def _fetched_names(self, call, scope):
        """Names a session call's fetches read, outside the ops they build (reported themselves)."""
        stack = [_fetches(call, self.loops, scope)]
        while stack:
            node = stack.pop()
            if type(node) is cst.Name:
                yield node.value
            elif not (type(node) is cst.Call and self.loops.builds_ops(node, scope)):
                stack.extend(child.value if type(child) is cst.Arg else child for child in code_children(node)
                             if not (type(node) is cst.Attribute and child is node.attr))

    def _same_each_step(self, node, chain, scope) -> bool:
        """The op is the same each step (reads nothing the loops vary), or the loops step through
        counters or data and it reads them without indexing graph elements."""
        varying = _varying(chain)
        data = functools.partial(self.loops.holds_run_result, scope=scope)
        reads = _reads(node, data)
        if not any(name in varying for name, _ in reads):
            return True
        if not all(self.loops.step_loop(loop, scope) for loop in chain):
            return False
        if any(indexing and name in varying for name, indexing in reads):
            return False
        sources = [n.value for loop in chain for name, n in bindings_in(statements(loop))  # a run's result is data
                   if name in {r for r, _ in reads} and isinstance(n, cst.Assign)
                   and not self.loops.is_run_result(n.value, scope)]
        return not any(indexing and name in varying for value in sources for name, indexing in _reads(value, data))


def _runs_once(loop, context) -> bool:
    """The body ends in an unconditional ``break`` (or ``return`` / ``raise``, or a call of
    ``exit()``, ``sys.exit()``...) and holds no ``continue``: one iteration at most (a loop cut
    short while debugging)."""
    last = body_statements(loop)[-1]
    if type(last) is not cst.SimpleStatementLine or any(type(node) is cst.Continue for node in walk(loop.body)):
        return False
    end = last.body[-1]
    return type(end) in (cst.Break, cst.Return, cst.Raise) or type(end) is cst.Expr and _exits(end.value, context)


def _exits(expr, context) -> bool:
    """A call that ends the program: the builtin ``exit`` / ``quit``, ``sys.exit``, ``os._exit``."""
    if type(expr) is not cst.Call:
        return False
    return (is_builtin(context, expr.func, "exit") or is_builtin(context, expr.func, "quit")
            or context.qualname(expr.func) in ("sys.exit", "os._exit"))


def _varying(chain):
    """Names that may change from one iteration to the next: the loops' targets and whatever
    their bodies bind."""
    names = set()
    for loop in chain:
        names |= {name for name, _ in bindings_in(statements(loop))}
        names |= bound_names(loop.target) if isinstance(loop, cst.For) else set()
    return names


def _assigns(call: cst.Call) -> bool:
    """``anything.assign(...)`` (``_add``, ``_sub``): an op, whatever its variable (``model.epoch_pointer``)."""
    return type(call.func) is cst.Attribute and call.func.attr.value in VARIABLE_METHODS


def _fetches(call: cst.Call, loops, scope) -> cst.CSTNode:
    """What a session call runs: ``sess.run(fetches, ...)``'s first argument, else the receiver
    (``tensor.eval(feed)``, ``op.run(feed)``: what an op or a tensor is first given is a feed dict)."""
    receiver = call.func.value
    an_op = all(isinstance(value, cst.Call) and not loops.is_session(value, where)
                for value, where in loops.values(receiver, scope))
    fetches = call_arg(call, 0, "fetches") if call.func.attr.value == "run" and not an_op else None
    return fetches.value if fetches is not None else receiver


def _reads(tree: cst.CSTNode, data=lambda name: False):
    """(name, read inside a subscript's index) for every name read in ``tree``.  The bounds of a
    slice (``data[j * size:(j + 1) * size]``) cut a batch out of data, and an index into a name that
    ``data`` says holds NumPy data (a session run's result, ``probs[i]``) picks a number: neither selects
    a graph element."""
    found, stack = set(), [(tree, False)]
    while stack:
        node, indexing = stack.pop()
        if isinstance(node, cst.Name):
            found.add((node.value, indexing))
        elif isinstance(node, (cst.Attribute, cst.Arg)):
            stack.append((node.value, indexing))
        elif isinstance(node, cst.Subscript):
            stack.append((node.value, indexing))
            picks = not (isinstance(node.value, cst.Name) and data(node.value))
            stack.extend((element, indexing or picks and type(element.slice) is not cst.Slice)
                         for element in node.slice)
        else:
            stack.extend((child, indexing) for child in code_children(node))
    return found
