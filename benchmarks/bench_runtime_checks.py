"""Time each runtime_checks op against its TensorFlow equivalent (or the form it replaces).

    python benchmarks/bench_runtime_checks.py [--repeats N] [--filter TEXT] [--eager]

Both sides run inside ``tf.function`` (``--eager`` adds op-by-op timings) on
realistic float32 sizes.  Calls alternate between the two sides and each
side's best time is kept (other load on the machine only ever adds time); the
printed ratio is ours / reference, so 1.10 is the 10% budget; "ops" counts
the working ops each side traces to (equal counts: the same kernels).  Not a test:
timings depend on the machine.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tensorflow as tf  # noqa: E402

tf.get_logger().setLevel("ERROR")  # retracing notices from timing the same case in two modes

# Two logical CPUs for the tower ops; must happen before the first op.
_cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(_cpu, [tf.config.LogicalDeviceConfiguration()] * 2)

from tflint_effective import runtime_checks as rc  # noqa: E402

DEVICES = [d.name for d in tf.config.list_logical_devices("GPU")][:2] or \
    [d.name for d in tf.config.list_logical_devices("CPU")][:2]


def with_grad(fn):
    """fn -> (fn(*args), d sum(fn) / d args[-1]), timing forward plus backward."""
    def run(*args):
        with tf.GradientTape() as tape:
            tape.watch(args[-1])
            out = fn(*args)
        return out, tape.gradient(out, args[-1])
    return run


def naive_stable_softmax_all(x):
    e = tf.exp(x - tf.reduce_max(x))
    return e / tf.reduce_sum(e)


def entropy_via_fused_xent(x):
    return tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x)


def naive_gaussian_kl(mq, lq, mp, lp):
    var_q, var_p = tf.exp(lq), tf.exp(lp)
    return 0.5 * tf.reduce_sum(tf.math.log(var_p / var_q) + (var_q + tf.square(mq - mp)) / var_p - 1,
                               axis=-1)


def cookbook_batch_gather(t, indices):
    b, n = t.shape[0], t.shape[1]
    flat = tf.reshape(t, [b * n] + t.shape[2:].as_list())
    return tf.gather(flat, indices + tf.range(b)[:, None] * n)


def tile_concat_dense(kernel, bias):
    def run(a, b):
        m, n = a.shape[0], b.shape[1]
        tiled = tf.concat([tf.tile(a, [1, n, 1]), tf.tile(b, [m, 1, 1])], axis=-1)
        return tf.nn.relu(tf.tensordot(tiled, kernel, axes=1) + bias)
    return run


def mlp(w1, w2):
    def fn(x):
        return tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
    return fn


def cases():
    normal = tf.random.normal
    x = normal([4096, 4096])
    labels = tf.nn.softmax(normal([4096, 4096]))
    kl_args = [normal([8192, 1024]) for _ in range(4)]
    gather_t, gather_i = normal([1024, 512, 64]), tf.random.uniform([1024, 128], 0, 512, tf.int32)
    a, b = normal([256, 1, 256]), normal([1, 256, 256])
    merge = rc.Merge(256)
    merge([a, b])
    merge_ref = tile_concat_dense(tf.concat(merge.kernels, axis=0), merge.bias)
    w1, w2 = tf.Variable(normal([1024, 1024]) * 0.03), tf.Variable(normal([1024, 1024]) * 0.03)
    batch = normal([4096, 1024])
    model = mlp(w1, w2)

    def tower_loss(x):
        return tf.reduce_mean(tf.square(model(x)))

    def parallel(x):
        return rc.make_parallel(model, DEVICES, x=x)

    def tower_gradients(x):
        return rc.tower_gradients(tower_loss, [w1, w2], DEVICES, x=x)

    def single_device_gradients(x):
        with tf.GradientTape() as tape:
            loss = tower_loss(x)
        return loss, tape.gradient(loss, [w1, w2])

    def naive_towers(x):
        """The cookbook's make_parallel: split, one device scope per tower, concat."""
        outputs = []
        for device, part in zip(DEVICES, tf.split(x, len(DEVICES))):
            with tf.device(device):
                outputs.append(model(part))
        return tf.concat(outputs, axis=0)

    def naive_tower_gradients(x):
        """Towers' forward passes, then one tape.gradient outside their scopes (rule TFE502)."""
        with tf.GradientTape() as tape:
            losses = []
            for device, part in zip(DEVICES, tf.split(x, len(DEVICES))):
                with tf.device(device):
                    losses.append(tower_loss(part))
            loss = tf.add_n(losses) / len(losses)
        return loss, tape.gradient(loss, [w1, w2])

    def assert_then_double(x):
        check = tf.debugging.assert_all_finite(x, "finite")
        with tf.control_dependencies([check]):
            return x * 2

    return [
        # name, ours, reference, reference label, args
        ("noise floor: tf vs itself", tf.nn.softmax, lambda x: tf.nn.softmax(x), "tf.nn.softmax", [x]),
        ("softmax [4096,4096]", lambda x: rc.softmax(x), tf.nn.softmax, "tf.nn.softmax", [x]),
        ("softmax fwd+bwd", with_grad(rc.softmax), with_grad(tf.nn.softmax), "tf.nn.softmax", [x]),
        ("softmax axis=None", lambda x: rc.softmax(x, axis=None), naive_stable_softmax_all,
         "exp(x-max)/sum (no TF op)", [x]),
        ("log_softmax", lambda x: rc.log_softmax(x), tf.nn.log_softmax, "tf.nn.log_softmax", [x]),
        ("log_softmax fwd+bwd", with_grad(rc.log_softmax), with_grad(tf.nn.log_softmax),
         "tf.nn.log_softmax", [x]),
        ("softmax_cross_entropy", rc.softmax_cross_entropy, tf.nn.softmax_cross_entropy_with_logits,
         "fused xent kernel", [labels, x]),
        ("softmax_cross_entropy fwd+bwd", with_grad(rc.softmax_cross_entropy),
         with_grad(tf.nn.softmax_cross_entropy_with_logits), "fused xent kernel", [labels, x]),
        ("softmax_entropy", rc.softmax_entropy, entropy_via_fused_xent, "xent(softmax(x), x)", [x]),
        ("softmax_entropy fwd+bwd", with_grad(rc.softmax_entropy), with_grad(entropy_via_fused_xent),
         "xent(softmax(x), x)", [x]),
        ("gaussian_kl [8192,1024]", lambda *a: rc.gaussian_kl(a[:2], a[2:]), naive_gaussian_kl,
         "variance form", kl_args),
        ("reshape [[0,1]]", lambda x: rc.reshape(x, [[0, 1]]), lambda x: tf.reshape(x, [-1]),
         "tf.reshape", [x]),
        ("batch_gather [1024,512,64]", rc.batch_gather, lambda t, i: tf.gather(t, i, batch_dims=1),
         "tf.gather(batch_dims=1)", [gather_t, gather_i]),
        ("batch_gather vs cookbook", rc.batch_gather, cookbook_batch_gather, "reshape+offset gather",
         [gather_t, gather_i]),
        ("reduce_sum axis=-1", lambda x: rc.reduce_sum(x, -1), lambda x: tf.reduce_sum(x, -1),
         "tf.reduce_sum", [x]),
        ("reduce_mean axis=0", lambda x: rc.reduce_mean(x, 0), lambda x: tf.reduce_mean(x, 0),
         "tf.reduce_mean", [x]),
        ("reduce_max axis=-1", lambda x: rc.reduce_max(x, -1), lambda x: tf.reduce_max(x, -1),
         "tf.reduce_max", [x]),
        ("reduce_min axis=None", lambda x: rc.reduce_min(x, None), tf.reduce_min, "tf.reduce_min", [x]),
        ("with_assertions", lambda x: rc.with_assertions(x * 2, tf.debugging.assert_all_finite(x, "finite")),
         assert_then_double, "control_dependencies", [x]),
        ("merge [256,1,256]+[1,256,256]", lambda a, b: merge([a, b]), merge_ref, "tile+concat+dense",
         [a, b]),
        ("leaky_relu", rc.leaky_relu, tf.nn.leaky_relu, "tf.nn.leaky_relu", [x]),
        ("make_parallel (2 devices)", parallel, naive_towers, "cookbook split/concat towers", [batch]),
        ("make_parallel (2 devices)", parallel, model, "one device, no split", [batch]),
        ("tower_gradients (2 devices)", tower_gradients, naive_tower_gradients,
         "towers, one tape outside", [batch]),
        ("tower_gradients (2 devices)", tower_gradients, single_device_gradients,
         "one device, no split", [batch]),
    ]


