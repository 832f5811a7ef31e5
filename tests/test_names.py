"""Name resolution: what each spelling of a call resolves to, checked against libcst's providers."""
import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, QualifiedNameProvider

from tflint_effective.analysis.context import Context
from tflint_effective.engine.traversal import Traversal as _Traversal
from tflint_effective.analysis.tf_api import TFName, tf_name


class _Calls(cst.BatchableCSTVisitor):
    """Records what the context resolves every call's function to."""

    def __init__(self, context):
        super().__init__()
        self.context = context
        self.seen = []

    def visit_Call(self, node):
        self.seen.append((node.func, self.context.qualname(node.func)))


def resolve(source, module=None):
    module = module or cst.parse_module(textwrap.dedent(source))
    context = Context(module, "<test>")
    calls = _Calls(context)
    module.visit(_Traversal(context, [calls]))
    return calls.seen


CASES = [
    ("import tensorflow as tf\ntf.reduce_sum(x)", "tensorflow.reduce_sum"),
    ("import tensorflow\ntensorflow.reduce_sum(x)", "tensorflow.reduce_sum"),
    ("import tensorflow.compat.v1 as tf\ntf.reduce_sum(x)", "tensorflow.compat.v1.reduce_sum"),
    ("import tensorflow.compat.v1\ntensorflow.compat.v1.reduce_sum(x)", "tensorflow.compat.v1.reduce_sum"),
    ("from tensorflow.compat import v1 as tf1\ntf1.reduce_sum(x)", "tensorflow.compat.v1.reduce_sum"),
    ("from tensorflow import math as tm\ntm.reduce_sum(x)", "tensorflow.math.reduce_sum"),
    ("from tensorflow.math import reduce_sum\nreduce_sum(x)", "tensorflow.math.reduce_sum"),
    ("import tensorflow as tf\ntf.compat.v1.reduce_sum(x)", "tensorflow.compat.v1.reduce_sum"),
    ("import tensorflow as tf\nnn = tf.nn\nnn.softmax(x)", "tensorflow.nn.softmax"),
    # a parallel assignment binds each name to its own value
    ("import tensorflow as tf\nnn, math = tf.nn, tf.math\nnn.softmax(math.reduce_sum(x))", "tensorflow.math.reduce_sum"),
    ("import tensorflow as tf\n[nn, (lin, n)] = [tf.nn, (tf.linalg, 3)]\nlin.matmul(a, b)", "tensorflow.linalg.matmul"),
    ("from keras.src.utils.module_utils import tensorflow as tf\ntf.reduce_sum(x)",
     "tensorflow.reduce_sum"),
    # a lazy import guarded by None: ``tf.x`` can only run when tf is the module
    ("tf = None\ndef load():\n    global tf\n    import tensorflow as tf\nload()\ntf.reduce_sum(x)",
     "tensorflow.reduce_sum"),
    ("try:\n    import tensorflow as tf\nexcept ImportError:\n    tf = None\ntf.reduce_sum(x)",
     "tensorflow.reduce_sum"),
    # not TensorFlow, or not certainly
    ("import tensorflow as tf\ndef f(tf):\n    tf.reduce_sum(x)", None),
    ("import tensorflow as tf\ndef f():\n    tf = make()\n    tf.reduce_sum(x)", None),
    ("import tensorflow as tf\ndef f():\n    tf.reduce_sum(x)\n    tf = 3", None),
    ("if gpu:\n    import tensorflow as xp\nelse:\n    import numpy as xp\nxp.sum(x)", None),
    ("import tensorflow as tf\ntf = tf.compat.v1\ntf.reduce_sum(x)", None),
    ("from tensorflow import *\nreduce_sum(x)", None),
    ("import tensorflow as tf\n[tf.reduce_sum(x) for tf in models]", None),
    ("import tensorflow as tf\nf = lambda tf: tf.reduce_sum(x)", None),
    ("import tensorflow as tf\nfor tf in models:\n    tf.reduce_sum(x)", None),
    ("import tensorflow as tf\nwith open(p) as tf:\n    tf.reduce_sum(x)", None),
    ("from . import tensorflow as tf\ntf.reduce_sum(x)", None),
    # values that do not pair, or a swap, which reads the values from before the statement
    ("import tensorflow as tf\nnn, *rest = tf.nn, tf.math, tf.linalg\nnn.softmax(x)", None),
    ("import tensorflow as tf\nnn, math = tf.nn\nnn.softmax(x)", None),
    ("import tensorflow as tf\nimport numpy as np\na, b = tf, np\na, b = b, a\na.reduce_sum(x)", None),
]


