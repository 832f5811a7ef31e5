import pytest

from tfe_testing import FIXTURES, findings, fixed, load_module
from tflint_effective.engine.lint import lint_source

FOLDER = FIXTURES / "python_side_effect_in_function"
TFE702 = ["TFE702"]
TF = "import tensorflow as tf\n"
HEAD = TF + "import random\nimport collections\nimport numpy as np\nlog = []\n"
FUNCTION = "@tf.function\ndef f(x):\n"


def lint(source):
    return findings(source, select=TFE702)


def severities(source):
    return [(d.line, d.severity) for d in lint_source(source, select=TFE702)]


@pytest.mark.parametrize("body, column", [
    # containers defined outside the function, mutated
    ("    log.append(x)\n", 5),
    ("    log.extend([x])\n", 5),
    ("    log.insert(0, x)\n", 5),
    ("    log.pop()\n", 5),
    ("    log[0] = x\n", 5),
    ("    log[0] += x\n", 5),
    ("    y = [log.append(v) for v in (x, x)]\n", 10),
    # global assignment (also under a test of another name), a container changed under one
    ("    global log\n    log = [x]\n", 5),
    ("    global log\n    if flag:\n        log = [x]\n", 9),
    ("    if x is not None:\n        log.append(x)\n", 9),
    ("    if other[0] is None:\n        log[0] = x\n", 9),
    ("    v = tf.constant(1.0)\n    log[0] = v\n", 5),
    # Python random draws, frozen at trace time
    ("    return x + random.random()\n", 16),
    ("    return x + np.random.rand()\n", 16),
    ("    return x + np.random.normal(size=3)\n", 16),
])
def test_warning_in_a_tf_function(body, column):
    source = HEAD + FUNCTION + body
    line = 7 + body.count("\n")
    assert lint(source) == [(line, column, "TFE702")]
    assert severities(source) == [(line, "warning")]
    assert fixed(source, TFE702) == source  # display-only


@pytest.mark.parametrize("setup, body", [
    ("table = {}\n", "    table['k'] = x\n"),
    ("names = set()\n", "    names.add(x.name)\n"),
    ("seen = dict()\n", "    seen.update(k=x)\n"),
    ("queue = collections.deque()\n", "    queue.appendleft(x)\n"),
    ("counts: dict = {k: 0 for k in 'ab'}\n", "    counts.setdefault('c', x)\n"),
])
def test_every_kind_of_container(setup, body):
    assert lint(HEAD + setup + FUNCTION + body) == [(9, 5, "TFE702")]


def test_an_enclosing_function_s_container_and_nonlocal():
    source = TF + """\
def build():
    history = []
    total = 0
    @tf.function
    def step(x):
        nonlocal total
        total += 1
        history.append(x)
        return x
    return step
"""
    assert lint(source) == [(8, 9, "TFE702"), (9, 9, "TFE702")]
    message = lint_source(source, select=TFE702)[1].message
    assert "`history.append(...)` changes `history`" in message and "`tf.Variable`" in message


def test_tf_function_call_and_lambda():
    source = HEAD + "def g(x):\n    log.append(x)\n    return x\nh = tf.function(g)\nk = tf.function(lambda x: log.append(x))\n"
    assert lint(source) == [(7, 5, "TFE702"), (10, 27, "TFE702")]


def test_print_is_info_and_suggests_tf_print():
    source = TF + FUNCTION + "    print('tracing', x)\n    return x\n"
    assert severities(source) == [(4, "info")]
    assert "`tf.print`" in lint_source(source, select=TFE702)[0].message
    no_autograph = TF + "@tf.function(autograph=False)\ndef f(x):\n    print(x)\n    return random.random()\n"
    no_autograph = no_autograph.replace(TF, TF + "import random\n")
    assert severities(no_autograph) == [(5, "info"), (6, "warning")]


def test_random_message_suggests_tf_random():
    [diagnostic] = lint_source(HEAD + FUNCTION + "    return random.uniform(0, 1)\n", select=TFE702)
    assert "`random.uniform(...)` in a tf.function is drawn once" in diagnostic.message
    assert "`tf.random`" in diagnostic.message


