import pytest

from tfe_testing import findings
from tflint_effective.engine.lint import lint_source

V1 = "import tensorflow.compat.v1 as tf\n"
TF = "import tensorflow as tf\n"
SLIM = V1 + "from tensorflow.contrib import slim\n"
TRAIN = "train_op = tf.train.AdamOptimizer(0.1).minimize(loss)\n"
INFER = "e = tf.layers.batch_normalization(x, training=False, name='bn', reuse=True)\n"  # reads the moving statistics


# a model object whose ``__call__`` carries the flag, called through the attribute holding it
CALLABLE = (V1 + "class Generator:\n    def __call__(self, z, is_training=False):\n"
            "        return tf.layers.batch_normalization(z, training=is_training)\n"
            "class GAN:\n    def __init__(self):\n        self.gen = Generator()\n"
            "    def build(self):\n        self.fake = self.gen(z, is_training=True)\n")


# a flag handed down: ``generate``'s parameter passed on to ``bn``'s
CHAIN = (V1 + "def bn(x, is_training):\n    return tf.layers.batch_normalization(x, training=is_training)\n"
         "def generate(z, is_training=True):\n    return bn(z, is_training)\n")


# a GAN whose generator and discriminator share one training flag (batch norms on lines 5 and 9)
GAN = (V1 + "is_training = tf.placeholder(tf.bool)\n"
       "def generator(z, is_training):\n    out = tf.layers.dense(z, 8)\n"
       "    out = tf.layers.batch_normalization(out, training=is_training)\n    return out\n"
       "def discriminator(x, is_training):\n    out = tf.layers.dense(x, 8)\n"
       "    out = tf.layers.batch_normalization(out, training=is_training)\n    return out\n"
       "fake = generator(z, is_training)\nd_real = discriminator(x, is_training)\n"
       "d_fake = discriminator(fake, is_training)\nloss = tf.reduce_mean(d_fake - d_real)\n" + TRAIN)
# the same as a class, sampled through its attribute (batch norms on lines 4 and 6)
GAN_CLASS = (V1 + "class GAN:\n    def generator(self, z):\n"
             "        return tf.layers.batch_normalization(z, training=self.is_training)\n"
             "    def discriminator(self, x):\n"
             "        return tf.layers.batch_normalization(x, training=self.is_training)\n"
             "    def build(self):\n        self.is_training = tf.placeholder(tf.bool)\n"
             "        self.fake = self.generator(z)\n        loss = self.discriminator(self.fake)\n"
             "        self.train_op = tf.train.AdamOptimizer(0.1).minimize(loss)\n")


def lint(source):
    return findings(source, select=["TFE602"])


