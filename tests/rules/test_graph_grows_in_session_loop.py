import numpy as np
import pytest

from tfe_testing import FIXTURES, findings, load_module
from tflint_effective.engine.lint import lint_source

FOLDER = FIXTURES / "graph_grows_in_session_loop"
V1 = "import tensorflow.compat.v1 as tf\n"
TF = "import tensorflow as tf\n"
SESSION = V1 + "x = tf.placeholder(tf.float32, [None])\nwith tf.Session() as sess:\n"


def lint(source):
    return findings(source, select=["TFE601"])


@pytest.mark.parametrize("source, expected", [
    # ops, initializers, savers, assigns, optimizer steps, iterators built per step
    (SESSION + "    for b in batches:\n        sess.run(tf.reduce_mean(x, axis=0), {x: b})\n", [(5, 18, "TFE601")]),
    (SESSION + "    for b in batches:\n        if b is None:\n            continue\n"
               "        sess.run(tf.identity(x))\n        break\n", [(7, 18, "TFE601")]),  # a continue skips the break
    (SESSION + "    while True:\n        sess.run(tf.identity(x))\n        if done:\n            break\n",
     [(5, 18, "TFE601")]),  # a break that depends on a test
    (SESSION + "    while True:\n        sess.run(tf.identity(x))\n        if done:\n            exit(0)\n",
     [(5, 18, "TFE601")]),  # an exit that depends on a test
    (V1 + "def exit(code):\n    print(code)\nsess = tf.Session()\nwhile True:\n    sess.run(tf.identity(x))\n"
          "    exit(0)\n", [(6, 14, "TFE601")]),  # the module's own `exit`, which returns
    (SESSION + "    while True:\n        sess.run(tf.global_variables_initializer())\n", [(5, 18, "TFE601")]),
    (SESSION + "    for epoch in range(steps):\n        saver = tf.train.Saver()\n        saver.save(sess, 'm')\n"
               "        sess.run(x)\n", [(5, 17, "TFE601")]),
    (V1 + "lr = tf.Variable(0.1)\nsess = tf.Session()\nfor step in range(steps):\n"
          "    sess.run(lr.assign(0.1 * 0.9 ** step))\n    sess.run(tf.assign(lr, step))\n",
     [(5, 14, "TFE601"), (6, 14, "TFE601")]),
    (V1 + "sess = tf.InteractiveSession()\nfor i in range(steps):\n"
          "    sess.run(tf.train.AdamOptimizer(0.1).minimize(loss))\n", [(4, 14, "TFE601")]),
    (V1 + "it = dataset.make_one_shot_iterator()\nwith tf.Session() as sess:\n    while True:\n"
          "        sess.run(it.get_next())\n", [(5, 18, "TFE601")]),
    (V1 + "EPOCHS = 16\nsess = tf.Session()\nfor i in xrange(EPOCHS):\n    sess.run(tf.argmax(y, 1))\n",
     [(5, 14, "TFE601")]),  # Python 2's xrange counts as range: 16 copies are more than a few
    (V1 + "import numpy as np\nsess = tf.Session()\nfor a in np.array(batches):\n    sess.run(tf.identity(x))\n",
     [(5, 14, "TFE601")]),  # an array of a list it cannot count
    (V1 + "sess = tf.Session()\nfor i, b in enumerate(batches):\n    sess.run(tf.identity(x))\n",
     [(4, 14, "TFE601")]),  # enumerate of what it cannot count
    (V1 + "enumerate = list\nsess = tf.Session()\nfor i in enumerate(range(5)):\n    sess.run(tf.identity(x))\n",
     [(5, 14, "TFE601")]),  # a shadowed builtin
    (V1 + "xs = [1, 2]\nxs = load()\nsess = tf.Session()\nfor a in xs:\n    sess.run(tf.identity(x))\n",
     [(6, 14, "TFE601")]),  # the list assigned before the loop is not a literal
    (V1 + "files = ['a', 'b', 'c']\nsess = tf.Session()\nfor i in range(len(files) * 7):\n"
          "    sess.run(tf.identity(x))\n", [(5, 14, "TFE601")]),  # not a literal count
    # while loops it cannot count: too many steps, a step that may be skipped or taken twice, an unknown start
    (V1 + "n = 0\nsess = tf.Session()\nwhile n < 16:\n    sess.run(tf.argmax(y, 1))\n    n += 1\n",
     [(5, 14, "TFE601")]),
    (V1 + "n = 0\nsess = tf.Session()\nwhile n < 3:\n    if ok():\n        continue\n    sess.run(tf.argmax(y, 1))\n"
          "    n += 1\n", [(7, 14, "TFE601")]),
    (V1 + "n = 0\nsess = tf.Session()\nwhile n < 3:\n    sess.run(tf.argmax(y, 1))\n    if ok():\n        n += 1\n",
     [(5, 14, "TFE601")]),
    (V1 + "n = 0\nsess = tf.Session()\nwhile n < 3:\n    sess.run(tf.argmax(y, 1))\n    n += 1\n    n = reset(n)\n",
     [(5, 14, "TFE601")]),
    (V1 + "n = start()\nsess = tf.Session()\nwhile n < 3:\n    sess.run(tf.argmax(y, 1))\n    n += 1\n",
     [(5, 14, "TFE601")]),
    (V1 + "n = 0\nsess = tf.Session()\nwhile n < 3:\n    sess.run(tf.argmax(y, 1))\n    n -= 1\n",
     [(5, 14, "TFE601")]),
    # periodic branches, nested expressions (reported once), comprehensions inside the loop
    (SESSION + "    for step in range(999):\n        if step % 10 == 0:\n"
               "            sess.run(tf.summary.merge_all())\n", [(6, 22, "TFE601")]),
    (SESSION + "    for step in range(1501):\n        if step % 100 == 0:\n"
               "            sess.run(tf.summary.merge_all())\n", [(6, 22, "TFE601")]),  # 16 times
    (SESSION + "    for step in range(0, 60001, 2000):\n        if step % 10 == 0:\n"
               "            sess.run(tf.summary.merge_all())\n", [(6, 22, "TFE601")]),  # a step: not counted
    (SESSION + "    for step in range(6001):\n        if other % 2000 == 0:\n"
               "            sess.run(tf.summary.merge_all())\n", [(6, 22, "TFE601")]),
    (V1 + "EPOCHS = 10\nsess = tf.Session()\nfor step in range(steps):\n    if step % EPOCHS == 9:\n"
          "        sess.run(tf.identity(x))\n", [(6, 18, "TFE601")]),  # a remainder it reaches
    (V1 + "sess = tf.Session()\nfor step in range(steps):\n    if step % 10 != 450:\n"
          "        sess.run(tf.identity(x))\n", [(5, 18, "TFE601")]),  # always true
    (SESSION + "    for step in range(6001):\n        if step % 20 == 0:\n            if step % 40 == 0:\n"
               "                sess.run(tf.summary.merge_all())\n", [(7, 26, "TFE601")]),  # 151 times
    (V1 + "if quick:\n    n = 1\nelse:\n    n = 100\nsess = tf.Session()\nfor i in range(n):\n"
          "    sess.run(tf.identity(x))\n", [(8, 14, "TFE601")]),  # at most 100
    (V1 + "if quick:\n    n = 1\nelse:\n    n = int(arg)\nsess = tf.Session()\nfor i in range(n):\n"
          "    sess.run(tf.identity(x))\n", [(8, 14, "TFE601")]),  # one binding not a literal
    (V1 + "steps = 8\nsess = tf.Session()\nfor i in range(1, steps * 2 + 1):\n"
          "    sess.run(tf.identity(x))\n", [(5, 14, "TFE601")]),  # 16 times
    (SESSION + "    for b in batches:\n        sess.run([tf.reduce_sum(t, axis=0) for t in ts])\n",
     [(5, 19, "TFE601")]),
    (SESSION + "    for b in batches:\n        sess.run(tf.argmax(tf.nn.softmax(x), axis=1))\n", [(5, 18, "TFE601")]),
    # tensors and ops run directly, a module-local function that runs the session or builds ops
    (V1 + "x = tf.constant([1.0])\nfor i in range(steps):\n    print(tf.reduce_sum(x, axis=0).eval())\n",
     [(4, 11, "TFE601")]),
    (V1 + "init = tf.global_variables_initializer()\nfor i in range(steps):\n    init.run()\n"
          "    y = tf.identity(x)\n", [(5, 9, "TFE601")]),
    (V1 + "sess = tf.Session()\ndef step():\n    return sess.run(op)\ndef build():\n    return tf.add(x, 1)\n"
          "for i in range(steps):\n    step()\n    build()\n", [(9, 5, "TFE601")]),
    # more than 15 iterations in all
    (V1 + "sess = tf.Session()\nfor a in [1, 2, 3]:\n    for b in range(6):\n        sess.run(tf.identity(x))\n",
     [(5, 18, "TFE601")]),
    (V1 + "epochs = 16\nsess = tf.Session()\nfor e in range(epochs):\n    sess.run(tf.assign(v, e))\n",
     [(5, 14, "TFE601")]),
    # a session on a graph that is not known to be new
    (V1 + "def f(g):\n    for i in range(steps):\n        with tf.Session(graph=g) as sess:\n"
          "            sess.run(tf.identity(x))\n", [(5, 22, "TFE601")]),
    # a module-local function called in the loop that does not reset the graph
    (V1 + "def seed(s=42):\n    tf.set_random_seed(s)\nsess = tf.Session()\nfor i in range(steps):\n"
          "    seed()\n    sess.run(tf.identity(x))\n", [(7, 14, "TFE601")]),
    # a session held in an attribute every method assigns a session
    (V1 + "class T:\n    def __init__(self):\n        self.sess = tf.Session()\n    def fit(self):\n"
          "        for i in range(steps):\n            self.sess.run(tf.global_variables_initializer())\n",
     [(7, 27, "TFE601")]),
    # an op that reads the counter of a step loop without indexing (feed it instead)
    (SESSION + "    for step in range(steps):\n        sess.run(tf.constant(step))\n", [(5, 18, "TFE601")]),
    (V1 + "import glob\nsess = tf.Session()\nfiles = glob.glob('*.jpg')\nfor f in files:\n"
          "    sess.run(tf.image.decode_jpeg(tf.io.read_file(f)))\n", [(6, 14, "TFE601")]),
    (V1 + "from tqdm import tqdm\nsess = tf.Session()\nfor i, b in tqdm(enumerate(range(steps))):\n"
          "    sess.run(tf.one_hot(i, 10))\n", [(5, 14, "TFE601")]),
    # a session per run: what is built per step of it still grows its graph
    (V1 + "for run in range(num_runs):\n    with tf.Session() as sess:\n        for i in range(steps):\n"
          "            sess.run(tf.argmax(y, 1))\n", [(5, 22, "TFE601")]),
    # a helper that reads a global model (the tutorials' compute_accuracy) builds ops per call
    (V1 + "def accuracy(v_xs, v_ys):\n    global prediction\n    y_pre = sess.run(prediction, {xs: v_xs})\n"
          "    return sess.run(tf.reduce_mean(tf.cast(tf.equal(tf.argmax(y_pre, 1), v_ys), tf.float32)))\n"
          "sess = tf.Session()\nfor i in range(steps):\n    sess.run(train)\n    if i % 50 == 0:\n"
          "        print(accuracy(x_test, y_test))\n", [(10, 15, "TFE601")]),
    # ops on a batch sliced out of data by the counter: the slice picks no graph element
    (SESSION + "    for j in range(n):\n        y_batch = data[j * size:(j + 1) * size]\n"
               "        sess.run(tf.argmax(y_batch, 1))\n", [(6, 18, "TFE601")]),
    # an index into a session run's result (NumPy data) picks a number, not a graph element
    (SESSION + "    probs = sess.run(tf.nn.softmax(x), {x: a})\n    for i in range(len(probs)):\n"
               "        print(sess.run(tf.argmax(probs[i])))\n", [(6, 24, "TFE601")]),
    (SESSION + "    y = tf.nn.softmax(x)\n    for i in range(steps):\n        out = y.eval({x: data[i]})\n"
               "        print(sess.run(tf.argmax(out[0])))\n", [(7, 24, "TFE601")]),
    # ``.eval()`` of a name each binding of which is an op: a tensor (assigned in two loops)
    (SESSION + "    for i in range(steps):\n        acc = tf.reduce_mean(x)\n        print(acc.eval({x: a}))\n"
               "    for i in range(steps):\n        acc = tf.reduce_mean(x)\n        print(acc.eval({x: b}))\n",
     [(5, 15, "TFE601"), (8, 15, "TFE601")]),
    # ``op.run(feed)`` is given a feed dict, not fetches: what it feeds varies and builds nothing
    (SESSION + "    train = tf.train.AdamOptimizer().minimize(x)\n    for i in range(steps):\n"
               "        batch = data[i]\n        train.run({x: batch})\n        print(tf.reduce_mean(x).eval({x: batch}))\n",
     [(8, 15, "TFE601")]),
    # a fetch bound in the loop to an ``assign`` of another module's variable is an op, not a model
    (SESSION + "    for e in range(epochs):\n        sess.run(tf.assign(lr, 0.1 * 0.9 ** e))\n"
               "        step_op = model.epoch.assign(e)\n        sess.run(step_op)\n", [(5, 18, "TFE601")]),
    # a session per iteration that runs no loop of steps: the loop goes over steps
    (V1 + "for i in range(steps):\n    with tf.Session() as sess:\n        sess.run(tf.argmax(y, 1))\n",
     [(4, 18, "TFE601")]),
])
def test_findings(source, expected):
    assert lint(source) == expected


