"""The speed-ups change no result.

The engine's own traversal and position computation are compared with libcst's
visitor and PositionProvider, the pre-filter with the resolver and with a run
without it, and the CLI's output with and without the pre-filter, the cache and
worker processes -- on the fixtures, and on a sample of the real-code corpus when
``scripts/corpus.py`` has downloaded it (never downloaded here).
"""
import ast
import collections
import gc
import inspect
import json
import os
import re
import shutil
import subprocess
import sys

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from tfe_testing import FIXTURES, ROOT, dedent, load_module
from tflint_effective.engine import piecewise
from tflint_effective.frontends import cli, one_file
from tflint_effective.analysis.context import Context
from tflint_effective.engine.lint import lint_source
from tflint_effective.engine.positions import positions
from tflint_effective.engine.traversal import TRIVIA, Traversal as _Traversal
from tflint_effective.analysis.names import Import, Scope, ScopeTable
from tflint_effective.analysis.tf_api import tf_name
from tflint_effective.rule import Rule
from tflint_effective.analysis.semantics import SemanticModel
from tflint_effective.analysis.tf_api import shims
from tflint_effective.engine.prefilter import can_skip, imports_tensorflow

CORPUS_SAMPLE = 48


def fixture_files():
    return sorted(FIXTURES.glob("*/*.py"))


@pytest.fixture(scope="module")
def corpus():
    """(root, every file) of the real-code corpus; skips when it is not downloaded."""
    corpus = load_module(ROOT / "scripts" / "corpus.py", "corpus_script")
    missing = [name for name in corpus.PACKAGES
               if not (corpus.package_dir(corpus.DEFAULT_ROOT, name) / ".complete").exists()]
    if missing:
        pytest.skip(f"the real-code corpus is not downloaded under {corpus.DEFAULT_ROOT} "
                    f"({', '.join(missing)} missing); `python scripts/corpus.py` fetches it")
    return corpus.DEFAULT_ROOT, [path for _, path in corpus.python_files()]