@pytest.mark.parametrize("source", [
    # TensorFlow's own printing, summaries and random ops
    HEAD + FUNCTION + "    tf.print(x)\n    tf.summary.scalar('x', x, step=1)\n    return tf.random.uniform([])\n",
    # a container made inside the function: plain Python while tracing
    HEAD + FUNCTION + "    parts = []\n    parts.append(x)\n    d = {}\n    d['k'] = x\n    return tf.add_n(parts)\n",
    HEAD + FUNCTION + "    log = []\n    log.append(x)\n    return log\n",
    # not wrapped by tf.function: eager code, a helper, Keras call and train_step
    HEAD + "def f(x):\n    global log\n    log = []\n    log.append(x)\n    print(x)\n    return random.random()\n",
    HEAD + FUNCTION + "    def helper():\n        log.append(x)\n        print(x)\n    return x\n",
    TF + "class M(tf.keras.Model):\n    def call(self, x):\n        self.seen = x\n        print(x)\n        return x\n"
         "    def train_step(self, data):\n        self.steps = 1\n        return {}\n",
    # random in a tf.py_function body runs on every call; generators and seeds
    HEAD + FUNCTION + "    return tf.py_function(lambda: random.random(), [], tf.float32)\n",
    HEAD + FUNCTION + "    rng = np.random.default_rng(0)\n    np.random.seed(0)\n    random.seed(0)\n    return x\n",
    # names not known to be containers; attributes; a global only read; a shadowed print
    HEAD + "def make():\n    return []\nother = make()\n" + FUNCTION + "    other.append(x)\n    self.log.append(x)\n"
           "    return x\n",
    HEAD + "log = None\n" + FUNCTION + "    log.append(x)\n",
    HEAD + FUNCTION + "    global log\n    return log[0]\n",
    HEAD + "from mylib import print\n" + FUNCTION + "    print(x)\n",
    HEAD + "from mylib import random as rnd\n" + FUNCTION + "    return rnd.random()\n",
    # state made on the first trace only, on purpose: a variable, or under an `if` testing the name
    HEAD + "cache = {}\n" + FUNCTION + "    if not cache:\n        cache['spec'] = x.shape\n    return x\n",
    HEAD + "cache = {}\n" + FUNCTION + "    if 'k' not in cache:\n        cache['k'] = 1\n    return x\n",
    HEAD + "seen = []\n" + FUNCTION + "    if len(seen) == 0 and x is not None:\n        seen.append(x.dtype)\n"
           "    return x\n",
    HEAD + "v = None\n" + FUNCTION + "    global v\n    if v is None:\n        v = tf.Variable(1.0)\n    return v * x\n",
    HEAD + "model = None\n" + FUNCTION + "    global model\n    if model is None:\n        model = make()\n    return x\n",
    HEAD + "slots = {}\n" + FUNCTION + "    slots['m'] = tf.Variable(0.0)\n    log.append(tf.Variable(x))\n",
    HEAD + "made = [None]\n" + FUNCTION + "    if made[0] is None:\n        made[0] = build()\n    return x\n",
    HEAD + "slots = {}\n" + FUNCTION + "    v = tf.Variable(0.0)\n    slots['m'] = v\n    return x\n",
])
def test_near_misses(source):
    assert lint(source) == []


def test_the_fixture_runs_side_effects_once_per_trace(tf, capsys):
    wrong = load_module(FOLDER / "bad.py").main()
    assert capsys.readouterr().out.count("tracing step") == 1
    right = load_module(FOLDER / "good.py").main()
    assert wrong == {"calls": 1, "seen": 1, "symbolic": True, "distinct_noise": 1, "distinct_jitter": 3}
    assert right == {"calls": 3, "seen": 3, "symbolic": False, "distinct_noise": 3, "distinct_jitter": 3}


def test_python_random_is_a_constant_of_the_graph(tf):
    import random

    f = tf.function(lambda: tf.constant(random.random()))
    assert len({float(f()) for _ in range(3)}) == 1
    g = tf.function(lambda: tf.random.uniform([]))
    assert len({float(g()) for _ in range(3)}) == 3