@pytest.mark.parametrize("source", [
    # a loop that runs no session: model building
    SESSION + "    h = x\n    for i in range(steps):\n        h = tf.layers.dense(h, 10)\n    sess.run(h)\n",
    # not sessions: receivers other than sessions, tensors and ops
    "import subprocess\n" + SESSION + "    for b in batches:\n        subprocess.run(['ls'])\n        y = tf.abs(x)\n",
    V1 + "from absl import app\nfor i in range(steps):\n    app.run(main)\n    runner.run(tf.identity(x))\n",
    V1 + "def f(sess):\n    for i in range(steps):\n        sess.run(tf.identity(x))\n",
    V1 + "class T:\n    def fit(self):\n        for i in range(steps):\n            self.sess.run(tf.identity(x))\n",
    V1 + "sess = tf.Session()\nsess = make_session()\nfor i in range(steps):\n    sess.run(tf.identity(x))\n",
    V1 + "for i in range(steps):\n    acc = tf.reduce_mean(x)\n    acc = acc_of(x)\n    print(acc.eval())\n",
    # protos, logging, run options
    SESSION + "    for i in range(steps):\n"
              "        s = tf.Summary(value=[tf.Summary.Value(tag='a', simple_value=1.0)])\n"
              "        tf.logging.info('%s', s)\n        sess.run(x, options=tf.RunOptions())\n",
    # built once (first step, cached), in a fresh graph, after a reset
    SESSION + "    for step in range(steps):\n        if step == 0:\n            y = tf.identity(x)\n"
              "        sess.run(x)\n",
    SESSION + "    y = None\n    for step in range(steps):\n        if y is None:\n            y = tf.identity(x)\n"
              "        sess.run(y)\n",
    SESSION + "    for step in range(steps):\n        y = y or tf.identity(x)\n        sess.run(y)\n",
    V1 + "for i in range(steps):\n    with tf.Graph().as_default():\n        y = tf.constant(i)\n"
         "        with tf.Session() as sess:\n            sess.run(y)\n",
    V1 + "for i in range(steps):\n    tf.reset_default_graph()\n    y = tf.constant(i)\n"
         "    with tf.Session() as sess:\n        sess.run(y)\n",
    # at most 15 iterations in all, counted from literals: a bounded handful of copies
    V1 + "coord = tf.train.Coordinator()\nsess = tf.Session()\nwhile not coord.should_stop():\n"
         "    sess.run(tf.image.encode_png(x))\n    print(1)\n    break\n",  # one pass: it ends in a break
    V1 + "coord = tf.train.Coordinator()\nsess = tf.Session()\nwhile not coord.should_stop():\n"
         "    tf.global_variables_initializer().run()\n    print(sess.run(x))\n    exit(0)\n",  # or ends the program
    V1 + "import sys\nsess = tf.Session()\nfor b in batches:\n    sess.run(tf.identity(x))\n    sys.exit()\n",
    V1 + "import os\nsess = tf.Session()\nfor b in batches:\n    sess.run(tf.identity(x))\n    os._exit(1)\n",
    V1 + "sess = tf.Session()\nfor i in range(15):\n    sess.run(tf.identity(x))\n",
    V1 + "sess = tf.Session()\nfor i in range(6001):\n    if i % 2000 == 0:\n        sess.run(tf.identity(x))\n",
    V1 + "N = 20\nsess = tf.Session()\nfor i in range(N):\n    if (i + 1) % 5 == 0:\n"
         "        for j in range(3):\n            sess.run(tf.identity(x))\n",
    V1 + "sess = tf.Session()\nfor i in range(10001):\n    if not i % 1000:\n        sess.run(tf.identity(x))\n",
    # a remainder the branch asks for never comes (``% 10`` is 0 to 9): the branch never runs
    V1 + "EPOCHS = 10\nsess = tf.Session()\nfor step in range(steps):\n    if step % EPOCHS == 450:\n"
         "        sess.run(tf.identity(x))\n",
    V1 + "sess = tf.Session()\nfor step in range(steps):\n    if (step + 1) % 4 == 4:\n        sess.run(tf.identity(x))\n",
    # nested periodic branches are taken at the multiples of both periods: 4 times
    V1 + "sess = tf.Session()\nfor i in range(6001):\n    if i % 20 == 0:\n        if i % 2000 == 0:\n"
         "            sess.run(tf.identity(x))\n",
    # a count bound several times, each to a small number: at most the largest
    V1 + "EPOCHS = 10\ndef train(quick):\n    if quick:\n        n = 1\n    else:\n        n = EPOCHS\n"
         "    sess = tf.Session()\n    for i in range(n):\n        tf.train.Saver().save(sess, 'm')\n",
    V1 + "n = 5\nsess = tf.Session()\nfor i in range(n):\n    sess.run(tf.global_variables_initializer())\n",
    V1 + "steps = 1\nsess = tf.Session()\nfor i in range(1, steps + 1):\n    sess.run(tf.identity(x))\n",
    V1 + "n = 3\nsess = tf.Session()\nfor i in range(n * 5 - 1):\n    sess.run(tf.identity(x))\n",
    V1 + "sess = tf.Session()\nfor a in [1, 2]:\n    for b in range(5):\n        sess.run(tf.identity(x))\n",
    # enumerate, reversed and zip run as often as what they run over (zip: its shortest known one)
    V1 + "sess = tf.Session()\nfor e, _ in enumerate(range(5)):\n    sess.run(tf.argmax(y, 1))\n",
    V1 + "epochs, lr = 5, 0.1\nsess = tf.Session()\nfor e in range(epochs):\n    sess.run(tf.assign(rate, lr / (e + 1)))\n",
    V1 + "sess = tf.Session()\nfor i in reversed(range(3)):\n    sess.run(tf.argmax(y, 1))\n",
    V1 + "sess = tf.Session()\nfor i, b in zip(range(4), batches):\n    sess.run(tf.argmax(y, 1))\n",
    V1 + "EPOCHS = 10\nsess = tf.Session()\nfor i in xrange(EPOCHS):\n    sess.run(tf.argmax(y, 1))\n",  # Python 2
    # a counted while loop: the counter starts at a number and steps once per iteration
    V1 + "n = 0\nsess = tf.Session()\nwhile n < 1:\n    sess.run(tf.argmax(y, 1))\n    n += 1\n",
    V1 + "N = 12\nn = 1\nsess = tf.Session()\nwhile n <= N:\n    sess.run(tf.argmax(y, 1))\n    n += 1\n",
    V1 + "n = 0\nsess = tf.Session()\nwhile n != 30:\n    sess.run(tf.argmax(y, 1))\n    n += 2\n",
    V1 + "files = ['a', 'b', 'c']\nsess = tf.Session()\nfor i in range(len(files)):\n    sess.run(tf.identity(x))\n",
    V1 + "import numpy as np\nsess = tf.Session()\nfor a in np.array([x, x + 1]):\n    sess.run(tf.identity(x))\n",
    # a name assigned several times, in order: the assignment before the loop counts
    V1 + "import numpy as np\nxs = load()\nxs = np.array([x, x + 1])\nsess = tf.Session()\nfor a in xs:\n"
         "    sess.run(tf.identity(a))\nxs = load()\n",
    V1 + "prefs = [[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]]\nsess = tf.Session()\nfor pref in prefs:\n"
         "    sess.run(tf.global_variables_initializer())\n",
    # a session on a fresh graph makes that graph the default: ops built under it go there
    V1 + "for i in range(steps):\n    g = tf.Graph()\n    with tf.Session(graph=g) as sess:\n"
         "        sess.run(tf.constant(i))\n",
    V1 + "def train(x):\n    graph = tf.Graph()\n    with graph.as_default():\n        y = tf.identity(x)\n"
         "    with tf.Session(graph=graph) as sess:\n        tf.global_variables_initializer().run()\n"
         "        return sess.run(y)\nfor i in range(steps):\n    train(i)\n",
    V1 + "def reset_graph(seed=42):\n    tf.reset_default_graph()\n    tf.set_random_seed(seed)\n"
         "for i in range(steps):\n    reset_graph()\n    y = tf.constant(i)\n"
         "    with tf.Session() as sess:\n        sess.run(y)\n",
    V1 + "_op = None\ndef op():\n    global _op\n    if _op is None:\n        _op = tf.identity(x)\n    return _op\n"
         "sess = tf.Session()\nfor i in range(steps):\n    sess.run(op())\n",
    V1 + "_op = None\ndef op():\n    global _op\n    _op = _op or tf.identity(x)\n    return _op\n"
         "sess = tf.Session()\nfor i in range(steps):\n    sess.run(op())\n",
    # one op per graph element (built once each), the loop's else, Estimator.train in a loop
    SESSION + "    for v in tf.trainable_variables():\n        sess.run(v.assign(tf.zeros_like(v)))\n",
    SESSION + "    for i in range(steps):\n        sess.run(variables[i].assign(values[i]))\n",
    # a name also bound to graph elements: its index may pick one (one op per element)
    SESSION + "    probs = sess.run(y)\n    if split:\n        probs = tf.unstack(y)\n    for i in range(steps):\n"
              "        sess.run(tf.argmax(probs[i]))\n",
    SESSION + "    for i in range(steps):\n        out = sess.run(y) if eager else ys\n"
              "        sess.run(tf.argmax(out[i]))\n",
    V1 + "from tqdm import tqdm\nsess = tf.Session()\nfor v in tqdm(tf.global_variables()):\n"
         "    sess.run(tf.assign(v, tf.zeros_like(v)))\n",
    SESSION + "    for name in names:\n        t = graph.get_tensor_by_name(name)\n"
              "        sess.run(tf.reduce_mean(t, axis=None))\n",
    SESSION + "    for b in batches:\n        sess.run(x)\n    else:\n        y = tf.identity(x)\n",
    # a model per element on purpose (a sweep): its initializer and saver belong to it
    V1 + "sess = tf.Session()\nfor config in configs:\n    model = Model(config)\n"
         "    sess.run(tf.global_variables_initializer())\n    saver = tf.train.Saver()\n"
         "    for i in range(steps):\n        sess.run(model.train_op)\n",
    V1 + "sess = tf.Session()\nfor lr in [0.1, 0.01]:\n    step = tf.train.AdamOptimizer(lr).minimize(loss)\n"
         "    sess.run(tf.global_variables_initializer())\n    for i in range(steps):\n        sess.run(step)\n",
    V1 + "for i in range(steps):\n    estimator.train(input_fn, steps=10)\n",
    # a session of its own per iteration: a loop over training runs, each building its model
    V1 + "for run in range(num_runs):\n    init = tf.global_variables_initializer()\n    saver = tf.train.Saver()\n"
         "    with tf.Session() as sess:\n        sess.run(init)\n        for i in range(steps):\n"
         "            sess.run(train_op)\n        print(sess.run(tf.argmax(y, 1)))\n",
    V1 + "n = 0\nwhile n < digits:\n    with tf.variable_scope('d%d' % n):\n        y = tf.layers.dense(x, 3)\n"
         "        sess = tf.Session()\n        sess.run(tf.global_variables_initializer())\n"
         "        while not done(sess):\n            sess.run(train_op)\n        n += 1\n",
    # tf.get_variable may reuse; Keras layers, methods of unknown objects
    SESSION + "    for i in range(steps):\n        v = tf.get_variable('v', [1], reuse=tf.AUTO_REUSE)\n"
              "        layer = tf.keras.layers.Dense(3)\n        sess.run(model.predict(x))\n",
    # no session: eager code and tf.function
    TF + "for i in range(steps):\n    y = tf.reduce_sum(tf.constant([1.0]), axis=0)\n    print(y.numpy())\n",
])
def test_near_misses(source):
    assert lint(source) == []


