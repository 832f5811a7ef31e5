import pytest

from tfe_testing import FIXTURES, load_module
from tfe_testing import assert_same_values, dedent, findings, fixed
from tflint_effective.engine.lint import lint_source

V1 = "import tensorflow.compat.v1 as tf\n"
TOWERS = V1 + dedent("""\
    opt = tf.train.AdamOptimizer(0.1)
    losses = []
    for i in range(2):
        with tf.device("/gpu:%d" % i):
            losses.append(model(parts[i]))
    loss = tf.add_n(losses)
""")  # 7 lines: the statement under test is line 8


def diagnostics(source):
    return [(d.line, d.col + 1, d.severity, d.fix_safety)
            for d in lint_source(dedent(source), select=["TFE501"])]


@pytest.mark.parametrize("statement, fixed_statement", [
    ("step = opt.minimize(loss)", "step = opt.minimize(loss, colocate_gradients_with_ops=True)"),
    ("gv = opt.compute_gradients(loss, var_list)",
     "gv = opt.compute_gradients(loss, var_list, colocate_gradients_with_ops=True)"),
    ("g = tf.gradients(loss, xs)", "g = tf.gradients(loss, xs, colocate_gradients_with_ops=True)"),
    ("g = tf.train.GradientDescentOptimizer(0.1).minimize(loss)",
     "g = tf.train.GradientDescentOptimizer(0.1).minimize(loss, colocate_gradients_with_ops=True)"),
])
def test_gradients_after_loop_towers_get_colocated(statement, fixed_statement):
    source = TOWERS + statement + "\n"
    column = statement.index(" = ") + 4  # the call
    assert findings(source, select=["TFE501"]) == [(8, column, "TFE501")]
    assert diagnostics(source) == [(8, column, "warning", "safe")]
    assert fixed(source) == TOWERS + fixed_statement + "\n"


CLASS_TOWERS = V1 + dedent("""\
    class Trainer:
        def __init__(self, parts):
            self.opt = OPTIMIZER
            grads = []
            for i in range(2):
                with tf.device("/gpu:%d" % i):
                    loss = model(parts[i])
                grads.append(self.opt.compute_gradients(loss))
""")


def test_an_optimizer_its_class_assigns_once_to_an_attribute():
    source = CLASS_TOWERS.replace("OPTIMIZER", "tf.train.AdamOptimizer(0.1)")
    assert findings(source, select=["TFE501"]) == [(9, 26, "TFE501")]
    assert fixed(source).endswith("grads.append(self.opt.compute_gradients(loss, colocate_gradients_with_ops=True))\n")


@pytest.mark.parametrize("optimizer, more", [
    ("make_optimizer()", ""),  # not known to be an optimizer
    ("tf.train.AdamOptimizer(0.1)", "    def reset(self):\n        self.opt = other\n"),  # assigned twice
])
def test_an_attribute_not_known_to_hold_an_optimizer(optimizer, more):
    assert findings(CLASS_TOWERS.replace("OPTIMIZER", optimizer) + more, select=["TFE501"]) == []


def test_fix_keeps_the_layout_of_multiline_calls():
    source = TOWERS + "gv = opt.compute_gradients(\n    loss,\n    var_list,\n)\n"
    assert fixed(source) == TOWERS + (
        "gv = opt.compute_gradients(\n    loss,\n    var_list,\n    colocate_gradients_with_ops=True,\n)\n")
    source = TOWERS + "gv = opt.compute_gradients(\n    loss,\n)\n"
    assert fixed(source) == TOWERS + (
        "gv = opt.compute_gradients(\n    loss,\n    colocate_gradients_with_ops=True,\n)\n")


def test_explicit_false_is_reported_without_fix():
    source = TOWERS + "step = opt.minimize(loss, colocate_gradients_with_ops=False)\n"
    assert diagnostics(source) == [(8, 8, "warning", None)]


def test_plain_tf_gradients_in_code_written_for_tf1_is_tf1s():
    source = ("import tensorflow as tf\nx = tf.placeholder(tf.float32)\nlosses = []\n"
              "for i in range(2):\n    with tf.device('/gpu:%d' % i):\n        losses.append(model(x))\n"
              "g = tf.gradients(tf.add_n(losses), xs)\nh = tf.gradients(tf.add_n(losses), xs, colocate_gradients_with_ops=True)\n")
    assert diagnostics(source) == [(7, 5, "warning", "safe")]


