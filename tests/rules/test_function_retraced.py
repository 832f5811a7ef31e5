import pytest

from tfe_testing import FIXTURES, findings, fixed, load_module
from tflint_effective.engine.lint import lint_source

FOLDER = FIXTURES / "function_retraced"
TFE703 = ["TFE703"]
TF = "import tensorflow as tf\n"
SCALE = TF + "@tf.function\ndef scale(x, f):\n    return x * f\n"  # 4 lines


def lint(source):
    return findings(source, select=TFE703)


@pytest.mark.parametrize("loop, expected", [
    # the loop variable of range, and arithmetic on it
    ("for i in range(n):\n    scale(x, i)\n", (6, 14)),
    ("for i in range(n):\n    scale(x, f=i * 0.1)\n", (6, 16)),
    ("for i in range(1, 100, 2):\n    scale(x, -(i + 1) ** 2)\n", (6, 14)),
    ("for i in range(n):\n    scale(x, float(i) / 2)\n", (6, 14)),
    ("for i in range(n):\n    lr = 0.1 * 0.9 ** i\n    y = scale(x, lr)\n", (7, 18)),
    ("BASE = 0.1\nfor i in range(n):\n    scale(x, BASE * i)\n", (7, 14)),
    # the index of enumerate, also under a periodic branch
    ("for step, batch in enumerate(ds):\n    scale(batch, step)\n", (6, 18)),
    ("for step, batch in enumerate(ds):\n    if step % 10 == 0:\n        scale(batch, step // 10)\n", (7, 22)),
    # inside a function
    ("def train(n):\n    for i in range(n):\n        scale(x, i)\n", (7, 18)),
])
def test_a_python_number_per_iteration(loop, expected):
    source = SCALE + loop
    assert lint(source) == [(*expected, "TFE703")]
    [diagnostic] = lint_source(source, select=TFE703)
    assert diagnostic.severity == "warning" and "`reduce_retracing=True` does not help" in diagnostic.message
    assert fixed(source, TFE703) == source  # display-only


@pytest.mark.parametrize("definition", [
    TF + "@tf.function(reduce_retracing=True, jit_compile=False)\ndef scale(x, f):\n    return x * f\n",
    TF + "def g(x, f):\n    return x * f\nscale = tf.function(g)\n",
    TF + "from tensorflow import function\ndef g(x, f):\n    return x * f\nscale = function(g, reduce_retracing=True)\n",
])
def test_every_spelling_of_a_tf_function(definition):
    source = definition + "for i in range(n):\n    scale(x, i)\n"
    assert [code for *_, code in lint(source)] == ["TFE703"]


def test_the_call_may_come_before_the_def():
    source = TF + "def main():\n    for i in range(9):\n        scale(x, i)\n"
    source += "@tf.function\ndef scale(x, f):\n    return x * f\n"
    assert lint(source) == [(4, 18, "TFE703")]


@pytest.mark.parametrize("loop", [
    # tensors as the counter or the argument
    "for i in tf.range(n):\n    scale(x, i)\n",
    "for i in range(n):\n    scale(x, tf.constant(i))\n",
    "for batch in ds:\n    scale(batch, batch * 2)\n",
    "for i in range(len(ds)):\n    scale(next(it), 1.0)\n",
    "for i in range(n):\n    i = tf.constant(i)\n    scale(x, i)\n",
    "for i in range(n):\n    lr = tf.constant(0.1) * i\n    scale(x, lr)\n",
    "for i in range(n):\n    scale(x, t * i)\n",
    # few values: a small literal list, a short range, parity, booleans
    "for lr in [0.1, 0.01, 0.001]:\n    scale(x, lr)\n",
    "for lr in (0.1, 0.01):\n    scale(x, lr)\n",
    "for i in range(3):\n    scale(x, i)\n",
    "for i in range(n):\n    scale(x, i % 2)\n    scale(x, i == 0)\n    scale(x, i > 3)\n",
    # the counter passed outside the loop, or in a nested function, or to something else
    "for i in range(n):\n    pass\nscale(x, i)\n",
    "for i in range(n):\n    fns.append(lambda: scale(x, i))\n",
    "for i in range(n):\n    plain(x, i)\n    obj.scale(x, i)\n",
    "for epoch in range(n):\n    for batch in ds:\n        scale(batch, epoch)\n",
    # inside a tf.function the loop is traced once (or converted by autograph)
    "@tf.function\ndef run(n):\n    for i in range(n):\n        scale(x, i)\n",
])
def test_near_misses_of_python_numbers(loop):
    assert lint(SCALE + "def plain(x, i):\n    return x\n" + loop) == []