AGENT = V1 + """\
class Agent:
    def __init__(self, sess):
        self.sess, self.w, self.t, self.op = sess, tf.Variable(1.0), tf.Variable(0.0), None
        self.loss = tf.reduce_sum(self.w)

    def copy_parameters(self):
        return [tf.assign(self.t, self.w)]

    def update(self):
        self.sess.run(self.copy_parameters())

    def cached(self):
        if self.op is None:
            self.op = tf.assign(self.t, self.w)
        return self.op

    def value(self):
        return self.sess.run(self.w)

    def loss_value(self):
        return self.loss.eval()

    @property
    def target(self):
        return tf.identity(self.t)

agent = Agent(tf.Session())
with tf.Session() as sess:
    for episode in range(episodes):
"""


@pytest.mark.parametrize("loop_body, expected", [
    # a method of the module's class builds ops on every call, also through a method of its own
    ("        sess.run(agent.copy_parameters())\n", [(31, 18, "TFE601")]),
    ("        agent.update()\n        sess.run(agent.w)\n", [(31, 9, "TFE601")]),
    # the loop runs the session only through a method, which evaluates a tensor the class holds
    ("        agent.loss_value()\n        agent.copy_parameters()\n", [(32, 9, "TFE601")]),
    # near misses: an op cached on the first call, a method that only runs one, a decorated
    # method, a method of an object of unknown class
    ("        sess.run(agent.cached())\n        agent.value()\n        sess.run(agent.target)\n"
     "        other.copy_parameters()\n", []),
    # a loop that runs no session: ops built per iteration are the model being built
    ("        agent.copy_parameters()\n", []),
])
def test_methods_of_the_modules_classes(loop_body, expected):
    assert lint(AGENT + loop_body) == expected