def test_tf2_gradients_rejects_the_keyword_in_every_mode():
    evidence = "import tensorflow as tf\ntape = tf.GradientTape()\n"  # TF2 code
    source = (evidence + "g = tf.gradients(loss, xs, colocate_gradients_with_ops=True)\n"
              "h = tf.gradients(loss, xs,\n                 colocate_gradients_with_ops=False)\n")
    assert diagnostics(source) == [(3, 28, "error", "safe"), (5, 18, "error", None)]
    assert fixed(source) == (evidence + "g = tf.gradients(loss, xs)\n"
                             "h = tf.gradients(loss, xs,\n                 colocate_gradients_with_ops=False)\n")
    assert fixed(evidence + "g = tf.gradients(y, colocate_gradients_with_ops=True, xs=x)\n") == (
        evidence + "g = tf.gradients(y, xs=x)\n")
    in_function = ("import tensorflow as tf\n@tf.function\ndef f():\n"
                   "    return tf.gradients(y, x, colocate_gradients_with_ops=True)\n")
    assert diagnostics(in_function) == [(4, 31, "error", "safe")]


def test_the_keyword_without_tf2_evidence_is_tf1_code():
    """A helper module of a TF1 project spells no TF 1.x-only name; its keyword says which TF it is for."""
    source = ("import tensorflow as tf\n"
              "with tf.device(device):\n"
              "    grads = tf.gradients(loss, [v._ref() for v in variables],\n"
              "                         colocate_gradients_with_ops=False)\n")
    assert diagnostics(source) == []


@pytest.mark.parametrize("towers", [
    # literal devices of one type with different indices
    'with tf.device("/gpu:0"):\n    a = model(x)\nwith tf.device("/device:GPU:1"):\n    b = model(x)\n',
    'with tf.device(tf.DeviceSpec(device_type="GPU", device_index=0)):\n    a = model(x)\n'
    'with tf.device(tf.DeviceSpec(device_type="GPU", device_index=1)):\n    b = model(x)\n',
    # a helper defined earlier that builds towers, and the runtime_checks one
    'def parallel(fn, n):\n    for i in range(n):\n        with tf.device(f"/gpu:{i}"):\n'
    '            fn()\nloss = parallel(model, 2)\n',
    "from tflint_effective.runtime_checks import make_parallel\nloss = make_parallel(model, devices, x=x)\n",
    "import tflint_effective.runtime_checks as rc\nloss = rc.make_parallel(model, devices, x=x)\n",
    # towers in a loop over device names, inside an outer CPU scope
    'with tf.device("/cpu:0"):\n    for device in devices:\n        with tf.device(device):\n'
    '            a = model(x)\n    step = opt.minimize(a)\n',
    # every statement of a device block is under it (the devices are remembered per block)
    'with tf.device("/gpu:0"):\n    a0 = model(x)\n    a = a0 + 1\nwith tf.device("/gpu:1"):\n'
    '    b0 = model(x)\n    b = b0 + 1\nstep = opt.minimize(a + b)\n',
])
def test_ways_of_building_towers(towers):
    source = V1 + "opt = tf.train.AdamOptimizer(0.1)\n" + towers
    if "minimize" not in towers:
        source += "step = opt.minimize(loss)\n" if "loss =" in towers else "step = opt.minimize(a + b)\n"
    found = findings(source, select=["TFE501"])
    assert len(found) == 1 and found[0][0] == source.count("\n")