@pytest.mark.parametrize("source, expected", [
    (V1 + "h = tf.layers.batch_normalization(x, training=True)\n" + TRAIN + INFER, [(2, 5, "TFE602")]),
    # collections, dependencies and groups the module shows, none of them the update ops
    (V1 + "h = tf.layers.batch_normalization(x, training=True)\nv = tf.get_collection(tf.GraphKeys.LOSSES)\n"
          "w = tf.get_collection('weights')\nwith tf.control_dependencies([check]):\n    " + TRAIN
          + "step = tf.group(train_op, check)\n" + INFER, [(2, 5, "TFE602")]),
    # a flag that only a parameter or a placeholder carries: inference shows elsewhere in the module
    *[(V1 + "def net(x, is_training):\n    return tf.layers.batch_normalization(x, training=is_training)\n" + TRAIN
       + evidence, [(3, 12, "TFE602")]) for evidence in (
        "probs = net(x, is_training=False)\n", "probs = net(x, False)\n",
        "flag = tf.placeholder(tf.bool)\nsess.run(probs, {x: batch, flag: True})\n"
        "sess.run(probs, {x: batch, model.train_phase: 0})\n",
        "flag = tf.placeholder_with_default(True, [])\n",
        "saver = tf.train.Saver()\n",
        "spec = tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT, predictions=probs)\n")],
    # a parameter defaulting to True that some call sets otherwise (or may: a call through a name it cannot
    # resolve, ``*args``), or that the module never calls
    *[(V1 + "class GAN:\n    def net(self, x, is_training=True):\n"
       "        return tf.layers.batch_normalization(x, training=is_training)\n"
       "    def build(self):\n        self.h = self.net(x)\n" + calls + TRAIN + "saver = tf.train.Saver()\n",
       [(4, 16, "TFE602")]) for calls in (
        "        self.g = self.net(x, False)\n", "        self.g = self.net(x, is_training=flag)\n",
        "gan = GAN()\ng = gan.net(x)\n", "        self.g = self.net(*xs)\n")],
    (V1 + "def net(x, is_training=True):\n    return tf.layers.batch_normalization(x, training=is_training)\n"
     + TRAIN + "saver = tf.train.Saver()\n", [(3, 12, "TFE602")]),
    # an instance's calls that give ``__call__``'s flag different values, or that may not all be seen
    *[(CALLABLE + more + TRAIN + "saver = tf.train.Saver()\n", [(4, 16, "TFE602")]) for more in (
        "        self.sample = self.gen(z, False)\n", "        run(self.gen)\n",
        "        self.gen = Discriminator()\n", "other = Generator()\nother(z)\n",
        "class Big(Generator):\n    pass\n", "fake = Generator()(z, True)\n")],
    # a flag handed down from a parameter some call sets otherwise, or from two callers' own flags
    *[(CHAIN + calls + TRAIN + "saver = tf.train.Saver()\n", [(3, 12, "TFE602")]) for calls in (
        "g = generate(z)\nh = generate(z, False)\n",
        "def other(z, is_training):\n    return bn(z, is_training)\n")],
    # calls that give a parameter without a default different values (or one call passes nothing)
    *[(V1 + "def net(x, is_training):\n    return tf.layers.batch_normalization(x, training=is_training)\n"
       + calls + TRAIN + "saver = tf.train.Saver()\n", [(3, 12, "TFE602")])
      for calls in ("h = net(x, True)\ng = net(h, False)\n", "h = net(x, True)\ng = net(h)\n")],
    # beside a flexible flag, a norm that always trains is reported only if some norm certainly infers
    (V1 + "def net(x, is_training):\n    return tf.layers.batch_normalization(x, training=is_training)\n"
          "d = tf.layers.batch_normalization(x, training=True)\ne = tf.contrib.layers.batch_norm(d)\n" + TRAIN
          + "saver = tf.train.Saver()\n", [(3, 12, "TFE602")]),
    (V1 + "def net(x, is_training):\n    return tf.layers.batch_normalization(x, training=is_training)\n"
          "d = tf.layers.batch_normalization(x, training=True)\n" + TRAIN + INFER,
     [(3, 12, "TFE602"), (4, 5, "TFE602")]),
    (TF + "h = tf.compat.v1.layers.batch_normalization(x, training=mode == 'train')\nsess = tf.compat.v1.Session()\n"
          "grads = opt.compute_gradients(loss)\nstep = opt.apply_gradients(grads)\n", [(2, 5, "TFE602")]),
    # contrib and slim: is_training defaults to True, updates_collections to UPDATE_OPS
    (SLIM + "h = slim.batch_norm(x)\nh = tf.contrib.layers.batch_norm(h, is_training=training)\n" + TRAIN + INFER,
     [(3, 5, "TFE602"), (4, 5, "TFE602")]),
    (V1 + "import tf_slim as slim\nh = slim.batch_norm(x)\n" + TRAIN + INFER, [(3, 5, "TFE602")]),
    (SLIM + "h = slim.conv2d(x, 8, 3, normalizer_fn=slim.batch_norm)\n" + TRAIN + INFER, [(3, 40, "TFE602")]),
    (SLIM + "params = {'decay': 0.9}\nh = slim.conv2d(x, 8, 3, normalizer_fn=slim.batch_norm, "
            "normalizer_params=params)\n" + TRAIN + INFER, [(4, 40, "TFE602")]),
    # a run in inference mode reads the moving statistics of the batch norms its fetches depend on
    (GAN + "samples = sess.run(fake, {z: noise, is_training: False})\n", [(5, 11, "TFE602")]),
    (GAN + "print(d_real.eval(feed_dict={x: batch, is_training: False}))\n", [(9, 11, "TFE602")]),
    (GAN + "p = sess.run(fetches=[d_fake], feed_dict={x: batch, is_training: False})\n",
     [(5, 11, "TFE602"), (9, 11, "TFE602")]),
    (GAN_CLASS + "    def sample(self, sess):\n        return sess.run(self.fake, {self.is_training: False})\n",
     [(4, 16, "TFE602")]),
    # what the fetch depends on cannot be followed (a parameter), or the feed is built elsewhere: any
    *[(GAN + more, [(5, 11, "TFE602"), (9, 11, "TFE602")]) for more in (
        "def sample(sess, out):\n    return sess.run(out, {is_training: False})\n",
        "feed = {is_training: False}\nsamples = sess.run(fake, feed)\n",
        "samples = sess.run(model.sample(), {is_training: False})\n")],
])
def test_findings(source, expected):
    assert lint(source) == expected


