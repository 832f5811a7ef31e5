import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import assert_same_values, dedent, findings
from tflint_effective.engine.lint import lint_source

TAPE = dedent("""\
    import tensorflow as tf
    def step(model, parts, devices):
        with tf.GradientTape() as tape:
            losses = []
            for i, device in enumerate(devices):
                with tf.device(device):
                    losses.append(model(parts[i]))
            loss = tf.add_n(losses)
        return tape.gradient(loss, model.trainable_variables)
""")


def severities(source):
    return [(d.line, d.col + 1, d.severity) for d in lint_source(dedent(source), select=["TFE502"])]


def test_gradient_after_the_towers_in_eager_mode_and_tf_function():
    assert findings(TAPE) == [(9, 12, "TFE502")]
    assert severities(TAPE) == [(9, 12, "warning")]
    compiled = TAPE.replace("def step", "@tf.function\ndef step")
    assert severities(compiled) == [(10, 12, "warning")]
    no_autograph = TAPE.replace("def step", "@tf.function(autograph=False)\ndef step")
    assert severities(no_autograph) == [(10, 12, "warning")]


def test_off_in_tf1_graph_mode():
    in_graph = TAPE.replace("def step", "with tf.Graph().as_default():\n  def step").replace("\n    ", "\n      ")
    assert severities(in_graph) == []


def test_a_tape_function_of_a_compat_v1_module_runs_eagerly_and_is_reported():
    # GradientTape is legal in TF1 eager code and inside tf.function, so the function is not graph code
    assert severities(TAPE.replace("import tensorflow as tf", "import tensorflow.compat.v1 as tf")) == [
        (9, 12, "warning")]


@pytest.mark.parametrize("source, expected", [
    # the gradient inside the tape's block is outside the towers too
    (TAPE.replace("loss = tf.add_n(losses)\n", "loss = tf.add_n(losses)\n        early = tape.gradient(loss, vs)\n"),
     [(9, 17, "TFE502"), (10, 12, "TFE502")]),
    # literal devices, and a helper defined earlier
    ("import tensorflow as tf\nwith tf.GradientTape() as tape:\n    with tf.device('/gpu:0'):\n"
     "        a = f(x)\n    with tf.device('/gpu:1'):\n        b = f(x)\ng = tape.gradient(a + b, w)\n",
     [(7, 5, "TFE502")]),
    ("import tensorflow as tf\ndef towers(xs, devices):\n    for d, x in zip(devices, xs):\n"
     "        with tf.device(d):\n            f(x)\nwith tf.GradientTape(persistent=True) as tape:\n"
     "    loss = towers(xs, devices)\ng = tape.gradient(loss, w)\n",
     [(8, 5, "TFE502")]),
])
def test_other_tower_shapes(source, expected):
    assert findings(source, select=["TFE502"]) == expected


@pytest.mark.parametrize("source", [
    # one tape per tower, its gradient inside the tower's scope
    dedent("""\
        import tensorflow as tf
        for i, device in enumerate(devices):
            with tf.device(device):
                with tf.GradientTape() as tape:
                    loss = model(parts[i])
                grads.append(tape.gradient(loss, w))
    """),
    # one device scope only, or towers built after the gradient
    "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    with tf.device('/gpu:1'):\n"
    "        a = f(x)\ng = tape.gradient(a, w)\n",
    "import tensorflow as tf\nwith tf.GradientTape() as tape:\n    a = f(x)\ng = tape.gradient(a, w)\n"
    "for d in devices:\n    with tf.device(d):\n        f(x)\n",
    # towers outside the tape's block, a tape bound twice, something else called tape
    "import tensorflow as tf\nfor d in devices:\n    with tf.device(d):\n        f(x)\n"
    "with tf.GradientTape() as tape:\n    a = f(x)\ng = tape.gradient(a, w)\n",
    TAPE + "    with tf.GradientTape() as tape:\n        pass\n",
    TAPE.replace("tf.GradientTape()", "Recorder()"),
    # the gradient taken in another function
    TAPE.replace("return tape.gradient", "return lambda: tape.gradient"),
])
def test_near_misses(source):
    assert findings(source, select=["TFE502"]) == []


@pytest.fixture
def fixtures():
    return (load_module(FIXTURES / "tape_gradient_outside_towers" / "bad.py"),
            load_module(FIXTURES / "tape_gradient_outside_towers" / "good.py"))


def test_eager_backward_of_tower_1_runs_on_the_first_device(tf, two_devices, fixtures, monkeypatch):
    seen = []

    @tf.custom_gradient
    def probe(y):
        def backward(dy):
            seen.append(tf.DeviceSpec.from_string(tf.identity(dy).device))  # runs where backward runs
            return dy
        return tf.identity(y), backward

    w = tf.Variable(tf.ones([4, 1]))
    x = tf.reshape(tf.range(32, dtype=tf.float32), [8, 4]) / 10.0
    expected = [tf.DeviceSpec.from_string(name) for name in two_devices]
    gradients = []
    for module, devices in zip(fixtures, ([expected[0]] * 2, expected)):
        real = module.tower_loss
        monkeypatch.setattr(module, "tower_loss", lambda w, x: probe(real(w, x)))
        seen.clear()
        gradients.append(module.gradient(w, x, two_devices))
        assert [(d.device_type, d.device_index) for d in seen] == [
            (d.device_type, d.device_index) for d in devices]
    assert_same_values(*gradients)


def test_tf_function_places_tower_1_backward_ops_on_no_device_unless_inside_the_tower(tf, two_devices, fixtures):
    w = tf.Variable(tf.ones([4, 1]))
    x = tf.reshape(tf.range(32, dtype=tf.float32), [8, 4]) / 10.0

    def tower_1_backward_devices(module):
        graph = module.compiled_gradient.get_concrete_function(w, x, two_devices).graph
        return {op.device for op in graph.get_operations() if op.name.startswith("gradient_tape/tower_1/")}

    second = tf.DeviceSpec.from_string(two_devices[1])
    assert tower_1_backward_devices(fixtures[0]) == {""}  # left to the default device
    good = tower_1_backward_devices(fixtures[1])
    assert {(s.device_type, s.device_index) for s in map(tf.DeviceSpec.from_string, good)} == {
        (second.device_type, second.device_index)}
    bad_values, good_values = fixtures[0].main(), fixtures[1].main()
    assert_same_values(bad_values, good_values)