BLOCK = TF + "LAYERS = [abs, abs]\n@tf.function\ndef block(x, i):\n    {body}\n"  # 4 lines, and the body


@pytest.mark.parametrize("body", [
    # deliberate specialisation: the number is read as a Python value, one trace per value is wanted
    "return LAYERS[i](x)",
    "return x[:, i]",
    "return x[:i + 1] * 2",
    "return x * x[2 * i]",
    "for _ in range(i):\n        x = x * 2\n    return x",
    "return x * len(range(i))",
    "if i == 0:\n        return x\n    return x * 2",
    "while i > 0:\n        x, i = x * 2, i - 1\n    return x",
    "return x * (i > 3)",
    "return x if i else -x",
    "return x + tf.zeros([i])",
    "return x + tf.zeros(i)",
    "return x * tf.range(i)",
    "return tf.one_hot(x, depth=i)",
    "return tf.reduce_sum(x, axis=i)",
    "return tf.reduce_sum(x, i)",
    "return tf.add(*[x], i)",
    "return tf.identity(x, name=str(i))",
    "return tf.identity(x, name=f'block_{i}')",
    "return x * int(i)",
    "return x * i.real",
    "return x * float('%d' % i)",
    "return tf.constant([1.0] * i)",
    "return LAYERS[i % 2](x)",
    "return helper(x, i)",
    "tf.print(i)\n    return x",
    "j = 2 * i + 1\n    return x[j]",
    "j = i\n    j += 1\n    return tf.zeros([j])",
    "return tf.map_fn(lambda r: r * i, x)",
    "def inner(y):\n        return y * 2 if i else y\n    return inner(x)",
    "y = [x, x]\n    return y[i]",  # a list's index: a tensor raises TypeError
    "y = tf.ones([3, 4])\n    return y[:i]",  # a slice bound: a tensor loses the static shape
    "tf.summary.image('x', x, step=0, max_outputs=i)\n    return x",
    "tf.summary.scalar(f'loss_{i}', x, step=0)\n    return x",
])
def test_near_misses_a_number_read_as_a_python_value(body):
    source = BLOCK.format(body=body) + "def helper(x, i):\n    return x\nfor i in range(n):\n    x = block(x, i)\n"
    assert lint(source) == []


@pytest.mark.parametrize("body, line", [
    # the number is read only where a tensor serves as well: the retrace is pure cost
    ("return x * i", 0),
    ("return x * tf.cast(i, tf.float32)", 0),
    ("return tf.add(x, i)", 0),
    ("return tf.math.maximum(x, y=i)", 0),
    ("return x - 0.1 * 0.9 ** i", 0),
    ("lr = 0.1 * 0.9 ** i\n    return x * lr", 1),
    ("y = x\n    y += -i\n    return y", 2),
    ("return x, i", 0),
    ("return x", 0),  # not read at all: still one trace per value
    ("tf.summary.scalar('loss', tf.reduce_sum(x), step=i)\n    return x", 1),  # a summary's step or data
    ("tf.summary.histogram('x', x, i)\n    return x", 1),
    ("tf.summary.scalar('i', data=i, step=0)\n    return x", 1),
    ("y = tf.ones([3, 4])\n    return x * y[:, i] + y[i]", 1),  # an index of a tensor (not a slice bound)
])
def test_a_number_read_only_as_a_tensor_would_be(body, line):
    source = BLOCK.format(body=body) + "for i in range(n):\n    x = block(x, i)\n"
    assert lint(source) == [(7 + line, 18, "TFE703")]
    assert lint(source.replace("x = block(x, i)", "x = block(i=i, x=x)")) == [(7 + line, 17, "TFE703")]


