"""Start-up cost: what a run on a few files pays before the first analysis."""
import dataclasses
import marshal
import os
import subprocess
import sys
import types
from importlib.util import MAGIC_NUMBER
from pathlib import Path

import pytest

from tflint_effective.analysis.context import Context
from tflint_effective.engine import startup, traversal
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
    tf_file = "import tensorflow as tf\nx = tf.squeeze(tf.keras.layers.Dense(1)(y))\n"
    assert _loaded_after_check(tmp_path, tf_file) == "1 True True"


def _point(source: str):
    namespace = {}
    exec(source, namespace)
    return namespace["Point"]


POINT = "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass Point:\n    x: int\n    y: int = 2\n"


def test_dataclass_code_is_stored_then_reused_and_a_damaged_file_is_a_miss(tmp_path, monkeypatch):
    path = tmp_path / "code.marshal"
    with startup.stored_code(path):
        first = _point(POINT)
    magic, stored = marshal.loads(path.read_bytes())
    assert magic == MAGIC_NUMBER and any(" def __init__(self,x:" in text for text in stored)
    assert all(isinstance(code, types.CodeType) for code in stored.values())

    compiled = []
    monkeypatch.setattr(startup, "compile", lambda *args: compiled.append(args) or compile(*args), raising=False)
    written = path.stat().st_mtime_ns
    with startup.stored_code(path):
        second = _point(POINT)
    assert compiled == [] and path.stat().st_mtime_ns == written  # nothing compiled, nothing written
    assert (second(1), repr(second(1)), second(1) == second(1, 2)) == (second(1, 2), "Point(x=1, y=2)", True)
    assert repr(first(3, 4)) == "Point(x=3, y=4)"

    for damage in (b"", b"\x00garbage", marshal.dumps({"text": 1}), marshal.dumps((MAGIC_NUMBER, {"a": 1})),
                   marshal.dumps((b"\x00\x00\r\n", stored))):  # the last: another Python's bytecode
        path.write_bytes(damage)
        with startup.stored_code(path):
            third = _point(POINT)
        assert repr(third(5)) == "Point(x=5, y=2)"
        assert marshal.loads(path.read_bytes())[1].keys() == stored.keys()  # written again, whole
    assert not hasattr(dataclasses, "exec") and sorted(p.name for p in tmp_path.iterdir()) == ["code.marshal"]
    assert path.stat().st_mode & 0o777 == 0o644


def test_the_first_check_stores_libcst_code_beside_the_package_and_later_ones_only_read_it(tmp_path):
    (tmp_path / "m.py").write_text("import tensorflow as tf\nx = tf.squeeze(tf.keras.layers.Dense(1)(y))\n")
    env = {**os.environ, "TFLINT_EFFECTIVE_CACHE_DIR": str(tmp_path / "cache")}
    where = subprocess.run([sys.executable, "-c", "from tflint_effective.engine.startup import CODE_FILE; "
                            "print(CODE_FILE)"], cwd=tmp_path, env=env, capture_output=True, text=True)
    code = Path(where.stdout.strip())  # the package the command runs: installed, or this checkout
    if not os.access(code.parent.parent, os.W_OK):
        pytest.skip("the installed package's folder is read-only: nothing is stored")
    code.unlink(missing_ok=True)
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "tflint_effective", "check", "--isolated", "--no-cache", "m.py"],
                              cwd=tmp_path, env=env, capture_output=True, text=True)
        runs.append((done.returncode, done.stdout, code.stat().st_mtime_ns))
    assert runs[0][:2] == runs[1][:2] == (1, runs[0][1]) and "m.py:2:5: TFE103" in runs[0][1]
    assert runs[0][2] == runs[1][2]  # the second run compiled nothing new
    assert not (tmp_path / "cache").exists()  # --no-cache: no results kept


def test_the_command_skips_the_teardown_but_keeps_all_its_output_and_status(tmp_path):
    for i in range(40):
        (tmp_path / f"m{i}.py").write_text("import tensorflow as tf\nx = tf.squeeze(tf.keras.layers.Dense(1)(y))\n")
    args = ["check", "--isolated", "--no-cache", "--format", "json", "."]
    env = {**os.environ, "TFLINT_EFFECTIVE_CACHE_DIR": str(tmp_path / "cache")}
    ended = subprocess.run([sys.executable, "-m", "tflint_effective", *args], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
    torn_down = subprocess.run([sys.executable, "-c", "import sys; from tflint_effective.frontends.cli import main; "
                                f"sys.exit(main({args!r}))"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert (ended.returncode, ended.stdout, ended.stderr) == (torn_down.returncode, torn_down.stdout, torn_down.stderr)
    assert ended.returncode == 1 and ended.stdout.count('"TFE103"') == 40