@pytest.mark.parametrize("source", [
    # each tower's gradients inside its own device scope (cifar10, inception)
    TOWERS.replace("losses.append(model(parts[i]))", "grads.append(opt.compute_gradients(model(parts[i])))")
    + "step = opt.apply_gradients(average(grads))\n",
    TOWERS.replace("losses.append(model(parts[i]))", "grads.append(tf.gradients(model(parts[i]), w))"),
    TOWERS + "step = opt.minimize(loss, colocate_gradients_with_ops=True)\n",
    TOWERS + "step = opt.minimize(loss, global_step, None, 1, None, True)\n",
    TOWERS + "step = opt.minimize(loss, **options)\n",
    TOWERS + "step = opt.minimize(loss, colocate_gradients_with_ops=flag)\n",
    # one device, or two of different types, is not towers
    V1 + 'with tf.device("/gpu:0"):\n    a = model(x)\nwith tf.device("/cpu:0"):\n    b = model(x)\n'
    "g = tf.gradients(a + b, xs)\n",
    V1 + 'for i in range(2):\n    with tf.device("/gpu:0"):\n        a = model(x)\ng = tf.gradients(a, xs)\n',
    # statements after the device blocks, or in a lambda inside one, are under no device
    V1 + 'opt = tf.train.AdamOptimizer(0.1)\nwith tf.device("/gpu:0"):\n    a = model(x)\n'
    'with tf.device("/gpu:1"):\n    b = model(x)\n    f = lambda: c.append(model(y))\nc = [model(z)]\n'
    'd = model(w)\nstep = opt.minimize(tf.add_n(c) + d)\n',
    # gradients before the towers, in another function, or not from a TF1 optimizer
    V1 + "g = tf.gradients(loss, xs)\n" + TOWERS.replace(V1, ""),
    TOWERS + "def step():\n    return tf.gradients(loss, xs)\n",
    TOWERS + "k = tf.keras.optimizers.Adam().minimize(loss, xs)\n",
    TOWERS + "other = Trainer().minimize(loss)\n",
    # a loss built under one device scope (the other scope computes something else)
    V1 + 'opt = tf.train.AdamOptimizer(0.1)\nwith tf.device("/gpu:0"):\n    loss = model(x)\n'
    'with tf.device("/gpu:1"):\n    metric = model(y)\nstep = opt.minimize(loss)\n',
    # TF2 code (no TF 1.x-only name at the root): tf.gradients always colocates
    TOWERS.replace(V1, "import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n").replace(
        "tf.train.AdamOptimizer", "tf.compat.v1.train.AdamOptimizer") + "g = tf.gradients(loss, xs)\n",
])
def test_near_misses(source):
    assert findings(source, select=["TFE501"]) == []


SINGLE_DEVICE_BRANCH = V1 + dedent("""\
    opt = tf.train.AdamOptimizer(0.1)
    if n > 1:
        for i in range(n):
            with tf.device("/gpu:%d" % i):
                image = parts[i]
                loss = model(image)
                grads = opt.compute_gradients(loss)
    else:
        image = x
        batch = tf.train.batch([image], 32)
        with tf.device("/gpu:0"):
            loss = model(batch)
            grads = opt.compute_gradients(loss)
""")


def test_the_assignment_the_code_before_the_gradients_shows_is_the_loss():
    """In the single-device branch the loss (and the image it reads) are that branch's own:
    the towers' assignments in the other branch never reach it.  After the ``if``, either may."""
    assert findings(SINGLE_DEVICE_BRANCH, select=["TFE501"]) == []
    after = SINGLE_DEVICE_BRANCH + "again = opt.compute_gradients(loss)\n"
    assert findings(after, select=["TFE501"]) == [(15, 9, "TFE501")]
    # no assignment before the read in its branch: followed to every value the loss is given
    unassigned = SINGLE_DEVICE_BRANCH.replace("loss = model(batch)", "batch = model(batch)")
    assert findings(unassigned, select=["TFE501"]) == [(14, 17, "TFE501")]


def test_off_outside_tf1_graph_mode():
    eager = TOWERS.replace(V1, "import tensorflow as tf\n").replace("tf.train.AdamOptimizer", "tf.compat.v1.train.AdamOptimizer")
    assert diagnostics(eager + "g = tf.compat.v1.gradients(loss, xs)\n") == []
    graph_block = "with tf.Graph().as_default():\n" + "".join(
        "    " + line + "\n" for line in (eager.replace("import tensorflow as tf\n", "") + "g = tf.compat.v1.gradients(loss, xs)").splitlines())
    assert diagnostics("import tensorflow as tf\n" + graph_block) == [(9, 9, "warning", "safe")]


def test_gradient_ops_of_tower_1_run_on_the_first_device_unless_colocated(tf, two_devices):
    bad = load_module(FIXTURES / "uncolocated_tower_gradients" / "bad.py")
    good = load_module(FIXTURES / "uncolocated_tower_gradients" / "good.py")
    first, second = (bad.short_name(name) for name in two_devices)
    bad_run, good_run = bad.train(two_devices), good.train(two_devices)
    assert bad_run.pop("tower_1_gradient_devices") == [first]
    assert good_run.pop("tower_1_gradient_devices") == [second]
    assert_same_values(bad_run, good_run)  # same gradients and same step: only placement differs
    with pytest.raises(TypeError, match="colocate_gradients_with_ops"):
        bad.v2_gradients(two_devices)
    good_v2 = good.v2_gradients(two_devices)
    assert_same_values(good_v2["v2_keyword"], good_run["v1_gradients"], rtol=1e-5)
    assert_same_values(good.per_tower_gradients(two_devices), good_run["v1_gradients"], rtol=1e-5)