def test_only_the_parameter_that_gets_the_number_counts():
    source = TF + "@tf.function\ndef block(x, i, k=0):\n    return x[k] * i\n"
    assert lint(source + "for i in range(n):\n    block(x, i)\n") == [(6, 14, "TFE703")]
    assert lint(source + "for i in range(n):\n    block(x, 2, k=i)\n") == []
    assert lint(source + "for i in range(n):\n    block(x, 2, i)\n") == []
    variadic = TF + "@tf.function\ndef block(x, *args, **kwargs):\n    return x\n"
    assert lint(variadic + "for i in range(n):\n    block(x, i)\n    block(x, k=i)\n") == []


@pytest.mark.parametrize("definition", [
    # the body is out of sight: imported, or a lambda
    TF + "from layers import g\nscale = tf.function(g)\n",
    TF + "import layers\nscale = tf.function(layers.g)\n",
    TF + "scale = tf.function(lambda x, f: x * f)\n",
    TF + "def g(x, f):\n    return x * f\ng = other\nscale = tf.function(g)\n",
])
def test_silent_when_the_body_is_not_visible(definition):
    assert lint(definition + "for i in range(n):\n    scale(x, i)\n") == []


@pytest.mark.parametrize("definition", [
    TF + "@tf.function(input_signature=[tf.TensorSpec([]), tf.TensorSpec([])])\ndef scale(x, f):\n    return x * f\n",
    TF + "def g(x, f):\n    return x * f\nscale = tf.function(g, input_signature=[tf.TensorSpec([])] * 2)\n",
    TF + "@tf.function\ndef scale(x, f):\n    return x * f\nscale = other\n",
    TF + "@other\n@tf.function\ndef scale(x, f):\n    return x * f\n",
    TF + "def scale(x, f):\n    return x * f\n",
])
def test_a_signature_or_no_certain_tf_function(definition):
    source = definition + "for i in range(n):\n    scale(x, i)\n"
    assert lint(source) == []


@pytest.mark.parametrize("loop, expected", [
    ("for i in range(n):\n    g = tf.function(plain)\n    g(x)\n", (5, 9)),
    ("for b in tf.data.Dataset.range(9):\n    y = tf.function(plain)(b)\n", (5, 9)),
    ("while True:\n    @tf.function\n    def h(y):\n        return y\n    h(x)\n", (5, 6)),
    ("for step, b in enumerate(ds):\n    @tf.function(jit_compile=True)\n    def h(y):\n        return y\n"
     "    h(b)\n", (5, 6)),
    ("dataset = tf.data.Dataset.range(9)\nfor b in dataset:\n    g = tf.function(plain)\n    g(b)\n", (6, 9)),
])
def test_created_in_a_loop(loop, expected):
    source = TF + "def plain(x):\n    return x\n" + loop
    assert lint(source) == [(*expected, "TFE703")]
    assert "created inside a loop" in lint_source(source, select=TFE703)[0].message


@pytest.mark.parametrize("loop", [
    # not called in the loop that creates it: stored, or called in an inner loop (once per fold)
    "for i in range(n):\n    fns.append(tf.function(plain))\n",
    "for i in range(n):\n    g = tf.function(plain)\n",
    "for fold in range(n):\n    g = tf.function(plain)\n    for b in ds:\n        g(b)\n",
    # a sweep over a small literal list, a short range
    "for lr in [0.1, 0.01]:\n    g = tf.function(plain)\n    g(x)\n",
    "for i in range(2):\n    g = tf.function(plain)\n    g(x)\n",
    "for model in models:\n    g = tf.function(model)\n    g(x)\n",
    "for b in ds:\n    y = tf.function(plain)(b)\n",
    # created inside a tf.function: traced once
    "@tf.function\ndef run(n):\n    for i in range(n):\n        g = tf.function(plain)\n        g(x)\n",
])
def test_near_misses_of_functions_created_in_loops(loop):
    assert lint(TF + "def plain(x):\n    return x\n" + loop) == []