def best_seconds(fns, args, repeats):
    """Best wall time of each fn, calling them in alternation after one warm-up call."""
    times = [[] for _ in fns]
    for fn in fns:
        fn(*args)
    tf.test.experimental.sync_devices()
    for _ in range(repeats):
        for fn, samples in zip(fns, times):
            start = time.perf_counter()
            fn(*args)
            tf.test.experimental.sync_devices()
            samples.append(time.perf_counter() - start)
    return [min(t) for t in times]


BOOKKEEPING = {"Placeholder", "Identity", "NoOp", "Const", "ReadVariableOp"}


def kernel_count(fn, args):
    """Ops that do work in fn's traced graph: equal counts mean the same kernels, whatever the timings say."""
    graph = tf.function(fn, autograph=False).get_concrete_function(*args).graph
    return sum(op.type not in BOOKKEEPING for op in graph.get_operations())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--filter", default="", help="only cases whose name contains this text")
    parser.add_argument("--eager", action="store_true", help="also time op-by-op (eager) execution")
    args = parser.parse_args(argv)
    modes = ["tf.function"] + (["eager"] if args.eager else [])
    print(f"TensorFlow {tf.__version__}, devices for towers: {DEVICES}, repeats {args.repeats}")
    print(f"{'case':32} {'reference':28} {'ops':>7} "
          + " ".join(f"{m + ' ms (ours/ref)':>26} {'ratio':>6}" for m in modes))
    for name, ours, reference, label, inputs in cases():
        if args.filter not in name:
            continue
        cells = []
        for mode in modes:
            fns = [tf.function(f, autograph=False) if mode == "tf.function" else f for f in (ours, reference)]
            mine, theirs = best_seconds(fns, inputs, args.repeats)
            cells.append(f"{1e3 * mine:12.2f} /{1e3 * theirs:11.2f}  {mine / theirs:6.2f}")
        ops = f"{kernel_count(ours, inputs)}/{kernel_count(reference, inputs)}"
        print(f"{name:32} {label:28} {ops:>7} " + " ".join(cells), flush=True)


if __name__ == "__main__":
    main()
