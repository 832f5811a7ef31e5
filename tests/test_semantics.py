"""The semantic model: snippet -> mode of each ``probe(...)`` call, snippet -> tensor-ness of its argument."""
import textwrap

import libcst as cst
import pytest

from tflint_effective.analysis.tf_api import TF1_ONLY, TF1_ONLY_KEYWORDS
from tflint_effective.engine.analyse import analyse
from tflint_effective.levels import MODES
from tflint_effective.rule import Rule


class Probe(Rule):
    """Reports every ``probe(expr)`` call; its settled severity is the mode, and it records
    what the semantic model said about ``expr`` at that point."""

    CODE = "TFE999"
    SEVERITY = {mode: mode for mode in MODES}
    seen = []

    def visit_Call(self, node):
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            argument = node.args[0].value
            Probe.seen.append((self.context.is_tensor(argument),
                               self.context.semantics.is_scalar(argument)))
            self.report(node)


def probe(source):
    """(modes, tensor-ness, scalar-ness) of the probes, in source order."""
    Probe.seen = []
    settled = analyse(cst.parse_module(textwrap.dedent(source)), "<probe>", [Probe])
    return [severity for _, severity in settled], [t for t, _ in Probe.seen], [s for _, s in Probe.seen]


def modes(source):
    return probe(source)[0]


def tensors(source):
    return probe(source)[1]


TF = "import tensorflow as tf\n"
V1 = "import tensorflow.compat.v1 as tf\n"

