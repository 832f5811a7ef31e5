"""Which assignment reaches a name read in the visited statement (``analysis/reaching.py``)."""
import textwrap

import libcst as cst
import pytest

from tflint_effective.analysis.context import Context
from tflint_effective.engine.traversal import Traversal


class _Probes(cst.BatchableCSTVisitor):
    """At every ``probe(name)`` call: the code of the value ``assigned_value`` gives the name, and
    of the value of the name inside that value when it is one (``x = f(x)``: the earlier ``x``;
    ``x = f(lambda: x)``: the lambda's ``x``)."""

    def __init__(self, context):
        super().__init__()
        self.context = context
        self.seen = []

    def visit_Call(self, node):
        if type(node.func) is cst.Name and node.func.value == "probe":
            value = self.context.assigned_value(node.args[0].value)
            self.seen.append(None if value is None else self.context.module.code_for_node(value))
            inner = value.args[0].value if type(value) is cst.Call and value.args else None
            inner = inner.body if type(inner) is cst.Lambda else inner
            if type(inner) is cst.Name:
                inner = self.context.assigned_value(inner)
                self.seen.append(None if inner is None else self.context.module.code_for_node(inner))


def probes(source):
    module = cst.parse_module(textwrap.dedent(source))
    context = Context(module, "<test>")
    visitor = _Probes(context)
    module.visit(Traversal(context, [visitor]))
    return visitor.seen


@pytest.mark.parametrize("source, expected", [
    # the assignment before the read, in the module and in a function
    ("x = dense(h)\nx = softmax(x)\nprobe(x)\n", ["softmax(x)", "dense(h)"]),
    ("x = dense(h)\nprobe(x)\nx = softmax(x)\n", ["dense(h)", None]),
    ("def f(h):\n    x = dense(h)\n    x = softmax(x)\n    return probe(x)\n", ["softmax(x)", "dense(h)"]),
    # a name in a value reached is read where that value is assigned: never its own output
    ("x = a(h)\nx = b(x)\nx = c(x)\nprobe(x)\n", ["c(x)", "b(x)"]),
    ("x = a(h)\ny = b(x)\nx = c(h)\nprobe(y)\n", ["b(x)", "a(h)"]),
    ("y = a(h)\nx = b(y)\ny = c(y)\nprobe(x)\n", ["b(y)", "a(h)"]),
    # ... unless a lambda reads it, whenever it is called
    ("x = a()\nx = b(lambda: x)\nprobe(x)\n", ["b(lambda: x)", None]),
    # ... or the value was assigned in another scope, or where it may not run
    ("y = b(x)\nx = a()\nx = c()\ndef f():\n    return probe(y)\n", ["b(x)", None]),
    ("x = a()\nx = c()\nif k:\n    y = b(x)\nprobe(y)\n", ["b(x)", None]),
    # a parameter assigned again: its value before the assignment is unknown
    ("def f(x):\n    x = softmax(x)\n    return probe(x)\n", ["softmax(x)", None]),
    ("def f(x):\n    probe(x)\n    x = softmax(x)\n", [None]),
    # ``with`` blocks run once, in order; the items before the body
    ("x = a()\nwith tf.Session() as s:\n    x = b()\n    probe(x)\nprobe(x)\n", ["b()", "b()"]),
    ("x = a()\nwith g(probe(x)):\n    x = b()\n", ["a()"]),
    # several statements on a line, and the read in the value of the assignment itself
    ("x = a(); x = b(); probe(x)\n", ["b()"]),
    ("x = a()\nx = probe(x)\n", ["a()"]),
    # an augmented assignment holds the operation, its target read before it
    ("x = a()\nx += 1\nprobe(x)\n", ["x + 1"]),
    ("x = a()\nx -= m\ny = b(x)\nprobe(y)\n", ["b(x)", "x - m"]),
    ("x = a()\nx @= w\nx **= 2\nprobe(x)\n", ["x ** 2"]),
    # read inside a loop or a branch that assigns nothing: the assignment before it
    ("x = a()\nfor i in r:\n    probe(x)\nx = b()\n", ["a()"]),
    ("x = a()\nif c:\n    probe(x)\nx = b()\n", ["a()"]),
])
def test_the_assignment_before_the_read(source, expected):
    assert probes(source) == expected


@pytest.mark.parametrize("source", [
    # an assignment that may or may not run, or runs many times
    "x = a()\nif c:\n    x = b()\nprobe(x)\n",
    "x = a()\nfor i in r:\n    x = b()\nprobe(x)\n",
    "x = a()\ntry:\n    x = b()\nexcept E:\n    pass\nprobe(x)\n",
    "x = a()\nwhile c: x = b()\nprobe(x)\n",
    # a binding that is not an assignment of one value
    "x = a()\nx, y = b()\nprobe(x)\n",
    "x = a()\nfor x in r:\n    pass\nprobe(x)\n",
    "x = a()\nimport x\nprobe(x)\n",
    # read in another scope: a function may run after any assignment
    "x = a()\nx = b()\ndef f():\n    return probe(x)\n",
    "x = a()\nx = b()\nys = [probe(x) for _ in r]\n",
    # assigned from a function under ``global``
    "x = a()\ndef f():\n    global x\n    x = c()\nx = b()\nprobe(x)\n",
    # nothing assigned before the read
    "probe(x)\nx = a()\nx = b()\n",
])
def test_unknown(source):
    assert probes(source) == [None]