def test_created_in_a_function_called_per_step():
    helper = TF + "def helper(x):\n    @tf.function\n    def inner(y):\n        return y + 1\n    return inner(x)\n"
    loop = "for i, b in enumerate(ds):\n    helper(b)\n"
    assert lint(helper + loop) == [(3, 6, "TFE703")]
    [diagnostic] = lint_source(helper + loop, select=TFE703)
    assert "created inside `helper`, which is called in a loop" in diagnostic.message
    call = TF + "def plain(x):\n    return x\ndef helper(x):\n    return tf.function(plain)(x)\n"
    assert lint(call + "def main():\n    while True:\n        helper(1)\n") == [(5, 12, "TFE703")]
    assigned = TF + "def plain(x):\n    return x\ndef helper(x):\n    fn = tf.function(plain)\n    return fn(x)\n"
    assert lint(assigned + "for i in range(n):\n    helper(i)\n") == [(5, 10, "TFE703")]


@pytest.mark.parametrize("source", [
    # a factory: returns the function, does not call it
    "def make():\n    @tf.function\n    def inner(y):\n        return y\n    return inner\n"
    "for b in range(n):\n    step = make()\n",
    # called once, or in a sweep over a literal list
    "def helper(x):\n    @tf.function\n    def inner(y):\n        return y\n    return inner(x)\nhelper(1)\n",
    "def helper(x):\n    @tf.function\n    def inner(y):\n        return y\n    return inner(x)\n"
    "for lr in [1, 2]:\n    helper(lr)\n",
    # it calls the function in a loop of its own (one trace, many calls), or only under a condition
    "def fold(ds):\n    @tf.function\n    def inner(y):\n        return y\n    for b in ds:\n        inner(b)\n"
    "for k in range(10):\n    fold(ds)\n",
    "def helper(x):\n    if x:\n        @tf.function\n        def inner(y):\n            return y\n        inner(x)\n"
    "for b in range(n):\n    helper(b)\n",
    # a decorated (e.g. cached) helper, a method, a tf.function helper
    "import functools\n@functools.lru_cache()\ndef helper(x):\n    return tf.function(abs)(x)\nfor b in range(n):\n    helper(b)\n",
    "class C:\n    def helper(self, x):\n        return tf.function(abs)(x)\nfor b in range(n):\n    C().helper(b)\n",
    "@tf.function\ndef helper(x):\n    return tf.function(abs)(x)\nfor b in range(n):\n    helper(t)\n",
    # called in a loop that a tf.function traces once
    "def helper(x):\n    return tf.function(abs)(x)\n@tf.function\ndef run():\n    for b in range(n):\n        helper(t)\n",
])
def test_near_misses_of_functions_created_per_call(source):
    assert lint(TF + source) == []


def test_retraced_per_python_number_even_with_reduce_retracing(tf):
    for options in ({}, {"reduce_retracing": True}):
        f = tf.function(lambda x, i: x * i, **options)
        for i in range(6):
            f(tf.constant(1.0), i)
        assert f.experimental_get_tracing_count() == 6
        for i in range(6):
            f(tf.constant(1.0), tf.constant(float(i)))
        assert f.experimental_get_tracing_count() == 7
    signed = tf.function(lambda i: i * 2, input_signature=[tf.TensorSpec([], tf.int32)])
    for i in range(6):
        signed(i)
    assert signed.experimental_get_tracing_count() == 1


def test_the_fixture_traces_per_step(tf):
    wrong = load_module(FOLDER / "bad.py").main()
    right = load_module(FOLDER / "good.py").main()
    assert wrong == {"scale": 6 + 2, "shift": 6, "smooth": 6, "offset": 1 + 2, "squash": 3, "pick": 6}
    assert right == {"scale": 1 + 2, "shift": 1, "smooth": 1, "offset": 1 + 2, "squash": 3, "pick": 1}
    # the near miss: a tensor in place of the Python number would not even trace
    with pytest.raises(TypeError, match="list indices must be integers"):
        load_module(FOLDER / "good.py").squash(tf.ones([3]), tf.constant(1))