MODE_CASES = [
    # modes per scope: a function's own signals first, then its class's, then the module's
    (TF + "def build():\n    x = tf.compat.v1.placeholder(tf.float32)\n    probe(x)\n"
          "def train(m):\n    with tf.GradientTape() as tape:\n        probe(1)\n"
          "def plain():\n    probe(2)\n", ["G", "E", "E"]),
    (TF + "tf.compat.v1.enable_eager_execution()\n"
          "def build():\n    sess = tf.compat.v1.Session()\n    probe(sess)\ndef plain():\n    probe(2)\n",
     ["G", "E"]),
    (V1 + "def step():\n    if not tf.executing_eagerly():\n        raise ValueError('eager only')\n"
          "    probe(1)\ndef other():\n    probe(2)\n", ["E", "G"]),
    (V1 + "def step():\n    if not tf.executing_eagerly():\n        return\n    probe(1)\n", ["E"]),
    (V1 + "def step():\n    if not tf.executing_eagerly():\n        log('graph')\n    probe(1)\n", ["G"]),
    (TF + "if not tf.executing_eagerly():\n    raise ImportError('TF2 only')\n"
          "x = tf.compat.v1.placeholder(tf.float32)\nprobe(1)\n", ["E"]),
    # TF1 eager execution runs TF 1.x-only names too (layers, optimizers), but not sessions and placeholders
    (TF + "tf.enable_v2_behavior()\ndef train():\n    opt = tf.train.AdamOptimizer(0.1)\n    probe(opt)\n"
          "def build():\n    y = tf.layers.dense(x, 3)\n    probe(y)\n", ["E", "E"]),
    (TF + "def train():\n    opt = tf.train.AdamOptimizer(0.1)\n    probe(opt)\n"
          "if __name__ == '__main__':\n    tf.enable_eager_execution()\n    train()\n", ["E"]),
    (TF + "def train():\n    opt = tf.train.AdamOptimizer(0.1)\n    probe(opt)\n", ["G"]),
    (TF + "tf.compat.v1.enable_eager_execution()\nclass Model:\n"
          "    def __init__(self):\n        self.x = tf.placeholder(tf.float32)\n"
          "    def loss(self):\n        probe(self.x)\ndef other():\n    probe(1)\n", ["G", "E"]),
    # compat.v1 graph APIs in TF2 code: their own function only
    (TF + "class Agent:\n    def _initialize(self):\n        tf.compat.v1.variables_initializer(self.v)\n"
          "        probe(1)\n    def __init__(self):\n        probe(2)\n", ["G", "E"]),
    (TF + "def both():\n    sess = tf.Session()\n    with tf.GradientTape() as t:\n        probe(1)\n",
     ["G"]),  # conflicting signals: no verdict for the function, the module's decides
    (TF + "with tf.Graph().as_default():\n    def f():\n        with tf.GradientTape() as t:\n"
          "            probe(1)\n", ["G"]),  # the graph block says it outright
    # wrappers that stand for tf.function
    (TF + "from tf_agents.utils import common\n@common.function\ndef f(x):\n    probe(x)\n", ["F"]),
    (TF + "from tf_agents.utils import common\ndef f(x):\n    probe(x)\ng = common.function(f)\n", ["F"]),
    (TF + "from tf_agents.utils import common\n@common.function_in_tf1()\ndef f(x):\n    probe(x)\n", ["F"]),
    (TF + "from myproj.utils import compiled\n@compiled\ndef f(x):\n    probe(x)\n", ["E"]),
    # module-level signals
    (TF + "probe(1)\n", ["E"]),
    (V1 + "probe(1)\n", ["G"]),
    ("from tensorflow.compat import v1 as tf\nprobe(1)\n", ["G"]),
    ("import tensorflow.compat.v1 as tf1\nprobe(1)\n", ["G"]),
    # with compat.v2 imported too the module is written to run on either version: the alias decides nothing
    (V1 + "import tensorflow.compat.v2 as tf2\nprobe(1)\n", ["E"]),
    ("from tensorflow.compat import v1 as tf, v2\nprobe(1)\n", ["E"]),
    (V1 + "import tensorflow.compat.v2 as tf2\nsess = tf.Session()\nprobe(1)\n", ["G"]),  # a graph API still does
    # a second, plain import makes the v1 alias a side door, not the main API
    (TF + "import tensorflow.compat.v1 as tf1\nprobe(tf1.log(2.0))\n", ["E"]),
    (TF + "probe(1)\nsess = tf.compat.v1.Session()\n", ["G"]),
    # TF2 code's way to set GPU options: a session made with a config and kept or handed to Keras
    *[(TF + "config = tf.compat.v1.ConfigProto()\nconfig.gpu_options.allow_growth = True\n" + made + "probe(1)\n",
       [mode]) for made, mode in (
        ("session = tf.compat.v1.InteractiveSession(config=config)\n", "E"),
        ("tf.compat.v1.Session(config=config)\n", "E"),
        ("tf.compat.v1.keras.backend.set_session(tf.compat.v1.Session(config=config))\n", "E"),
        ("session = tf.compat.v1.InteractiveSession()\n", "G"),  # no config: made to run the graph
        ("with tf.compat.v1.Session(config=config) as sess:\n    pass\n", "G"),
        ("sess = tf.compat.v1.Session(config=config).run(y)\n", "G"),
        ("session = tf.Session(config=config)\n", "G"))],  # TF 1.x's root API: TF 1.x code
    ("from tensorflow.compat.v1 import ConfigProto, InteractiveSession\nconfig = ConfigProto()\n"
     "session = InteractiveSession(config=config)\nprobe(1)\n", ["E"]),
    (TF + "session = tf.compat.v1.Session(config=config)\nx = tf.compat.v1.placeholder(tf.float32)\nprobe(x)\n",
     ["G"]),
    (TF + "tf.compat.v1.disable_eager_execution()\nprobe(1)\n", ["G"]),
    (TF + "x = tf.compat.v1.placeholder(tf.float32)\nprobe(x)\n", ["G"]),
    ("from tensorflow.compat.v1 import placeholder\nx = placeholder('float')\nprobe(x)\n", ["G"]),
    (TF + "ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\nprobe(1)\n", ["G"]),
    (TF + "y = tf.layers.dense(x, 3)\nprobe(1)\n", ["G"]),
    (TF + "y = tf.contrib.layers.flatten(x)\nprobe(1)\n", ["G"]),
    (TF + "probe(tf.log(x))\n", ["G"]),
    (TF + "probe(tf.random_normal([2]))\n", ["G"]),
    (TF + "y = tf.squared_difference(a, b) * tf.rsqrt(v)\nprobe(1)\n", ["G"]),
    (TF + "y = tf.math.squared_difference(a, b) * tf.math.rsqrt(v)\nprobe(1)\n", ["E"]),
    (TF + "opt = tf.train.AdamOptimizer(0.1)\nprobe(1)\n", ["G"]),
    # a keyword only TF 1.x's signature takes is TF 1.x code; the same call through compat.v1 marks nothing
    (TF + "def f(x):\n    return tf.nn.softmax(x, dim=1)\nprobe(1)\n", ["G"]),
    (TF + "y = tf.nn.conv2d(x, filter=w, strides=[1, 1, 1, 1], padding='SAME')\nprobe(1)\n", ["G"]),
    (TF + "y = tf.nn.conv2d(x, filters=w, strides=[1, 1, 1, 1], padding='SAME')\nprobe(1)\n", ["E"]),
    (TF + "y = tf.nn.softmax(x, axis=1)\nprobe(1)\n", ["E"]),
    # ``t.numpy()`` raises on a graph tensor: a function that calls it runs eagerly, whatever the module's names
    (TF + "x = tf.placeholder(tf.float32)\ndef show(t):\n    probe(t)\n    print(t.numpy())\nprobe(1)\n",
     ["E", "G"]),
    (TF + "x = tf.placeholder(tf.float32)\ndef show(t):\n    probe(t)\n    print(t.numpy(1))\n", ["G"]),
    (TF + "@tf.function\ndef f(t):\n    probe(t)\n    return t.numpy()\n", ["F"]),
    (TF + "def f(x):\n    return tf.compat.v1.nn.softmax(x, dim=1)\nprobe(1)\n", ["E"]),
    # ... and TF 1.x-only names beside it are TF1 eager code, in the function or over its class; a session is not
    (TF + "def show():\n    y = tf.random_uniform([2])\n    probe(y)\n    print(y.numpy())\n", ["E"]),
    (TF + "class Net:\n    def noise(self):\n        return tf.random_uniform([2])\n"
          "    def show(self, t):\n        return t.numpy()\n    def step(self):\n        probe(1)\n", ["E"]),
    (TF + "def show(t):\n    sess = tf.Session()\n    probe(t)\n    print(t.numpy())\n", ["G"]),
    # TF2 names that share a prefix with TF1 ones stay eager
    (TF + "ckpt = tf.train.Checkpoint()\nprobe(tf.math.log(x))\n", ["E"]),
    (TF + "tf.compat.v1.logging.set_verbosity(0)\nprobe(1)\n", ["E"]),
    (V1 + "tf.enable_eager_execution()\nprobe(1)\n", ["E"]),
    (TF + "import tensorflow.contrib.eager as tfe\ntfe.enable_eager_execution()\nprobe(1)\n", ["E"]),  # the contrib spelling
    (TF + "tf.contrib.eager.enable_eager_execution()\nprobe(tf.contrib.layers.flatten(x))\n", ["E"]),
    # graph blocks
    (TF + "with tf.Graph().as_default():\n    probe(1)\nprobe(2)\n", ["G", "E"]),
    (TF + "g = tf.Graph()\nwith g.as_default():\n    probe(1)\n", ["G"]),
    (TF + "def f():\n    with tf.Graph().as_default() as g:\n        probe(1)\n", ["G"]),
    # tf.function, decorated or called later
    (TF + "@tf.function\ndef f(x):\n    probe(x)\n", ["F"]),
    (TF + "@tf.function(jit_compile=True)\ndef f(x):\n    probe(x)\n", ["F"]),
    (TF + "@tf.function(autograph=False)\ndef f(x):\n    probe(x)\n", ["F0"]),
    (TF + "def f(x):\n    probe(x)\ng = tf.function(f)\n", ["F"]),
    (TF + "def f(x):\n    probe(x)\ng = tf.function(f, autograph=False)\n", ["F0"]),
    (TF + "def f(x):\n    probe(x)\ng = tf.function(func=f)\n", ["F"]),
    (TF + "g = tf.function(lambda x: probe(x))\nprobe(1)\n", ["F", "E"]),
    (TF + "def f(x):\n    probe(x)\ng = tf.autograph.to_graph(f)\n", ["F"]),
    (TF + "def f(x):\n    probe(x)\ng = tf.compat.v1.wrap_function(f, [])\n", ["F0"]),
    # a nested function inherits; a py_function body runs eagerly
    (TF + "@tf.function\ndef f(x):\n    def g():\n        probe(x)\n    return g()\n", ["F"]),
    (TF + "def g(x):\n    probe(x)\n@tf.function\ndef f(x):\n    return tf.py_function(g, [x], tf.float32)\n",
     ["E"]),
    (V1 + "@tf.function\ndef f(x):\n    probe(x)\nprobe(1)\n", ["F", "G"]),
    # the name is resolved in the scope of the call: here the method, not the function
    (TF + "def f(x):\n    probe(x)\nclass A:\n    def f(self):\n        probe(2)\n    g = tf.function(f)\n",
     ["E", "F"]),
    # Keras methods
    (TF + "class M(tf.keras.Model):\n    def call(self, x):\n        probe(x)\n"
          "    def helper(self, x):\n        probe(x)\n", ["F", "E"]),
    (TF + "class L(tf.keras.layers.Layer):\n    def train_step(self, d):\n        probe(d)\n", ["F"]),
    ("from tensorflow import keras\nclass L(keras.layers.Dense):\n    def call(self, x):\n        probe(x)\n",
     ["F"]),
    ("import keras\nclass M(keras.Model):\n    def test_step(self, d):\n        probe(d)\n", ["F"]),
    ("import tf_keras\nclass M(tf_keras.Model):\n    def call(self, x):\n        probe(x)\n", ["F"]),
    (TF + "class Base(tf.keras.Model):\n    pass\nclass M(Base):\n    def call(self, x):\n        probe(x)\n",
     ["F"]),
    (TF + "class M(tf.keras.Model):\n    @tf.function(autograph=False)\n    def call(self, x):\n"
          "        probe(x)\n", ["F0"]),
    ("import mylib\nclass M(mylib.Model):\n    def call(self, x):\n        probe(x)\n", ["E"]),
    (TF + "class M(tf.Module):\n    def call(self, x):\n        probe(x)\n", ["E"]),
    # a helper runs traced when every call of it is in traced code (and its name is only called)
    (TF + "def _h(x):\n    probe(x)\n@tf.function\ndef f(x):\n    return _h(x)\n", ["F"]),
    (TF + "def _h(x):\n    probe(x)\n@tf.function(autograph=False)\ndef f(x):\n    return _h(x)\n", ["F0"]),
    (TF + "def _h(x):\n    probe(x)\ndef _g(x):\n    return _h(x)\n@tf.function\ndef f(x):\n    return _g(x)\n",
     ["F"]),  # through another helper
    (TF + "def _h(x):\n    probe(x)\nclass M(tf.keras.Model):\n    def call(self, x):\n        return _h(x)\n", ["F"]),
    (TF + "def _h(x):\n    probe(x)\n@tf.function\ndef f(x):\n    return _h(x)\n_h(1)\n", ["E"]),  # also eager
    (TF + "def _h(x):\n    probe(x)\n@tf.function\ndef f(x):\n    return _h(x)\nfs = [_h]\n", ["E"]),  # a value
    (TF + "def _h(x):\n    probe(x)\n@tf.function\ndef f(x):\n    return tf.map_fn(_h, x)\n", ["E"]),
    (TF + "__all__ = ['_h']\ndef _h(x):\n    probe(x)\n@tf.function\ndef f(x):\n    return _h(x)\n", ["E"]),
    (TF + "def _h(x):\n    probe(x)\n", ["E"]),  # never called
    (TF + "def _h(x):\n    probe(x)\n    return _h(x - 1)\n@tf.function\ndef f(x):\n    return _h(x)\n",
     ["E"]),  # recursion: no verdict, and it terminates
    (TF + "def _a(x):\n    probe(x)\n    return _b(x)\ndef _b(x):\n    return _a(x)\n@tf.function\n"
          "def f(x):\n    return _a(x)\n", ["E"]),
    (TF + "def h(x):\n    probe(x)\n@tf.function\ndef f(x):\n    return h(x)\n", ["E"]),  # public: callers unseen
    (TF + "def h(x):\n    probe(x)\n@tf.function\ndef f(x):\n    return h(x)\nif __name__ == '__main__':\n"
          "    f(1)\n", ["F"]),  # ... but a script's
    (TF + "def _h(x):\n    with tf.GradientTape() as t:\n        probe(x)\n@tf.function\ndef f(x):\n"
          "    return _h(x)\n", ["E"]),  # its own signals decide
    (TF + "def _h(x):\n    probe(x)\n@tf.function\ndef f(x):\n    return _h(x)\nobj._h(1)\n", ["F"]),  # another object's
    # ... and a method when every ``self.<name>`` is in traced code and no other receiver reads ``.<name>``
    (V1 + "class L(tf.keras.layers.Layer):\n    def call(self, x):\n        return self.step(x)\n"
          "    def step(self, x):\n        probe(x)\n", ["F"]),
    (V1 + "class L(tf.keras.layers.Layer):\n    def call(self, x, k):\n"
          "        return {'a': self.a, 'b': self._b}[k](x)\n"
          "    def a(self, x):\n        probe(x)\n    def _b(self, x):\n        return self.a(x)\n", ["F"]),
    (TF + "class A:\n    @tf.function\n    def run(self, x):\n        return self.step(x)\n"
          "    def step(self, x):\n        probe(x)\n", ["F"]),
    (V1 + "class L(tf.keras.layers.Layer):\n    def call(self, x):\n        return self.step(x)\n"
          "    def step(self, x):\n        probe(x)\n    def grow(self, x):\n        return self.step(x)\n", ["G"]),
    (V1 + "class L(tf.keras.layers.Layer):\n    def call(self, x):\n        return self.step(x)\n"
          "    def step(self, x):\n        probe(x)\nlayer.step(1)\n", ["G"]),  # another receiver's
    (V1 + "class L(tf.keras.layers.Layer):\n    def call(self, x):\n        return self.step(x)\n"
          "    @property\n    def step(self):\n        probe(1)\n", ["G"]),
    (V1 + "class L(tf.keras.layers.Layer):\n    def call(self, x):\n        return self.__add__(x)\n"
          "    def __add__(self, x):\n        probe(x)\n", ["G"]),  # Python calls dunders itself
    (V1 + "class L(tf.keras.layers.Layer):\n    def call(self, x):\n        return self.step(x)\n"
          "    def step(self, x):\n        probe(x)\n        return self.step(x - 1)\n", ["G"]),  # recursion
    (V1 + "class L(tf.keras.layers.Layer):\n    def step(self, x):\n        probe(x)\n", ["G"]),  # never read
    # tf.data functions, only on a certain dataset
    (TF + "ds = tf.data.Dataset.range(4).map(lambda x: probe(x))\n", ["F"]),
    (TF + "def parse(x):\n    probe(x)\nds = tf.data.TFRecordDataset(files).batch(2)\nds = ds.map(parse)\n",
     ["F"]),
    (TF + "ds = tf.data.Dataset.from_tensor_slices(xs)\nds2 = ds.filter(predicate=lambda x: probe(x))\n",
     ["F"]),
    (TF + "ds = load()\nds = ds.map(lambda x: probe(x))\n", ["E"]),
    (TF + "ds = tf.data.Dataset.range(4) if c else [1]\nds.map(lambda x: probe(x))\n", ["E"]),
]


