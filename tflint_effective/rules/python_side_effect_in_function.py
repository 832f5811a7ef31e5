"""Python side effects in a `tf.function` body: they run while tracing, not on every call.

Why: ``tf.function`` runs the Python body once per trace to build a graph, then
runs the graph.  Python code that changes the world outside the function runs
during that trace only (measured on TF 2.21, three calls of one trace):
``log.append(x)`` on a module-level list appends once, holding a symbolic
tensor; ``count += 1`` on a ``global`` counts 1; ``random.random()`` and
``np.random.rand()`` are drawn once and every call returns the same value;
``print`` prints once.  Keep state in a ``tf.Variable`` (or collect values in a
``tf.TensorArray`` and return them), draw with ``tf.random`` (or a
``tf.random.Generator``), print with ``tf.print``.

Severity: warning in F and F0, for a container defined outside the function
that is mutated (``append``, ``extend``, ``insert``, ``update``, ``add``,
``pop``..., ``d[k] = v``), an assignment to a ``global`` / ``nonlocal`` name,
and Python's ``random.*`` / ``np.random.*`` draws; info for ``print`` (the
TensorFlow guide prints on purpose to show when a function traces).  Only
functions wrapped by ``tf.function`` itself (decorator, ``tf.function(f)``, a
configured wrapper) are checked: a Keras ``call`` / ``train_step`` writes
``self`` on purpose, and a ``tf.py_function`` body runs Python on every call.

Fix safety: none offered; the stateful TensorFlow version changes what the
function returns and where its state lives.

Known problems: only the innermost function counts: a helper called from a
``tf.function`` (traced too) is not checked.  A container is seen when every
binding of its name, outside the function, is a list / dict / set display,
comprehension, ``list()`` / ``dict()`` / ``set()`` or ``collections.*`` call;
attributes (``self.history.append``) are not.  Storing a ``tf.Variable(...)`` (also
through a name bound once to one) and changing a name under an ``if`` that tests it
(``if name is None:``, ``if not cache:``, ``if key not in cache:``, ``if cache[0] is
None:``) are not reported: creating state on the
first trace only is the documented way to make it once, and code that fills a
structure while tracing on purpose guards it that way.  Constructors of random
generators (``np.random.default_rng``) and seeding are not reported.
"""
import libcst as cst

from ..analysis.loops import is_builtin
from ..analysis.syntax import MUTATORS
from ..rule import INFO, WARNING, Rule, per_mode

CONTAINERS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)
NOT_DRAWS = frozenset({"seed", "default_rng", "get_state", "set_state", "getstate", "setstate"})
STATE = "keep the state in a `tf.Variable` (or a `tf.TensorArray` returned by the function)"
MESSAGES = {
    "mutate": "`{code}` changes `{name}`, defined outside this tf.function: it runs only while tracing (once per "
              "trace, holding symbolic tensors), not on every call; " + STATE,
    "global": "assignment to {kind} `{name}` in a tf.function runs only while tracing, not on every call; " + STATE,
    "random": "`{code}` in a tf.function is drawn once, while tracing: every call reuses that value; "
              "use `tf.random` (or a `tf.random.Generator`)",
    "print": "`print` in a tf.function prints only while tracing; use `tf.print` to print on every call",
}