@pytest.fixture(scope="module")
def corpus_files(corpus):
    root, files = corpus
    return root, files[::len(files) // CORPUS_SAMPLE][:CORPUS_SAMPLE]


def _read(path):
    return path.read_text(encoding="utf-8")


# -- the traversal and positions against libcst's own --------------------------------
NODE_TYPES = [t for t in vars(cst).values() if isinstance(t, type) and issubclass(t, cst.CSTNode)
              and not inspect.isabstract(t) and not issubclass(t, TRIVIA)]


def _recorder(events):
    """A visitor with a visit_ and leave_ method for every node type but trivia."""
    def method(kind, name):
        def record(self, node):
            events.append((kind, type(node).__name__, id(node)))
        record.__name__ = f"{kind}_{name}"  # libcst finds visitors by name
        return record

    methods = {f"{kind}_{t.__name__}": method(kind, t.__name__) for t in NODE_TYPES for kind in ("visit", "leave")}
    return type("Recorder", (cst.BatchableCSTVisitor,), methods)()


class _LibcstOrder(cst.CSTVisitor):
    def __init__(self, events):
        super().__init__()
        self.events = events

    def on_visit(self, node):
        if not isinstance(node, TRIVIA):
            self.events.append(("visit", type(node).__name__, id(node)))
        return True

    def on_leave(self, node):
        if not isinstance(node, TRIVIA):
            self.events.append(("leave", type(node).__name__, id(node)))


def assert_walk_and_positions_match_libcst(source):
    module = cst.parse_module(source)
    ours, theirs = [], []
    _Traversal(Context(module, "<test>"), [_recorder(ours)]).walk(module)
    module.visit(_LibcstOrder(theirs))
    assert ours == theirs

    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = [node for node in expected if not isinstance(node, TRIVIA)]

    def as_tuples(node):
        where = expected[node]
        return (where.start.line, where.start.column), (where.end.line, where.end.column)

    found = positions(module, nodes)
    assert [found[id(node)] for node in nodes] == [as_tuples(node) for node in nodes]
    for node in nodes[::97]:  # alone: generation stops right after the node
        assert positions(module, [node])[id(node)] == as_tuples(node)


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_walk_and_positions_match_libcst_on_the_fixtures(path):
    assert_walk_and_positions_match_libcst(_read(path))


class _Where(cst.BatchableCSTVisitor):
    """Records where the context says the traversal is, at every name and call."""

    def __init__(self, context):
        super().__init__()
        self.context, self.seen = context, []

    def _record(self, node):
        context = self.context
        assert context.node is node
        self.seen.append((id(node), [id(a) for a in context.ancestors], id(context.parent), id(context.scope.node)))

    visit_Name = leave_Call = _record


def test_a_walk_that_skips_unvisited_leaves_keeps_the_context_of_a_full_walk():
    """The traversal does not enter a leaf nothing visits (an ``Integer`` here): the ancestors,
    parent and scope every visitor sees stay those of a walk that enters every node."""
    module = cst.parse_module(dedent("""\
        import tensorflow as tf
        class A(tf.keras.Model):
            def call(self, x, k=2):
                return [tf.reduce_sum(x, 1) for _ in range(3)], (lambda y: y + 1.5)(x)[0]
        f(1, g(2), *h)
    """))
    walks = []
    for extra in ([], [_recorder([])]):
        context = Context(module, "<test>")
        where = _Where(context)
        _Traversal(context, [where, *extra]).walk(module)
        assert context.parent is None and context.ancestors == []
        walks.append(where.seen)
    assert walks[0] == walks[1] and len(walks[0]) > 20


@pytest.mark.slow
def test_walk_and_positions_match_libcst_on_the_corpus(corpus_files):
    for path in corpus_files[1]:
        assert_walk_and_positions_match_libcst(_read(path))


@pytest.mark.slow
def test_piecewise_parse_matches_a_whole_parse_on_the_largest_corpus_files(corpus):
    largest = sorted(corpus[1], key=lambda path: path.stat().st_size)[-4:]
    for path in largest:
        source = _read(path)
        assert len(source) > 4 * piecewise.PIECE
        assert piecewise.parse_module(source).deep_equals(cst.parse_module(source)), path


# -- the pre-filter -------------------------------------------------------------------
def _resolver_imports(source, tensorflow_modules=(), keras=False):
    """Whether names.py resolves a name bound by an import to TensorFlow (or, with ``keras``,
    to ``keras`` / ``tf_keras``)."""
    table = ScopeTable(cst.parse_module(source), shims(tensorflow_modules))
    return any(isinstance(binding, Import) and (tf_name(binding.qualname) is not None or keras and
                                                binding.qualname.partition(".")[0] in ("keras", "tf_keras"))
               for scope in table.scopes.values() for bindings in scope.bindings.values()
               for binding in bindings)


def _resolver_imports_tensorflow(source, tensorflow_modules=()):
    return _resolver_imports(source, tensorflow_modules)


def assert_prefilter_changes_nothing(source, name):
    assert imports_tensorflow(ast.parse(source)) == _resolver_imports_tensorflow(source), name
    unfiltered = lint_source(source, name, prefilter=False)
    assert lint_source(source, name) == unfiltered
    if can_skip(source):
        assert unfiltered == []


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_prefilter_changes_no_finding_on_the_fixtures(path):
    assert_prefilter_changes_nothing(_read(path), str(path))


@pytest.mark.slow
def test_prefilter_changes_no_finding_on_the_corpus(corpus_files):
    skipped = 0
    for path in corpus_files[1]:
        source = _read(path)
        assert_prefilter_changes_nothing(source, str(path))
        skipped += can_skip(source)
    assert 0 < skipped < len(corpus_files[1])  # both kinds of file were compared


@pytest.mark.parametrize("source, skipped", [
    ("import numpy as np\nnp.squeeze(x)\n", True),
    ('"""Works with tensorflow."""\nimport numpy as np\n', True),
    ("import tensorflow_addons as tfa\n", True),
    ('"""Loads tensorflow_datasets."""\nfrom tensorflow_probability import distributions as tfd\n', True),
    ("from . import tensorflow\n", True),
    ("import tensorflow\n", False),
    ("import tensorflow as tf\n", False),
    ("from tensorflow.math import reduce_sum\n", False),
    ("from keras.src.utils.module_utils import tensorflow as tf\n", False),
    ("def load():\n    try:\n        import tensorflow as tf\n    except ImportError:\n        pass\n", False),
    ("class A:\n    if x:\n        from tensorflow import nn\n", False),
    # a word no import line spells, but a continued line or a list of names in parentheses may
    ("import numpy as np, \\\n    tensorflow as tf\n", False),
    ("from keras.src.utils.module_utils import (  # see (this)\n    tensorflow as tf,\n)\n", False),
    ("from x import (\n    important,\n)\n# Works with tensorflow.\nfrom y import (\n    tensorflow)\n", True),
    ("from tensorflow_datasets.core.utils.lazy_imports_utils import tensorflow as tf\n", True),
    # Keras 3 code that imports only keras, and the legacy tf-keras package, with a compile call
    # (TFE407 reads them); without one, nothing can be reported in them
    ("import keras\nm.compile('adam')\n", False),
    ("from keras import layers\nm.compile('adam')\n", False),
    ("import keras.layers as kl\nm.compile('adam')\n", False),
    ("import tf_keras as keras\nm.compile('adam')\n", False),
    ("from tf_keras.layers import Dense\nm.compile('adam')\n", False),
    ("def build():\n    if x:\n        from keras import ops\n    m.compile('adam')\n", False),
    ("import keras\n", True),
    ("from keras.src import ops\nx = ops.sum(y)\n", True),
    ("import keras_tuner\nimport keras_cv as kcv\nm.compile('adam')\n", True),  # other packages named keras*
    ('"""Uses keras."""\nimport numpy as np\nm.compile()\n', True),
    ("from .keras import layers\nm.compile()\n", True),
])
def test_prefilter_skips_exactly_files_without_a_tensorflow_or_keras_import(source, skipped):
    assert can_skip(source) is skipped
    assert _resolver_imports(source, keras="compile(" in source) is not skipped


def _import_keras_instead(source):
    """The fixture with every import of TensorFlow made an import of keras under the same name."""
    source = re.sub(r"^import tensorflow(?:\.compat\.v1)? as (\w+)$", r"import keras as \1", source, flags=re.M)
    source = re.sub(r"^import tensorflow$", "import keras as tensorflow", source, flags=re.M)
    return re.sub(r"^from tensorflow(\S*) import", r"from keras\1 import", source, flags=re.M)


def test_only_rules_about_keras_models_report_in_a_file_that_imports_keras_but_no_tensorflow():
    """A keras-only file now passes the prefilter: every other rule must stay silent in it."""
    reported, compared = set(), 0
    for path in fixture_files():
        source = _import_keras_instead(_read(path))
        tree = ast.parse(source)
        if imports_tensorflow(tree):  # a shim or an import the substitution missed
            continue
        compared += 1
        assert not can_skip(source) or "compile(" not in source
        reported.update(d.code for d in lint_source(source, str(path)))
    assert compared == len(fixture_files())
    assert reported <= {"TFE407"}


@pytest.mark.parametrize("source", ['"""\nimport tensorflow as tf\ntf.squeeze(tf.keras.layers.Dense(1)(x))\n"""\n',
                                    "from tensorflow import *\ntf.squeeze(tf.keras.layers.Dense(1)(x))\n"])
def test_an_import_line_binding_nothing_only_costs_a_libcst_parse(source):
    assert not can_skip(source) and not _resolver_imports_tensorflow(source)
    assert lint_source(source) == []


def test_a_syntax_error_is_reported_in_a_file_the_prefilter_would_skip():
    [error] = lint_source("import numpy as np\nx = (\n", "m.py")
    assert error.code == "TFE000"
    assert lint_source("import numpy as np\nx = (\n", "m.py", prefilter=False) == [error]


SHIMMED = "from myproject.compat import tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\n"


def test_tensorflow_modules_reach_tensorflow_through_a_project_shim():
    assert lint_source(SHIMMED) == [] and can_skip(SHIMMED)
    found = lint_source(SHIMMED, tensorflow_modules=["myproject.compat.tf"])
    assert [(d.line, d.col + 1, d.code) for d in found] == [(2, 5, "TFE103")]
    assert lint_source(SHIMMED, tensorflow_modules=["myproject.compat.tf"], prefilter=False) == found
    # `import myproject.compat.tf as tf` spells the module in full
    assert lint_source(SHIMMED.replace("from myproject.compat import tf", "import myproject.compat.tf as tf"),
                       tensorflow_modules=["myproject.compat.tf"]) == found


def test_tensorflow_modules_is_a_configuration_key(tmp_path, capsys, monkeypatch):
    (tmp_path / "m.py").write_text(SHIMMED)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "-q", "m.py"]) == 0
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-effective]\ntensorflow-modules = ["myproject.compat.tf"]\n')
    assert cli.main(["check", "-q", "m.py"]) == 1
    assert "m.py:2:5: TFE103" in capsys.readouterr().out
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-effective]\ntensorflow-modules = ["my project"]\n')
    assert cli.main(["check", "-q", "m.py"]) == 2
    assert ("pyproject.toml: [tool.tflint-effective] tensorflow-modules: 'my project' is not a dotted "
            "module name") in capsys.readouterr().err