@pytest.mark.parametrize("source, expected", MODE_CASES)
def test_mode(source, expected):
    assert modes(source) == expected


TENSOR_CASES = [
    # across function boundaries: private and nested functions take what every call passes
    (TF + "def _f(x):\n    probe(x)\n_f(tf.ones([2]))\n_f(y=None, x=tf.zeros([3]))\n", [True]),
    (TF + "def _f(x):\n    probe(x)\n_f(tf.ones([2]))\n_f(3)\n", [False]),
    (TF + "probe(tf.nn.nest.is_sequence(x))\nprobe(tf.contrib.framework.nest.flatten(x))\n", [False, False]),
    (TF + "def _f(x):\n    probe(x)\n_f(tf.ones([2]))\nhandlers = [_f]\n", [False]),  # escapes: callers unseen
    (TF + "def _f(x):\n    probe(x)\n", [False]),  # no call in sight
    (TF + "def outer():\n    def inner(x):\n        probe(x)\n    return inner(tf.ones([2]))\n", [True]),
    (TF + "def f(x):\n    probe(x)\nf(tf.ones([2]))\n", [False]),  # public: callers may be anywhere
    (TF + "class A:\n    def _g(self, x):\n        probe(x)\n    def run(self):\n        return self._g(tf.ones([2]))\n",
     [True]),
    (TF + "def _f(shape):\n    probe(shape)\n_f(tf.shape(x))\n", [False]),  # a shape, indexed per dimension
    (TF + "def _f(s):\n    probe(s)\nn = tf.shape(x)[1:]\n_f(n)\n", [False]),
    (TF + "def _f(x):\n    probe(x)\nxs = tf.ones([2])\n_f(*[xs])\n", [False]),
    # a closure reads its function's parameter
    (TF + "def _f(x):\n    def g():\n        probe(x)\n    return g\n_f(tf.ones([2]))\n", [True]),
    # public functions: a docstring that says Tensor, and nothing else
    (TF + 'def f(x, y, z):\n    """Args:\n      x: A `Tensor` of shape [n].\n      y: Tensor or array.\n'
          '      z (tf.Tensor): logits.\n    """\n    probe(x)\n    probe(y)\n    probe(z)\n', [True, False, True]),
    (TF + 'def f(x):\n    """Parameters\n    ----------\n    x : tf.Tensor\n    """\n    probe(x)\n', [True]),
    (TF + 'def f(x):\n    """Args:\n      x: array_like, a Tensor.\n    """\n    probe(x)\n', [False]),
    # the entry of that very name: not one whose name it begins, nor a line that mentions it
    (TF + 'def f(x, x_mask):\n    """Uses x: a Tensor.\n\n    Args:\n      x_mask: A Tensor.\n      x (list): ids.\n    """\n'
          '    probe(x)\n    probe(x_mask)\n', [False, True]),
    # a module that also uses another library's Tensor class: only tf.Tensor is TensorFlow's
    (TF + 'import mesh_tensorflow as mtf\ndef f(x, y):\n    """Args:\n      x: a Tensor.\n      y: a tf.Tensor.\n    """\n'
          '    probe(x)\n    probe(y)\n', [False, True]),
    (TF + 'from torch import nn\ndef f(x):\n    """Args:\n      x: a Tensor.\n    """\n    probe(x)\n', [False]),
    # ... unless a call in sight passes a Python number: a loop counter or a literal
    (TF + 'def f(x):\n    """Args:\n      x: a Tensor.\n    """\n    probe(x)\n'
          'for i in range(3):\n    f(i)\n', [False]),
    (TF + 'def f(x):\n    """Args:\n      x: a Tensor.\n    """\n    probe(x)\n'
          'def g(xs):\n    for i, _ in enumerate(xs):\n        f(x=i)\n', [False]),
    (TF + 'def f(x):\n    """Args:\n      x: a Tensor.\n    """\n    probe(x)\nf(0)\n', [False]),
    # near misses: a counter rebound to a tensor, a shadowed range, a loop over values
    (TF + 'def f(x):\n    """Args:\n      x: a Tensor.\n    """\n    probe(x)\n'
          'for i in range(3):\n    f(i)\ni = tf.ones([2])\n', [True]),
    (TF + 'from x import range\ndef f(x):\n    """Args:\n      x: a Tensor.\n    """\n    probe(x)\n'
          'for i in range(3):\n    f(i)\n', [True]),
    (TF + 'def f(x):\n    """Args:\n      x: a Tensor.\n    """\n    probe(x)\n'
          'for t in tensors:\n    f(t)\nfor i, t in enumerate(tensors):\n    f(t)\n', [True]),
    # what module helpers return, methods through self included
    (TF + "def probs(x):\n    return tf.nn.softmax(x)\nprobe(probs(1))\n", [True]),
    (TF + "def probs(x):\n    if x:\n        return None\n    return tf.nn.softmax(x)\nprobe(probs(1))\n", [False]),
    (TF + "def gen():\n    yield tf.ones([2])\nprobe(gen())\n", [False]),
    (TF + "def loop(n):\n    return loop(n - 1)\nprobe(loop(3))\n", [False]),  # recursion: unknown
    (TF + "class A:\n    def _p(self):\n        return tf.ones([2])\n    def run(self):\n        probe(self._p())\n",
     [True]),
    # attributes assigned in one method, read in another
    (TF + "class A:\n    def __init__(self, x):\n        self.p = tf.nn.softmax(x)\n    def run(self):\n"
          "        probe(self.p)\n", [True]),
    (TF + "class A:\n    def __init__(self, x):\n        self.p = tf.nn.softmax(x)\n    def reset(self):\n"
          "        self.p = None\n    def run(self):\n        probe(self.p)\n", [False]),
    (TF + "class A:\n    def __init__(self, x):\n        self.p, self.q = x\n    def run(self):\n"
          "        probe(self.p)\n", [False]),
    # parsers give dicts, not tensors
    (V1 + "ex = tf.parse_single_example(record, features)\nprobe(ex)\nprobe(ex['x'])\n", [False, False]),
    # results of TensorFlow calls
    (TF + "probe(tf.ones([2]))\n", [True]),
    (TF + "probe(tf.math.reduce_sum(x, axis=0))\n", [True]),
    ("from tensorflow import nn\nprobe(nn.softmax(x))\n", [True]),
    ("from tensorflow.nn import softmax as sm\nprobe(sm(x))\n", [True]),
    (V1 + "probe(tf.placeholder(tf.float32))\n", [True]),
    # not tensors
    (TF + "probe(tf.device('/cpu:0'))\nprobe(tf.name_scope('a'))\nprobe(tf.TensorShape([2]))\n",
     [False, False, False]),
    (TF + "probe(tf.float32)\nprobe(tf.dtypes.as_dtype('float32'))\nprobe(tf.config.list_physical_devices())\n",
     [False, False, False]),
    (TF + "x = tf.ones([2])\nprobe(x.shape)\nprobe(x.shape[0])\nprobe(x.numpy())\nprobe(len(x))\n",
     [False, False, False, False]),
    (TF + "x = tf.ones([2])\nprobe(tf.get_static_value(x))\nprobe(tf.executing_eagerly())\n", [False, False]),
    (TF + "x = tf.ones([2])\nprobe(x is None)\nprobe(x is not y)\nprobe(x == 1)\nprobe(x != 1)\n",
     [False, False, False, False]),
    (TF + "x = tf.ones([2])\nprobe(not x)\nprobe(x and y)\nprobe(x in y)\nprobe(0 < x < 1)\n",
     [False, False, False, False]),
    (TF + "a, b = tf.unstack(x)\nparts = tf.split(x, 2)\nprobe(parts)\nprobe(a)\n", [False, False]),
    (TF + "probe(tf.debugging.assert_positive(x))\nprobe(tf.assert_equal(x, y))\nprobe(tf.print(x))\n",
     [False, False, False]),
    (TF + "probe(tf.Variable(1.0))\nprobe(tf.TensorArray(tf.float32, 2))\nprobe(tf.random.set_seed(1))\n",
     [False, False, False]),
    (TF + "probe(tf.sparse.from_dense(x))\nprobe(tf.ragged.constant([[1]]))\nprobe(tf.keras.layers.Dense(2))\n",
     [False, False, False]),
    ("import numpy as np\nprobe(np.ones([2]))\nprobe(np.ones([2]) > 0)\n", [False, False]),
    # TensorFlow's internals are not its public API
    ("from tensorflow.python.eager import context\nfrom tensorflow.python import tf2\n"
     "probe(context.executing_eagerly())\nprobe(tf2.enabled())\n", [False, False]),
    (TF + "probe(tf.signal.rfft(x))\nprobe(tf.lite.Interpreter(p))\nprobe(tf.summary.scalar('a', x))\n",
     [True, False, False]),
    ("import tensorflow as tf\ntf = object()\nprobe(tf.ones([2]))\n", [False]),
    # operators on tensors
    (TF + "x = tf.ones([2])\nprobe(x + 1)\nprobe(2 * x)\nprobe(-x)\nprobe(x[0])\nprobe(x > 0)\nprobe(x @ x)\n",
     [True, True, True, True, True, True]),
    (TF + "x = tf.ones([2])\nprobe('%s' % x)\nprobe(x % 2)\nprobe(x if c else None)\nprobe(x if c else x + 1)\n",
     [False, True, False, True]),
    (TF + "probe((y := tf.ones([2])))\nprobe(y)\n", [True, False]),  # walrus names: unknown
    # names, flow-sensitively
    (TF + "def f():\n    x = None\n    probe(x)\n    x = tf.ones([2])\n    probe(x)\n    x = 3\n    probe(x)\n",
     [False, True, False]),
    (TF + "x = tf.ones([2])\nx += 1\nprobe(x)\nx = x.numpy()\nprobe(x)\n", [True, False]),
    (TF + "a = b = tf.ones([2])\nc, d = tf.ones([2]), None\nprobe(a)\nprobe(b)\nprobe(c)\nprobe(d)\n",
     [True, True, True, False]),
    (TF + "x: tf.Tensor = tf.ones([2])\nprobe(x)\ndel x\nprobe(x)\n", [True, False]),
    # branches merge: a tensor only if a tensor on every path
    (TF + "def f(c):\n    x = None\n    if c:\n        x = tf.ones([2])\n    probe(x)\n", [False]),
    (TF + "def f(c):\n    if c:\n        x = tf.ones([2])\n    else:\n        x = tf.zeros([2])\n    probe(x)\n",
     [True]),
    (TF + "def f(c, x):\n    if x is None:\n        x = tf.ones([2])\n    probe(x)\n", [False]),
    (TF + "def f(c):\n    x = tf.ones([2])\n    if c:\n        x = 1\n        probe(x)\n    elif d:\n"
          "        probe(x)\n    else:\n        x = tf.zeros([2])\n    probe(x)\n", [False, True, False]),
    (TF + "def f(c):\n    x = None\n    if c:\n        x = tf.ones([2])\n    else:\n        raise ValueError\n"
          "    probe(x)\n", [True]),
    (TF + "def f(c):\n    x = tf.ones([2])\n    try:\n        x = None\n        x = tf.zeros([2])\n    except E:\n"
          "        probe(x)\n    probe(x)\n", [False, False]),
    (TF + "def f(c):\n    x = tf.ones([2])\n    try:\n        y = 1\n    except E:\n        probe(x)\n"
          "    else:\n        probe(x)\n    finally:\n        probe(x)\n", [True, True, True]),
    (TF + "def f(c):\n    x = tf.ones([2])\n    match c:\n        case 1:\n            x = None\n"
          "        case _:\n            probe(x)\n    probe(x)\n", [True, False]),
    (TF + "def f():\n    x = tf.ones([2])\n    with tf.device('/cpu:0'):\n        x = x + 1\n    probe(x)\n",
     [True]),
    (TF + "def f():\n    x = tf.ones([2])\n    with open(p) as x:\n        probe(x)\n", [False]),
    # loops: the head sees the value of every iteration
    (TF + "def f(n):\n    x = tf.ones([2])\n    for i in range(n):\n        probe(x)\n        x = None\n"
          "    probe(x)\n", [False, False]),
    (TF + "def f(n):\n    z = tf.zeros([])\n    for i in range(n):\n        probe(z)\n        z += x[i]\n"
          "    probe(z)\n", [True, True]),
    (TF + "def f(n):\n    x = tf.ones([2])\n    y = x\n    while probe(y):\n        y = x\n        x = None\n",
     [False]),
    (TF + "def f(n):\n    x = tf.ones([2])\n    for i in x:\n        probe(i)\n    else:\n        probe(x)\n",
     [False, True]),
    (TF + "def f(n):\n    x = None\n    for i in range(n):\n        x = tf.ones([2])\n        probe(x)\n"
          "    probe(x)\n", [True, False]),
    # parameters, closures, globals
    (TF + "def f(x: tf.Tensor, y, z: tf.Tensor = None):\n    probe(x)\n    probe(y)\n    probe(z)\n",
     [True, False, False]),
    (TF + "@tf.function(input_signature=[tf.TensorSpec([None])])\ndef f(x, y=1):\n    probe(x)\n    probe(y)\n",
     [True, False]),
    (TF + "class A:\n    @tf.function(input_signature=[tf.TensorSpec([])])\n    def f(self, x):\n"
          "        probe(self)\n        probe(x)\n", [False, True]),
    (TF + "x = tf.ones([2])\ndef f():\n    probe(x)\n", [True]),
    (TF + "x = tf.ones([2])\ndef f():\n    probe(x)\nx = None\n", [False]),
    (TF + "x = tf.ones([2])\ndef f():\n    global x\n    x = None\nprobe(x)\n", [False]),
    (TF + "def f():\n    x = tf.ones([2])\n    def g():\n        nonlocal x\n        x = 1\n    probe(x)\n", [False]),
    (TF + "def f():\n    x = tf.ones([2])\n    g = lambda: probe(x)\n    return [probe(x) for _ in y]\n",
     [True, True]),
    (TF + "def f():\n    x = tf.ones([2])\n    return [probe(x) for x in range(3)]\n", [False]),
    (TF + "class A:\n    x = tf.ones([2])\n    probe(x)\n", [True]),
    (TF + "def f(self):\n    self.x = tf.ones([2])\n    probe(self.x)\n", [False]),
]


