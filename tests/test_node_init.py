"""libcst's nodes built by node_init's __init__ methods are the nodes its own would build."""
import dataclasses
import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

import libcst as cst
from tflint_effective.engine import node_init
from tflint_effective.engine.piecewise import parse_module

ROOT = Path(__file__).resolve().parent.parent
# A JSON dump of every field of every node of a tree, for comparing trees across processes.
DUMP = '''
import dataclasses, json, sys, libcst
def dump(value):
    if isinstance(value, libcst.CSTNode):
        return [type(value).__name__, {f.name: dump(getattr(value, f.name)) for f in dataclasses.fields(value)}]
    if isinstance(value, (list, tuple)):
        return [dump(item) for item in value]
    return value if value is None or isinstance(value, (str, bool, int, float)) else repr(value)
'''
FAST = [cls for cls in node_init._subclasses(cst.CSTNode) if cls.__init__.__code__.co_filename == "<string>"
        and "validating" in cls.__init__.__code__.co_freevars]


def test_every_concrete_node_class_gets_the_fast_init():
    public = {value for value in vars(cst).values() if isinstance(value, type) and issubclass(value, cst.CSTNode)}
    abstract = {cls for cls in public if cls.__name__.startswith("Base") or cls in (cst.CSTNode, cst.MatchPattern,
                                                                                     cst.MatchSequence)}
    assert len(public - abstract) > 150
    assert public - abstract <= set(FAST)


@pytest.mark.parametrize("cls", FAST, ids=lambda cls: cls.__name__)
def test_parameters_and_defaults_are_the_fields(cls):
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = dataclasses.fields(cls)
    assert [p.name for p in parameters] == [f.name for f in fields]
    for parameter, field in zip(parameters, fields):
        if field.default is not dataclasses.MISSING:
            assert parameter.default is field.default
        elif field.default_factory is not dataclasses.MISSING:
            assert parameter.default is dataclasses._HAS_DEFAULT_FACTORY  # as in the dataclass __init__
        else:
            assert parameter.default is inspect.Parameter.empty


def test_defaults_passed_explicitly_build_what_leaving_them_out_does():
    """hypothesis's ``builds`` passes a signature's defaults, the factories' sentinel included."""
    defaults = {name: parameter.default for name, parameter in inspect.signature(cst.Call.__init__).parameters.items()
                if name != "self" and parameter.default is not inspect.Parameter.empty}
    assert dataclasses._HAS_DEFAULT_FACTORY in defaults.values()
    explicit = cst.Call(func=cst.Name("f"), **defaults)
    assert explicit.deep_equals(cst.Call(func=cst.Name("f")))
    assert cst.Module(body=[cst.SimpleStatementLine([cst.Expr(explicit)])]).code == "f()\n"


def test_defaults_and_factories_fill_the_fields():
    call = cst.Call(func=cst.Name("f"))
    assert call.args == () and call.lpar == ()
    assert call.whitespace_after_func.deep_equals(cst.SimpleWhitespace(""))
    assert cst.Call(func=cst.Name("g")).whitespace_before_args is not call.whitespace_before_args  # a fresh one
    assert cst.Name(value="x", lpar=[cst.LeftParen()], rpar=[cst.RightParen()]).lpar[0].deep_equals(
        cst.LeftParen())
    with pytest.raises(TypeError):
        cst.Name()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cst.Name("x").value = "y"


def test_nodes_are_validated_except_while_the_parser_builds_them():
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")
    with node_init.unvalidated():
        assert cst.Name("").value == ""
    with pytest.raises(cst.CSTValidationError):
        cst.Name(value="x", lpar=[cst.LeftParen()])  # unbalanced parentheses


def _dump_in_process(paths):
    namespace = {}
    exec(DUMP, namespace)
    return json.loads(json.dumps([namespace["dump"](parse_module(path.read_text())) for path in paths]))


def test_parsed_trees_equal_those_libcst_builds_alone():
    paths = sorted((ROOT / "fixtures").rglob("*.py"))[:40] + [ROOT / "tflint_effective" / "engine" / "piecewise.py"]
    script = DUMP + ("print(json.dumps([dump(libcst.parse_module(open(p).read())) for p in sys.argv[1:]]))")
    done = subprocess.run([sys.executable, "-c", script, *map(str, paths)], capture_output=True, text=True,
                          check=True)
    assert json.loads(done.stdout) == _dump_in_process(paths)
