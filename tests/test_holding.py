"""The assignment a name holds where it is read, from the statements before the read (``analysis/holding.py``)."""
import textwrap

import libcst as cst
import pytest

from tflint_effective.analysis.holding import holding_assignment


def _held(source):
    """The code of the value ``x`` holds at each ``probe(x)`` call, None when unknown."""
    module = cst.parse_module(textwrap.dedent(source))
    found = []

    class Paths(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.path = []

        def on_visit(self, node):
            self.path.append(node)
            if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "probe":
                held = holding_assignment("x", self.path)
                found.append(None if held is None else module.code_for_node(held[0].value))
            return True

        def on_leave(self, node):
            self.path.pop()

    module.visit(Paths())
    return found


@pytest.mark.parametrize("source, expected", [
    ("x = 1\nx = 2\nprobe(x)\n", ["2"]),
    ("x = 1\nwith a:\n    x = 2\n    y = 3\nprobe(x)\n", ["2"]),
    ("x = 1\nif c:\n    x = 2\n    probe(x)\nelse:\n    probe(x)\n", ["2", "1"]),
    ("def f():\n    a, x = g()\n    with d:\n        probe(x)\n", ["g()"]),
    ("x = 1; y = 2\nprobe(x)\n", ["1"]),
    # unknown: bound under if, by +=, filled, in the loop around the read, by a with or a parameter
    ("x = 1\nif c:\n    x = 2\nprobe(x)\n", [None]),
    ("x = []\nx += [1]\nprobe(x)\n", [None]),
    ("x = []\nx.append(1)\nprobe(x)\n", [None]),
    ("x = {}\nx['k'] = 1\nprobe(x)\n", [None]),
    ("x = 0\nfor i in r:\n    probe(x)\n    x = i\n", [None]),
    ("with a as x:\n    probe(x)\n", [None]),
    ("def f(x):\n    probe(x)\n", [None]),
    ("x = 0\ntry:\n    x = f()\nexcept E:\n    probe(x)\n", [None]),
    ("x = 0\nprobe(lambda: x)\n", ["0"]),
])
def test_holding_assignment(source, expected):
    assert _held(source) == expected


def test_an_assignment_earlier_on_the_same_line_is_left_unknown():
    assert _held("x = 1\nx = 2; probe(x)\n") == [None]
    assert _held("x = 1\ny = 2; probe(x)\n") == ["1"]