@pytest.mark.parametrize("source, expected", TENSOR_CASES)
def test_tensor(source, expected):
    assert tensors(source) == expected


SCALAR_CASES = [
    (TF + "probe(tf.reduce_sum(x))\nprobe(tf.reduce_sum(x, 0))\nprobe(tf.reduce_mean(x, keepdims=True))\n",
     [True, False, False]),
    (TF + "probe(tf.reduce_sum(x, axis=None))\nprobe(tf.reduce_any(x, None, keepdims=False))\n", [True, True]),
    (TF + "probe(tf.constant(3.0))\nprobe(tf.constant([3.0]))\nprobe(tf.constant(-1))\nprobe(tf.constant(True))\n",
     [True, False, True, True]),
    (TF + "n = tf.size(x)\nprobe(n > 0)\nprobe(n + 1)\nprobe(n * tf.ones([2]))\nprobe(tf.norm(x))\n",
     [True, True, False, True]),
    (TF + "probe(tf.norm(x, 'euclidean', 1))\nprobe(tf.math.reduce_euclidean_norm(x, 1))\n", [False, False]),
]


@pytest.mark.parametrize("source, expected", SCALAR_CASES)
def test_scalar(source, expected):
    assert probe(source)[2] == expected


def test_tensor_names_need_every_binding_to_agree_across_scopes():
    source = TF + "def f():\n    x = tf.ones([2])\n    def g():\n        probe(x)\n    x = None\n"
    assert tensors(source) == [False]


