"""Fuzzing the engine: no exception escapes, every fix re-parses, converges and is idempotent.

Programs come from hypothesmith (syntactically valid Python) and from the
TensorFlow-flavoured strategy below: import headers with every alias style,
statements lifted from the rules' fixtures, and generated statements over
nested TensorFlow expressions, placed in the contexts the semantic model
distinguishes (tf.function, Keras ``call``, graph blocks, loops, try, match...).
``scripts/fuzz.py`` runs the same checks for much longer.
"""
import ast
import functools
import textwrap

import libcst as cst
import pytest

hypothesmith = pytest.importorskip("hypothesmith", reason="pip install '.[test]' for the fuzz tests")
from hypothesis import HealthCheck, given, settings  # noqa: E402  (hypothesmith brings hypothesis)
from hypothesis import strategies as st  # noqa: E402

from tflint_effective.engine.fix import FixError, fix_source
from tflint_effective.engine.lint import lint_source
from tflint_effective.levels import PARSE_ERROR
from tflint_effective.registry import all_rules
from tfe_testing import FIXTURES

pytestmark = pytest.mark.slow


# -- the invariants ------------------------------------------------------------------
def _compiles(source):
    try:
        compile(source, "<fuzz>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _assert_no_internal_error(diagnostics, source):
    crashes = [d.message for d in diagnostics if d.code == PARSE_ERROR and "internal error" in d.message]
    assert not crashes, f"{crashes[0]}\n--- program:\n{source}"


def check_program(source):
    """Lint and fix ``source`` (safe, then also unsafe fixes) and assert the invariants.

    Returns the codes reported, so callers can see what a program exercised.
    """
    diagnostics = lint_source(source, "fuzz.py")
    _assert_no_internal_error(diagnostics, source)
    if any(d.code == PARSE_ERROR for d in diagnostics):
        return {d.code for d in diagnostics}
    for unsafe in (False, True):
        try:
            result = fix_source(source, "fuzz.py", unsafe_fixes=unsafe)
        except FixError as error:  # refusing a file libcst cannot round-trip is allowed
            assert "does not reproduce" in str(error), f"{error}\n--- program:\n{source}"
            break
        assert result.converged, f"no fixed point after {result.passes} passes:\n{source}"
        _assert_no_internal_error(result.diagnostics, source)
        if result.source == source:
            continue
        ast.parse(result.source)  # raises on a fix that breaks the syntax
        assert _compiles(result.source) or not _compiles(source), result.source
        again = fix_source(result.source, "fuzz.py", unsafe_fixes=unsafe)
        assert again.source == result.source and again.applied == 0, (
            f"not idempotent:\n{source}\n--- fixed once:\n{result.source}\n--- twice:\n{again.source}")
    return {d.code for d in diagnostics}


# -- TensorFlow-flavoured programs ----------------------------------------------------
HEADERS = (
    "import tensorflow as tf", "import tensorflow.compat.v1 as tf", "import tensorflow.compat.v1 as tf1",
    "import tensorflow as tf1", "from tensorflow import math as tm", "from tensorflow import nn",
    "from tensorflow.nn import softmax", "from tensorflow.math import log, exp, reduce_sum",
    "import tensorflow", "import numpy as np", "import numpy as tf", "tf.disable_eager_execution()",
    "tf.compat.v1.disable_v2_behavior()", "tf = None", "from tensorflow.compat.v1 import *",
    "sess = tf.compat.v1.Session()",
)
MODULES = ("tf", "tf1", "tf.compat.v1", "tm", "nn", "tensorflow", "np", "tf.math", "tf.nn")
OPS = (
    "exp", "log", "math.log", "math.exp", "nn.softmax", "softmax", "nn.log_softmax", "sigmoid",
    "math.sigmoid", "nn.sigmoid", "reduce_sum", "math.reduce_sum", "reduce_mean", "reduce_max",
    "reduce_logsumexp", "count_nonzero", "squeeze", "divide", "truediv", "add_n", "constant",
    "debugging.assert_positive", "assert_equal", "check_numerics", "Print", "print", "identity",
    "gradients", "compat.v1.gradients", "range", "zeros", "ones", "gather", "slice", "cast",
)
KEYWORDS = ("axis=-1", "axis=None", "axis=[1]", "keepdims=True", "keep_dims=True",
            "reduction_indices=[1]", "1", "0", "True", "*args", "**kwargs", "name='n'",
            "colocate_gradients_with_ops=True")
LEAVES = ("x", "logits", "labels", "p", "t", "z", "1.0", "0", "1", "x[i]", "x[0]", "self.w",
          "None", "np.ones(3)", "'s'", "tape", "losses")
NAMES = ("x", "y", "z", "p", "e", "loss", "logits", "total", "t", "self.w", "x[i]", "(a, b)", "*rest, last")


def _expression(children):
    call = st.builds(lambda module, op, args: f"{module}.{op}({', '.join(args)})",
                     st.sampled_from(MODULES), st.sampled_from(OPS),
                     st.lists(st.one_of(children, st.sampled_from(KEYWORDS)), max_size=3))
    binary = st.builds(lambda a, op, b: f"({a} {op} {b})", children,
                       st.sampled_from(("+", "-", "*", "/", "==", "and", "or", "if x else", "@")), children)
    unary = st.builds(lambda op, a: f"({op}{a})", st.sampled_from(("-", "not ", "await ", "~")), children)
    other = st.builds(lambda a, form: form.format(a), children, st.sampled_from((
        "{0}[i]", "{0}[:, 0]", "[{0} for i in range(3)]", "(lambda q: {0})", "(w := {0})",
        "optimizer.minimize({0})", "tape.gradient({0}, v)", "{0}.shape", "{{'k': {0}}}",
        "f({0})", "model({0})", "({0},)", "{0}.numpy()", "(yield {0})", "[*{0}]")))
    return st.one_of(call, binary, unary, other)


EXPRESSIONS = st.recursive(st.sampled_from(LEAVES), _expression, max_leaves=12)


def _statement(expression, name):
    return st.one_of(
        st.builds("{} = {}".format, name, expression),
        st.builds("{} += {}".format, name, expression),
        st.builds("{}: tf.Tensor = {}".format, name, expression),
        st.builds("assert {}".format, expression),
        st.builds("return {}".format, expression),
        st.builds("losses.append({})".format, expression),
        expression,
        st.sampled_from(("pass", "break", "continue", "del x", "global x", "nonlocal z",
                         "tf.compat.v1.disable_eager_execution()", "import tensorflow.compat.v1 as tf",
                         "x = tf.compat.v1.placeholder(tf.float32)", "raise ValueError")),
    )


HEADS = (
    "def f(x, logits, labels, *args, **kwargs):", "@tf.function\ndef g(x: tf.Tensor, i=0):",
    "@tf.function(autograph=False)\ndef h(x):", "async def a(x):",
    "class Model(tf.keras.Model):\n    def call(self, x, training=None):",
    "class Layer(tf.keras.layers.Layer):\n    w = tf.ones([2])\n    def train_step(self, data):",
    "with tf.Graph().as_default():", "with tf.GradientTape() as tape:", "with tf.device(d):",
    "with tf.control_dependencies([check]):", "for i in range(n):", "for i, d in enumerate(devices):",
    "for x in tf.range(3):", "for row in x:", "while z < 3:", "if x:", "if t > 0:", "try:",
    "match x:\n    case [a, *rest]:", "match t:\n    case tf.Tensor():",
)
TAILS = ("", "else:\n    z = x", "except Exception:\n    z = None", "finally:\n    z = 0",
         "except ValueError as error:\n    raise\nelse:\n    pass")


@functools.lru_cache(maxsize=None)
def fixture_fragments():
    """Top-level functions and classes of every fixture, and each statement in their bodies."""
    fragments = []
    for path in sorted(FIXTURES.glob("*/*.py")):
        module = cst.parse_module(path.read_text())
        for node in module.body:
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                fragments.append(module.code_for_node(node))
                fragments += [textwrap.dedent(module.code_for_node(s)) for s in node.body.body]
            elif not isinstance(node, cst.SimpleStatementLine) or not isinstance(
                    node.body[0], (cst.Import, cst.ImportFrom, cst.Expr)):
                fragments.append(module.code_for_node(node))
    return tuple(f.strip("\n") + "\n" for f in fragments)


def _block(head, body, tail):
    last = head.splitlines()[-1]
    indent = " " * (len(last) - len(last.lstrip()) + 4)
    text = head + "\n" + textwrap.indent("".join(body), indent)
    if head == "try:":
        text += (tail if tail.startswith(("except", "finally")) else "finally:\n    pass") + "\n"
    elif head.startswith(("for ", "while ", "if ")) and tail.startswith("else"):
        text += tail + "\n"
    return text


def _statements(depth):
    simple = st.builds(lambda s: s + "\n", _statement(EXPRESSIONS, st.sampled_from(NAMES)))
    fragment = st.deferred(lambda: st.sampled_from(fixture_fragments()))
    leaf = st.one_of(simple, simple, fragment)
    if depth == 0:
        return leaf
    compound = st.builds(_block, st.sampled_from(HEADS), st.lists(_statements(depth - 1), min_size=1, max_size=4),
                         st.sampled_from(TAILS))
    return st.one_of(leaf, compound)


# The aliases the fixtures use, so that their statements resolve; HEADERS may then shadow them.
FIXTURE_ALIASES = ("import numpy as np\nimport tensorflow as tf\nimport tensorflow.compat.v1 as tf1\n"
                   "from tensorflow import math as tm\nfrom tensorflow import nn")


@st.composite
def tensorflow_programs(draw):
    header = draw(st.lists(st.sampled_from(HEADERS), min_size=1, max_size=3))
    if draw(st.booleans()):
        header.insert(0, FIXTURE_ALIASES)
    body = draw(st.lists(_statements(2), min_size=1, max_size=6))
    return "\n".join(header) + "\n" + "".join(body)


def _valid(source):
    """Generated programs may break Python's rules (return at module level is fine to
    parse, but a stray ``case`` indentation is not): keep the ones that parse."""
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


TF_PROGRAMS = tensorflow_programs().filter(_valid)
PYTHON_PROGRAMS = st.one_of(hypothesmith.from_node(), hypothesmith.from_grammar())
# Fixed seed, no example database: CI runs the same programs every time.
FUZZ = dict(deadline=None, derandomize=True, database=None,
            suppress_health_check=list(HealthCheck))


@settings(max_examples=120, **FUZZ)
@given(TF_PROGRAMS)
def test_tensorflow_flavoured_programs(source):
    check_program(source)


@settings(max_examples=40, **FUZZ)
@given(PYTHON_PROGRAMS.map(lambda source: "import tensorflow as tf\n" + source))
def test_valid_python_programs(source):
    check_program(source)


RULE_OF_FIXTURE = {rule.name(): rule.CODE for rule in all_rules()}


@functools.lru_cache(maxsize=None)
def fixture_statements(name):
    module = cst.parse_module((FIXTURES / name / "bad.py").read_text())
    return tuple(module.code_for_node(node) for node in module.body)


@st.composite
def fixture_variations(draw, name):
    """The rule's bad.py with its top-level statements kept (the simplest case), wrapped
    in a context, dropped, or preceded by a generated statement; headers may shadow aliases."""
    parts = draw(st.lists(st.sampled_from(HEADERS), max_size=2))
    for statement in fixture_statements(name):
        change = draw(st.integers(0, 3))
        if change == 1:
            statement = _block(draw(st.sampled_from(HEADS)), [statement], draw(st.sampled_from(TAILS)))
        elif change == 3:
            parts.append(draw(_statements(1)))
        if change != 2:
            parts.append(statement)
    return "\n".join(part.rstrip("\n") for part in parts) + "\n"


@pytest.mark.parametrize("name", sorted(RULE_OF_FIXTURE))
def test_variations_of_each_rules_fixture(name):
    """Exercises every rule: the first variation is the fixture itself."""
    reported = set()

    @settings(max_examples=6, **FUZZ)
    @given(fixture_variations(name).filter(_valid))
    def variations(source):
        reported.update(check_program(source))

    variations()
    assert RULE_OF_FIXTURE[name] in reported