TRAINER = V1 + """\
class Trainer:
    def __init__(self, tool):
        self.w, self.optimizer = tf.Variable(1.0), tf.train.AdamOptimizer(0.1)
        self.counter = tf.Variable(0)
        self.history = ()  # no element to unpack
        self.sess = tf.Session()

    def reset(self):
        self.counter = tf.Variable(1)

    def train(self, steps):
        for i in range(steps):
"""


@pytest.mark.parametrize("loop_body, expected", [
    # an optimizer or a variable the class assigns once to an attribute
    ("            self.sess.run(self.optimizer.minimize(tf.square(self.w)))\n", [(14, 27, "TFE601")]),
    ("            self.sess.run(self.w.assign_add(1.0))\n", [(14, 27, "TFE601")]),
    # near misses: an attribute assigned twice, one of unknown type, a variable's value read
    ("            self.sess.run(self.counter.assign(0))\n            self.sess.run(self.tool.minimize(i))\n"
     "            self.sess.run(self.w.value)\n", []),
])
def test_attributes_the_class_assigns_once(loop_body, expected):
    assert lint(TRAINER + loop_body) == expected


def test_warning_in_graph_mode_naming_the_op():
    diagnostics = lint_source(SESSION + "    for b in batches:\n        sess.run(it.get_next())\n"
                              "        sess.run(tf.identity(x))\n", select=["TFE601"])
    assert [(d.line, d.severity) for d in diagnostics] == [(6, "warning")]
    assert diagnostics[0].message.startswith("`tf.identity(...)` builds new graph ops on every iteration")