def test_mode_is_remembered_for_nodes_reported_after_the_traversal_left_them():
    source = TF + "with tf.Graph().as_default():\n    late = 1\n"

    class Late(Rule):
        CODE = "TFE998"
        SEVERITY = {mode: mode for mode in MODES}

        def visit_Integer(self, node):
            self.node = node
            self.context.mode_thunk(node)

        def leave_Module(self, node):
            self.report(self.node)

    settled = analyse(cst.parse_module(source), "<late>", [Late])
    assert [severity for _, severity in settled] == ["G"]


def test_configured_wrappers_stand_for_tf_function():
    from tflint_effective.analysis.context import Settings

    source = TF + "from myproj.utils import compiled\n@compiled\ndef f(x):\n    probe(x)\n"
    Probe.seen = []
    settled = analyse(cst.parse_module(source), "<probe>", [Probe], Settings(function_decorators=("myproj.utils.compiled",)))
    assert [severity for _, severity in settled] == ["F"]


class TF2Probe(Rule):
    """Reports ``probe(...)`` calls that run where the scope shows positive TF2 evidence."""

    CODE = "TFE998"

    def visit_Call(self, node):
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            self.report(node, severity="error", when=self.context.tf2_thunk(node))


@pytest.mark.parametrize("source, expected", [
    (TF + "probe(1)\n", []),
    (TF + "@tf.function\ndef f(x):\n    probe(1)\nprobe(2)\n", ["1", "2"]),
    (TF + "def f():\n    with tf.GradientTape() as t:\n        probe(1)\ndef g():\n    probe(2)\n", ["1", "2"]),
    (TF + "class M(tf.keras.Model):\n    def helper(self):\n        probe(1)\n", ["1"]),
    (TF + "tf.random.set_seed(0)\nprobe(1)\n", ["1"]),
    (V1 + "probe(1)\n", []),
])
def test_tf2_evidence(source, expected):
    settled = analyse(cst.parse_module(source), "<probe>", [TF2Probe])
    assert [report.node.args[0].value.value for report, _ in settled] == expected


