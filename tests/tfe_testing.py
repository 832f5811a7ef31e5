"""Helpers shared by the tests: fixture paths and markers, linting snippets, comparing values."""
import importlib.util
import pathlib
import re
import sys
import textwrap

import libcst as cst


from tflint_effective import registry
from tflint_effective.engine.fix import fix_source
from tflint_effective.engine.lint import lint_source
from tflint_effective.rule import Rule

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
MARKER = re.compile(r"#\s*(TFE\d{3}(?:\s*,\s*TFE\d{3})*)\s*$")


class UnparsableFix(Rule):
    """A deliberately broken fix: ``y = f(x)`` becomes ``y = a := 1``, which does not parse."""

    CODE = "TFE992"

    def visit_Call(self, node):
        if self.context.tf_call(node) is not None:
            walrus = cst.NamedExpr(target=cst.Name("a"), value=cst.Integer("1"))
            self.report(self.context.parent, "broken", fix=self.context.parent.with_changes(value=walrus))


def only_rules(monkeypatch, rules):
    """Run just these (test) rules wherever the engine selects rules."""
    monkeypatch.setattr(registry, "selected_rules", lambda select=None, ignore=None: rules)


def load_module(path, name=None):
    """Import a fixture program from its path under a unique module name."""
    path = pathlib.Path(path)
    name = name or "fixture_" + "_".join(path.with_suffix("").parts[-2:])
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def findings(source, select=None, **kwargs):
    """(line, 1-based col, code) of every finding, like the CLI prints them."""
    source = textwrap.dedent(source)
    return [(d.line, d.col + 1, d.code) for d in lint_source(source, select=select, **kwargs)]


def fixed(source, select=None, **kwargs):
    return fix_source(textwrap.dedent(source), select=select, **kwargs).source


def dedent(source):
    return textwrap.dedent(source)


def fixture_dirs():
    return sorted(p for p in FIXTURES.iterdir() if p.is_dir() and (p / "bad.py").exists())


def expected_markers(text):
    """Sorted (line, code) pairs from the ``# TFE...`` comments ending lines."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            found += [(number, code.strip()) for code in match.group(1).split(",")]
    return sorted(found)


def to_numpy(value):
    if hasattr(value, "numpy"):
        return value.numpy()
    return value


def assert_same_values(actual, expected, rtol=1e-6, atol=1e-6, where="result"):
    """Nested dicts / lists / tensors equal, NaN equal to NaN."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and sorted(actual) == sorted(expected), where
        for key in expected:
            assert_same_values(actual[key], expected[key], rtol, atol, f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same_values(a, e, rtol, atol, f"{where}[{i}]")
    else:
        import numpy as np  # a test dependency; the linter itself never needs it

        a, e = np.asarray(to_numpy(actual)), np.asarray(to_numpy(expected))
        assert a.shape == e.shape, f"{where}: shape {a.shape} != {e.shape}"
        if a.dtype.kind in "fc" or e.dtype.kind in "fc":
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(a, e, err_msg=where)