def test_an_op_under_a_periodic_branch_is_said_to_grow_the_graph_each_time_it_runs():
    diagnostics = lint_source(SESSION + "    for i in range(steps):\n        if i % 100 == 0:\n"
                              "            sess.run(tf.identity(x))\n", select=["TFE601"])
    assert [(d.line, d.col) for d in diagnostics] == [(6, 21)]
    assert diagnostics[0].message.startswith("`tf.identity(...)` builds new graph ops each time `i % 100 == 0` "
                                             "holds in a loop that runs a session: the graph grows all along the run")


def test_a_module_function_that_hides_a_builtin_is_named_so():
    source = (V1 + "def min(x, axis=None):\n    return tf.reduce_min(x, axis)\nwith tf.Session() as sess:\n"
              "    for i in range(0, n, 32):\n        sess.run(out, {x: data[i:min(i + 32, n)]})\n")
    diagnostics = lint_source(source, select=["TFE601"])
    assert [(d.line, d.col) for d in diagnostics] == [(6, 33)]
    assert diagnostics[0].message.startswith(
        "`min(...)` (this module's `min`, which hides the builtin) builds new graph ops on every iteration")


def test_a_no_op_per_iteration_is_info():
    diagnostics = lint_source(SESSION + "    for epoch in range(epochs):\n        run_epoch(sess, model, tf.no_op())\n"
                              "        sess.run(tf.group(x))\n", select=["TFE601"])
    assert [(d.line, d.col, d.severity) for d in diagnostics] == [(5, 31, "info"), (6, 17, "warning")]
    assert diagnostics[0].message.startswith("`tf.no_op()` adds an empty node on every iteration")