class TracedProbe(Rule):
    """Reports ``probe(...)`` calls whose innermost function ``tf.function`` itself wraps."""

    CODE = "TFE998"

    def visit_Call(self, node):
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            self.report(node, severity="error", when=self.context.in_tf_function_thunk(node))


@pytest.mark.parametrize("source, expected", [
    (TF + "@tf.function\ndef f(x):\n    probe(1)\n    def inner():\n        probe(2)\nprobe(3)\n", ["1"]),
    (TF + "@tf.function(jit_compile=True)\ndef f(x):\n    probe(1)\n", ["1"]),
    (TF + "def g(x):\n    probe(1)\nh = tf.function(g)\ndef k():\n    probe(2)\n", ["1"]),
    (TF + "step = tf.function(lambda x: probe(1))\nother = lambda x: probe(2)\n", ["1"]),
    (TF + "from tf_agents.utils import common\n@common.function\ndef f():\n    probe(1)\n", ["1"]),
    # traced by Keras or tf.data, not by tf.function itself
    (TF + "class M(tf.keras.Model):\n    def call(self, x):\n        probe(1)\n", []),
    (TF + "ds = tf.data.Dataset.range(3).map(lambda x: probe(1))\n", []),
    (TF + "f = tf.py_function(lambda x: probe(1), [1], tf.int32)\n", []),
])
def test_in_tf_function(source, expected):
    settled = analyse(cst.parse_module(source), "<probe>", [TracedProbe])
    assert [report.node.args[0].value.value for report, _ in settled] == expected