@pytest.mark.parametrize("source, expected", CASES)
def test_qualified_name_of_the_last_call(source, expected):
    assert resolve(source)[-1][1] == expected


def test_class_scope_is_not_seen_from_methods():
    source = """\
        import tensorflow as tf
        class Model:
            tf = None
            def call(self, x):
                return tf.reduce_sum(x)
            y = tf.reduce_sum(z)
    """
    assert [q for _, q in resolve(source)] == ["tensorflow.reduce_sum", None]


def test_decorators_resolve_in_the_enclosing_scope():
    source = """\
        import tensorflow as tf
        @tf.function(jit_compile=True)
        def step(tf):
            return tf.reduce_sum(x)
    """
    assert [q for _, q in resolve(source)] == ["tensorflow.function", None]


REFERENCE_SOURCE = """\
import tensorflow as tf
import tensorflow.compat.v1 as tf1
from tensorflow import math as tm
from tensorflow.math import reduce_sum
import numpy as np

def f(x, tf2=None):
    y = tf.reduce_sum(x)
    z = tm.reduce_mean(x) + reduce_sum(x) + tf1.nn.softmax(x)
    def inner(tf):
        return tf.reduce_sum(x)
    return np.sum([y, z]), tf.nn.relu(x)

class M:
    def call(self, x):
        return tf.math.log(tf.nn.softmax(x))
"""


class _Reference(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (QualifiedNameProvider,)

    def __init__(self):
        super().__init__()
        self.names = {}

    def visit_Call(self, node):
        self.names[node.func] = {q.name for q in self.get_metadata(QualifiedNameProvider, node.func)}


def test_agrees_with_libcst_qualified_name_provider():
    """Where the light resolver answers, libcst's provider gives the same name."""
    wrapper = MetadataWrapper(cst.parse_module(REFERENCE_SOURCE))
    reference = _Reference()
    wrapper.visit(reference)
    ours = resolve(None, wrapper.module)
    answered = [(func, q) for func, q in ours if q is not None]
    assert len(answered) == 8  # all nine calls but the shadowed ``tf`` inside ``inner``
    for func, qualname in answered:
        assert reference.names[func] == {qualname}, wrapper.module.code_for_node(func)


@pytest.mark.parametrize("qualname, expected", [
    ("tensorflow.math.reduce_sum", TFName("math.reduce_sum", None)),
    ("tensorflow.compat.v1.nn.softmax", TFName("nn.softmax", "v1")),
    ("tensorflow.compat.v2.reduce_sum", TFName("reduce_sum", "v2")),
    ("tensorflow", TFName("", None)),
    ("numpy.sum", None),
    ("tensorflow_probability.math.foo", None),
    (None, None),
])
def test_tf_name(qualname, expected):
    assert tf_name(qualname) == expected


class _Everything(cst.BatchableCSTVisitor):
    """Asks the context for every name and attribute, twice, in traversal order."""

    def __init__(self, context):
        super().__init__()
        self.context = context
        self.seen = []

    def _ask(self, node):
        scope = self.context.scope
        first = self.context.qualname(node)
        assert self.context.qualname(node) == first
        self.seen.append((node, scope, first, self.context.owner(node.value) if type(node) is cst.Name else None))

    visit_Name = visit_Attribute = _ask


def test_memoized_answers_are_those_of_a_fresh_resolver():
    """Owners and qualified names are cached per file; aliases that refer to themselves
    (resolved to None while being resolved) must not leave a different answer behind."""
    from tflint_effective.analysis.names import Resolver
    source = textwrap.dedent("""\
        import tensorflow as tf
        tf = tf.compat.v1
        a = b.nn
        b = a.math
        a = tf
        import tensorflow as c
        d = c.nn
        c = d.math
        import tensorflow as tf2
        e = tf2.nn
        def f(x):
            nn = tf.nn
            return nn.softmax(x), a.nn.relu(x), d.relu(x), c.log(x), [tf.exp(y) for tf in x], e.relu(x)
    """)
    module = cst.parse_module(source)
    context = Context(module, "<test>")
    everything = _Everything(context)
    module.visit(_Traversal(context, [everything]))
    assert "tensorflow.nn.relu" in {q for _, _, q, _ in everything.seen}
    for node, scope, qualname, owner in everything.seen:
        fresh = Resolver(context._table)
        assert fresh.qualname(node, scope) == qualname, module.code_for_node(node)
        if owner is not None:
            assert Resolver(context._table).owner(node.value, scope) is owner