# -- the CLI: workers, cache, pre-filter -----------------------------------------------
def _cli(*args, cwd, env=None):
    done = subprocess.run([sys.executable, "-m", "tflint_effective", *args], cwd=cwd,
                          capture_output=True, text=True, env=env)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, done.stdout


def assert_same_output_every_way(tree, monkeypatch):
    monkeypatch.setenv("TFLINT_EFFECTIVE_CACHE_DIR", str(tree.parent / "cache"))
    common = ["--isolated", "-q", "--format", "json", "."]
    reference = _cli("check", "-j1", "--no-cache", "--no-prefilter", *common, cwd=tree)
    assert reference[0] == 1 and json.loads(reference[1])
    assert _cli("check", "-j2", "--no-cache", *common, cwd=tree) == reference
    assert _cli("check", "-j2", *common, cwd=tree) == reference  # fills the cache
    assert _cli("check", "-j2", *common, cwd=tree) == reference  # from the cache
    assert _cli("check", "-j1", *common, cwd=tree) == reference
    fixes = _cli("fix", "--diff", "-j1", "--no-prefilter", "--isolated", "-q", ".", cwd=tree)
    assert fixes[1] and _cli("fix", "--diff", "-j2", "--isolated", "-q", ".", cwd=tree) == fixes


@pytest.mark.slow
def test_cli_output_is_identical_with_workers_cache_and_prefilter_on_the_fixtures(tmp_path, monkeypatch):
    shutil.copytree(FIXTURES, tmp_path / "tree")
    assert_same_output_every_way(tmp_path / "tree", monkeypatch)