# -- RLlib's try_import_tf: the single value is compat.v1 with v2 behaviour disabled (graph mode);
#    the tuple gives compat.v1, TensorFlow of either version and the version: no mode signal.
RAY = "from ray.rllib.utils.framework import try_import_tf\n"


@pytest.mark.parametrize("source, expected", [
    (RAY + "tf = try_import_tf()\ndef f():\n    probe(1)\n", ["G"]),
    ("from ray.rllib.utils import try_import_tf\ntf = try_import_tf(error=True)\nprobe(1)\n", ["G"]),
    ("from ray.rllib.utils import try_import_tf\ntf = try_import_tf()\ntf.enable_eager_execution()\nprobe(1)\n",
     ["E"]),
    (RAY + "tf1, tf, tfv = try_import_tf()\nprobe(tf.ones([2]))\nprobe(tf1.ones([2]))\n", ["E", "E"]),
    # a function of another module named the same is not RLlib's
    ("import tensorflow as tf\nfrom mylib import try_import_tf\ntf1 = try_import_tf()\nprobe(1)\n", ["E"]),
])
def test_try_import_tf_modes(source, expected):
    assert modes(source) == expected


@pytest.mark.parametrize("source, expected", [
    (RAY + "tf = try_import_tf()\nprobe(tf.ones([2]))\n", [True]),
    (RAY + "tf1, tf, tfv = try_import_tf()\nprobe(tf.ones([2]))\nprobe(tf1.ones([2]))\nprobe(tfv.ones([2]))\n",
     [True, True, False]),
    (RAY + "tf1, *rest = try_import_tf()\nprobe(tf1.ones([2]))\n", [False]),
    (RAY + "tf = try_import_tf()\ntf = other\nprobe(tf.ones([2]))\n", [False]),
    ("from mylib import try_import_tf\ntf = try_import_tf()\nprobe(tf.ones([2]))\n", [False]),
    ("from mylib import try_import_tf\ntf1, tf, v = try_import_tf()\nprobe(tf.ones([2]))\n", [False]),
])
def test_try_import_tf_names(source, expected):
    assert tensors(source) == expected