def test_ops_built_in_the_session_loop_grow_the_graph_every_step(tf):
    bad = load_module(FOLDER / "bad.py").main(steps=6)
    good = load_module(FOLDER / "good.py").main(steps=6)
    growth = [b - a for a, b in zip(bad["ops"], bad["ops"][1:])]
    # an assign, a mean, an initializer (6 ops with their inputs) and a maximum of a fetched row (7) per step
    assert growth == [13] * 5
    assert good["ops"] == [good["ops"][0]] * 6  # built once: the graph stays the same
    assert bad["ops"][0] > good["ops"][0]
    assert bad["losses"].tolist() == good["losses"].tolist()  # the same values, computed again and again
    assert bad["means"].tolist() == good["means"].tolist()
    assert bad["peaks"] == good["peaks"] == [np.float32(v / 12) for v in (2, 5, 8, 11, 2, 5)]


def test_a_finalized_graph_makes_the_growth_raise_at_once(tf):
    from tflint_effective.runtime_checks import finalized_graph

    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        total = tf.reduce_sum(x, axis=0)
        with tf.compat.v1.Session() as sess, finalized_graph():
            for step in range(2):
                assert sess.run(total, {x: [1.0, float(step)]}) == 1.0 + step  # built before: runs
            with pytest.raises(RuntimeError, match="finalized"):
                sess.run(tf.reduce_sum(x, axis=0), {x: [1.0]})  # built in the loop: raises