@pytest.mark.parametrize("source", [
    # not training: training False (or tf.layers' default), is_training=False
    V1 + "h = tf.layers.batch_normalization(x)\nh = tf.layers.batch_normalization(h, training=False)\n" + TRAIN,
    V1 + "TRAIN = False\nh = tf.layers.batch_normalization(x, training=TRAIN)\n" + TRAIN,
    SLIM + "h = slim.batch_norm(x, is_training=False)\nh = slim.conv2d(h, 8, 3, normalizer_fn=slim.batch_norm, "
           "normalizer_params={'is_training': False})\n" + TRAIN,
    # every batch norm trains: the moving statistics are never read (a GAN sampling in training mode)
    V1 + "h = tf.layers.batch_normalization(x, training=True)\n" + TRAIN,
    V1 + "TRAINING = True\nh = tf.layers.batch_normalization(x, training=TRAINING)\n" + TRAIN,
    V1 + "h = tf.layers.batch_normalization(x, training=True)\n" + TRAIN + "saver = tf.train.Saver()\n",
    # a parameter defaulting to True that no call in the module sets otherwise: a Saver alone shows no inference
    *[V1 + "class GAN:\n    def net(self, x, is_training=True):\n"
      "        return tf.layers.batch_normalization(x, training=is_training)\n"
      "    def build(self):\n        self.h = self.net(x)\n" + calls + TRAIN + "saver = tf.train.Saver()\n"
      for calls in ("        self.g = self.net(x, True)\n", "        self.g = self.net(x, is_training=True)\n")],
    V1 + "def net(x, *, is_training=True):\n    return tf.layers.batch_normalization(x, training=is_training)\n"
    + "h = net(x)\n" + TRAIN + "saver = tf.train.Saver()\n",
    # a flag handed down from a parameter to which every call gives True (a placeholder of the same
    # name fed False elsewhere is another value)
    CHAIN + "g = generate(z)\nis_training = tf.placeholder(tf.bool)\nsess.run(g, {is_training: False})\n" + TRAIN,
    # runs in inference mode whose fetches depend on no batch norm (a step counter)
    GAN + "step = tf.train.get_or_create_global_step()\nn = sess.run(step, {is_training: False})\n",
    # every call of an instance gives ``__call__``'s flag True
    CALLABLE + "        self.sample = self.gen(z, True)\n" + TRAIN + "saver = tf.train.Saver()\n",
    CALLABLE + "gan = GAN()\nfake = gan.gen(z, is_training=True)\nv = gan.gen.variables\n" + TRAIN
    + "saver = tf.train.Saver()\n",
    # a parameter without a default to which every call gives True
    V1 + "def net(x, is_training):\n    return tf.layers.batch_normalization(x, training=is_training)\n"
    + "h = net(x, True)\ng = net(h, is_training=True)\n" + TRAIN + "saver = tf.train.Saver()\n",
    # nothing shows inference: a parameter flag, a placeholder fed only True, False for other keywords
    V1 + "def net(x, is_training):\n    return tf.layers.batch_normalization(x, training=is_training)\n" + TRAIN
    + "flag = tf.placeholder(tf.bool)\nh = net(x, flag)\nsess.run(train_op, {x: batch, flag: True})\n"
    + "w = tf.get_variable('w', [1], trainable=False)\nsess.run(h, {x: batch, done: False})\n",
    # False by position for a parameter that is no training flag, or to a function of another module
    V1 + "def net(x, is_training, reuse=None):\n    return tf.layers.batch_normalization(x, training=is_training)\n"
    + TRAIN + "h = net(x, flag, False)\ng = other.net(x, False)\n",
    SLIM + "h = tf.contrib.layers.batch_norm(x)\nh = slim.conv2d(h, 8, 3, normalizer_fn=slim.batch_norm, "
           "normalizer_params={'decay': 0.9})\n" + TRAIN,
    # the module runs the update ops (or updates in place)
    V1 + "h = tf.layers.batch_normalization(x, training=True)\n"
         "with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):\n    " + TRAIN,
    V1 + "h = tf.layers.batch_normalization(x, training=True)\nops = tf.get_collection('update_ops')\n" + TRAIN,
    V1 + "h = tf.layers.batch_normalization(x, training=True)\n" + TRAIN
    + "step = tf.group(train_op, *bn_update_ops)\n",
    SLIM + "h = slim.batch_norm(x)\ntrain_op = slim.learning.create_train_op(loss, opt)\n",
    V1 + "h = tf.contrib.layers.batch_norm(x)\ntrain_op = tf.contrib.layers.optimize_loss(loss, step, 0.1, 'Adam')\n",
    SLIM + "h = slim.batch_norm(x, updates_collections=None)\n" + TRAIN,
    SLIM + "with slim.arg_scope([slim.batch_norm], updates_collections=None):\n    h = slim.batch_norm(x)\n" + TRAIN,
    V1 + "h = tf.layers.batch_normalization(x, training=True)\n" + TRAIN + "run = tf.group(train_op, *model.updates)\n",
    V1 + "from tflint_effective.runtime_checks import train_op_with_updates\n"
         "h = tf.layers.batch_normalization(x, training=True)\ntrain_op = train_op_with_updates(opt, loss)\n",
    V1 + "h = tf.layers.batch_normalization(x, training=True)\nextra = tf.get_collection(key)\n" + TRAIN,
    V1 + "h = tf.layers.batch_normalization(x, training=True)\nextra = tf.get_collection(self.keys.bn)\n" + TRAIN,
    V1 + "h = tf.layers.batch_normalization(x, training=True)\nwith tf.control_dependencies(model.extra):\n"
         "    " + TRAIN,
    V1 + "h = tf.layers.batch_normalization(x, training=True)\n" + TRAIN + "step = tf.group(train_op, *extra)\n",
    # contrib/slim under an arg_scope the module cannot read
    SLIM + "with slim.arg_scope(nets.arg_scope()):\n    h = slim.batch_norm(x)\n" + TRAIN,
    # the train op is built in another module; no train op at all
    V1 + "def net(x):\n    return tf.layers.batch_normalization(x, training=True)\n",
    V1 + "h = tf.layers.batch_normalization(x, training=True)\nres = scipy.optimize.minimize(f, x0)\n"
         "import scipy.optimize\n",
    # no moving statistics: tf.nn.batch_normalization, Keras layers update themselves
    V1 + "h = tf.nn.batch_normalization(x, m, v, None, None, 1e-3)\nh = tf.keras.layers.BatchNormalization()(h)\n"
         + TRAIN,
    # eager and tf.function: the legacy layer updates during the call
    TF + "@tf.function\ndef step(x):\n    h = tf.compat.v1.layers.batch_normalization(x, training=True)\n"
         "    opt.minimize(lambda: loss(h), var_list)\n",
])
def test_near_misses(source):
    assert lint(source) == []