def test_try_import_tf_resolves_to_compat_v1():
    from tfe_testing import findings
    source = RAY + "tf = try_import_tf()\ny = tf.log(tf.nn.softmax(x))\n"
    assert findings(source, ["TFE402"]) == [(3, 5, "TFE402")]
    # the file spells no "tensorflow": the prefilter must still let it through
    assert "tensorflow" not in source


# -- attributes of an instance of a class of the module
CLASS = TF + "class A:\n    def __init__(self, x):\n        self.p = tf.nn.softmax(x)\n"


@pytest.mark.parametrize("source, expected", [
    (CLASS + "a = A(x)\nprobe(a.p)\n", [True]),
    (CLASS + "def f(x):\n    a = A(x)\n    probe(a.p)\n", [True]),
    (CLASS + "a = A(x)\na = None\nprobe(a.p)\n", [False]),
    (CLASS + "a = A(x)\na.p = 1.0\nprobe(a.p)\n", [False]),
    (CLASS + "    def reset(self):\n        self.p = None\na = A(x)\nprobe(a.p)\n", [False]),
    (CLASS + "    p = None\na = A(x)\nprobe(a.p)\n", [False]),
    (TF + "from m import A\na = A(x)\nprobe(a.p)\n", [False]),
])
def test_instance_attributes(source, expected):
    assert tensors(source) == expected


def test_tf1_only_names_are_in_tf1s_root_and_not_in_tf2s(tf):
    def has(module, path):
        for part in path.split("."):
            module = getattr(module, part, None)
        return module is not None

    assert sorted(p for p in TF1_ONLY if not has(tf.compat.v1, p) or has(tf, p)) == []


def test_tf1_only_keywords_are_in_tf1s_signature_and_not_in_tf2s(tf):
    import inspect

    def keywords(module, path):
        for part in path.split("."):
            module = getattr(module, part)
        return set(inspect.signature(module).parameters)

    assert sorted((path, keyword) for path, names in TF1_ONLY_KEYWORDS.items() for keyword in names
                  if keyword not in keywords(tf.compat.v1, path) or keyword in keywords(tf, path)) == []