class PythonSideEffectInFunction(Rule):
    """Python side effect in a tf.function body: it runs only while tracing."""

    CODE = "TFE702"
    MESSAGE = "Python side effect in a tf.function runs only while tracing, not on every call"
    SEVERITY = per_mode(None, F=WARNING, F0=WARNING)
    BAD = """
        seen = []

        @tf.function
        def step(x):
            seen.append(x)
            return x + 1
    """
    GOOD = """
        seen = tf.Variable(0)

        @tf.function
        def step(x):
            seen.assign_add(1)
            return x + 1
    """

    def setup(self) -> None:
        self.declared = {}  # id(function scope) -> names declared global / nonlocal there

    def _report(self, node, message, severity=None, **names) -> None:
        message = MESSAGES[message].format(**names)
        self.report(node, message, severity=severity, when=self.context.in_tf_function_thunk(node))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if is_builtin(self.context, func, "print"):
            self._report(node, "print", severity=per_mode(None, F=INFO, F0=INFO))
        elif type(func) is cst.Attribute and func.attr.value in MUTATORS and type(func.value) is cst.Name:
            if (self._outer_container(func.value) and not self._lazy(func.value.value)
                    and not any(self._creates_variable(a.value) for a in node.args)):
                code = self.context.module.code_for_node(func)
                self._report(node, "mutate", code=code + "(...)", name=func.value.value)
        else:
            qualname = self.context.qualname(func) or ""
            if qualname.startswith(("random.", "numpy.random.")):
                leaf = qualname.rsplit(".", 1)[-1]
                if leaf[:1].islower() and leaf not in NOT_DRAWS:
                    self._report(node, "random", code=self.context.module.code_for_node(func) + "(...)")

    def visit_Global(self, node: cst.Global) -> None:
        self._declare(node, "global")

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._declare(node, "nonlocal")

    def _declare(self, node, kind) -> None:
        self.declared.setdefault(id(self.context.scope), {}).update((n.name.value, kind) for n in node.names)

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self._creates_variable(node.value):
            for target in node.targets:
                self._assigned(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._assigned(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and not self._creates_variable(node.value):
            self._assigned(node.target)

    def _creates_variable(self, value) -> bool:
        """``tf.Variable(...)``, also through a name bound once to one: made on the first trace
        only, on purpose (a variable per call fails)."""
        if type(value) is cst.Name:
            value = self.context.assigned_value(value)
        return getattr(self.context.tf_call(value), "leaf", "") == "Variable"

    def _lazy(self, name: str) -> bool:
        """Under an ``if`` that tests ``name`` itself (``if name is None:``, ``if not cache:``,
        ``if key not in cache:``): filled once, on the first trace, on purpose."""
        for node in reversed(self.context.ancestors):
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                return False
            if isinstance(node, cst.If) and name in _tested_names(node.test):
                return True
        return False

    def _assigned(self, target: cst.BaseExpression) -> None:
        kind = type(target)  # concrete classes
        if kind is cst.Tuple or kind is cst.List:
            for element in target.elements:
                self._assigned(element.value)
        elif kind is cst.Name:
            declared = self.declared.get(id(self.context.scope))  # most functions declare nothing
            kind = declared.get(target.value) if declared else None
            if kind is not None and not self._lazy(target.value):
                self._report(target, "global", kind=kind, name=target.value)
        elif kind is cst.Subscript and type(target.value) is cst.Name:
            if self._outer_container(target.value) and not self._lazy(target.value.value):
                code = self.context.module.code_for_node(target)
                self._report(target, "mutate", code=code + " = ...", name=target.value.value)

    def _outer_container(self, name: cst.Name) -> bool:
        """``name`` is a list, dict or set bound outside the innermost function around here."""
        owner = self.context.owner(name.value)
        scope = self.context.scope
        while scope is not None and not isinstance(scope.node, (cst.FunctionDef, cst.Lambda)):
            if scope is owner:
                return False
            scope = scope.parent
        if scope is None or owner is None or owner is scope or owner.is_class:
            return False
        bindings = owner.bindings.get(name.value, ())
        return bool(bindings) and all(self._is_container(getattr(b, "value", None), b) for b in bindings)

    def _is_container(self, value, binding) -> bool:
        if isinstance(value, CONTAINERS):
            return True
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        if isinstance(func, cst.Name) and func.value in ("list", "dict", "set"):
            return self.context.owner(func.value, binding.scope) is None and not binding.scope.module().star_import
        return (self.context.qualname(func, binding.scope) or "").startswith("collections.")


def _tested_names(test: cst.BaseExpression) -> set:
    """The plain names an ``if`` test reads through ``not``, ``and`` / ``or``, comparisons, calls
    and subscripts (``if cache[0] is None:`` tests ``cache``)."""
    if isinstance(test, cst.Name):
        return {test.value}
    if isinstance(test, cst.Subscript):
        return _tested_names(test.value)
    if isinstance(test, cst.UnaryOperation):
        return _tested_names(test.expression)
    if isinstance(test, cst.BooleanOperation):
        return _tested_names(test.left) | _tested_names(test.right)
    if isinstance(test, cst.Comparison):
        return _tested_names(test.left).union(*(_tested_names(c.comparator) for c in test.comparisons))
    if isinstance(test, cst.Call):
        return set().union(*(_tested_names(a.value) for a in test.args))
    return set()
