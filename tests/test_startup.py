"""Start-up cost: what a run on a few files pays before the first analysis."""
import subprocess
import sys

from tflint_effective.analysis.context import Context
from tflint_effective.engine import traversal
from tflint_effective.registry import all_rules

import libcst as cst


def test_visitor_methods_are_what_libcst_would_collect():
    context = Context(cst.parse_module("import tensorflow as tf\n"), "m.py")
    visitors = [context.semantics, *(rule(context, lambda report: None) for rule in all_rules())]
    for visitor in visitors:
        assert traversal._visitor_names(type(visitor)) == tuple(sorted(visitor.get_visitors())), visitor


def test_a_visitor_overriding_a_method_with_a_no_op_drops_it():
    class Base(cst.CSTVisitor):
        def visit_Call(self, node):
            return True

        def leave_Name(self, node):
            pass

    class Child(Base):
        visit_Call = cst.CSTVisitor.visit_Call  # libcst's no-op stub again
        visit_attribute_like = None  # not a visitor method

    assert traversal._visitor_names(Base) == ("leave_Name", "visit_Call")
    assert traversal._visitor_names(Child) == ("leave_Name",)


def _loaded_after_check(tmp_path, source):
    (tmp_path / "m.py").write_text(source)
    script = ("import sys; from tflint_effective.frontends.cli import main; "
              "status = main(['check', '-q', '--isolated', '--no-cache', 'm.py']); "
              "print(status, 'libcst' in sys.modules, 'tflint_effective.rule' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True)
    return done.stdout.split("\n")[-2]


def test_a_file_without_tensorflow_loads_neither_libcst_nor_the_rules(tmp_path):
    assert _loaded_after_check(tmp_path, "import os\nx = os.sep  # noqa: E501\n") == "0 False False"
    assert _loaded_after_check(tmp_path, "import tensorflow as tf\nx = tf.squeeze(tf.keras.layers.Dense(1)(y))\n") == "1 True True"