@pytest.mark.slow
def test_cli_output_is_identical_with_workers_cache_and_prefilter_on_the_corpus(
        corpus_files, tmp_path, monkeypatch):
    root, files = corpus_files
    for path in files:
        target = tmp_path / "tree" / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    shutil.copytree(FIXTURES, tmp_path / "tree" / "fixtures")  # so there are findings to compare
    assert_same_output_every_way(tmp_path / "tree", monkeypatch)


def test_cache_serves_unchanged_files_and_misses_on_any_change(tmp_path, capsys, monkeypatch):
    (tmp_path / "m.py").write_text("import tensorflow as tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "-j1", "m.py"]) == 1
    first = capsys.readouterr().out
    assert "m.py:2:5: TFE103" in first

    def not_cached(*args):
        raise RuntimeError("analysed, not taken from the cache")

    def analysed(*args):
        cli.main(["check", "-j1", *args, "m.py"])
        captured = capsys.readouterr()
        return "not taken from the cache" in captured.out + captured.err

    monkeypatch.setattr(one_file, "_lint", not_cached)
    assert cli.main(["check", "-j1", "m.py"]) == 1
    assert capsys.readouterr().out == first
    for changed in (["--select", "TFE101"], ["--severity", "error"], ["--no-cache"], ["--no-prefilter"]):
        assert analysed(*changed), changed
    assert not analysed()
    (tmp_path / "m.py").write_text("import tensorflow as tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))  # changed\n")
    assert analysed()


def test_no_reference_cycle_keeps_a_linted_tree_alive():
    """Freed by reference counting the moment lint_source returns, a file's tree and its
    analysis never wait for (nor cost) a pass of the cycle collector."""
    ours = (cst.CSTNode, Context, SemanticModel, Rule, Scope, ScopeTable)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for path in fixture_files():
            assert lint_source(_read(path), str(path)) or path.name == "good.py"
        gc.collect()
        # type(o), not isinstance: other tests' garbage may hold a dead weakproxy, which raises on isinstance
        kept = collections.Counter(type(o).__name__ for o in gc.garbage if issubclass(type(o), ours))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert kept == {}


def test_a_run_served_from_the_cache_does_not_load_libcst(tmp_path):
    """Half of a cached run's time would go into importing libcst and the rules."""
    shutil.copytree(FIXTURES, tmp_path / "tree")
    env = {**os.environ, "TFLINT_EFFECTIVE_CACHE_DIR": str(tmp_path / "cache")}
    check = ("import sys; from tflint_effective.frontends.cli import main; status = main(sys.argv[1:]); "
             "print(status, 'libcst' in sys.modules)")

    def run(*args):
        return subprocess.run([sys.executable, "-c", check, "check", "-q", "--isolated", *args, "."],
                              cwd=tmp_path / "tree", env=env, capture_output=True, text=True).stdout.split("\n")[-2]

    assert run("-j1") == "1 True"  # fills the cache (-j1: analysed in this process, not in workers)
    assert run() == "1 False"
    assert run("--no-cache", "-j1") == "1 True"


def test_jobs_must_be_a_positive_number(capsys):
    assert cli.main(["check", "--jobs", "0", "."]) == 2
    assert "expected a number of processes (1 or more), got '0'" in capsys.readouterr().err


def test_walk_and_positions_match_libcst_on_rare_syntax():
    source = dedent("""\
        import tensorflow as tf
        f"{tf.reduce_sum(x * y):>{width}}"
        match tf.shape(x):
            case [a, *rest] if a:
                pass
        async def g():
            async with tf.device("/cpu:0") as d:
                return [y async for y in tf.data.Dataset.range(3)]
        """)
    assert_walk_and_positions_match_libcst(source)