def test_error_in_graph_mode():
    diagnostics = lint_source(V1 + "h = tf.layers.batch_normalization(x, training=True)\n" + TRAIN + INFER,
                              select=["TFE602"])
    assert [(d.line, d.severity) for d in diagnostics] == [(2, "error")]


def _train_with_moving_mean(tf, run_updates):
    """A batch norm built by hand the way tf.layers builds it: the moving-mean update goes to
    UPDATE_OPS, and only a train op built under its control dependency runs it."""
    v1 = tf.compat.v1
    data = [[4.0], [5.0], [6.0]]
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 1])
        moving_mean = v1.Variable([0.0], trainable=False)
        scale = v1.Variable([1.0])
        mean, variance = tf.nn.moments(x, axes=[0])
        v1.add_to_collection(v1.GraphKeys.UPDATE_OPS, v1.assign_sub(moving_mean, 0.5 * (moving_mean - mean)))
        loss = tf.reduce_mean(tf.square(scale * (x - mean) / tf.sqrt(variance + 1e-3) - 1.0), axis=None)
        updates = v1.get_collection(v1.GraphKeys.UPDATE_OPS) if run_updates else []
        with tf.control_dependencies(updates):
            train_op = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for _ in range(20):
                sess.run(train_op, {x: data})
            return sess.run(moving_mean)[0]


def test_the_train_op_runs_the_update_ops_only_when_it_depends_on_them(tf):
    assert _train_with_moving_mean(tf, run_updates=False) == 0.0  # never updated
    assert _train_with_moving_mean(tf, run_updates=True) == pytest.approx(5.0, abs=1e-4)
