"""Accuracy and speed of the runtime_checks ops, against long-double references and TensorFlow.

    python benchmarks/bench_runtime_checks.py [--accuracy] [--speed] [--repeats N] [--filter TEXT]
                                              [--dtypes float32,...] [--no-xla]

Both tables by default.  Accuracy: each numerical op on inputs that mix
moderate logits, values near a quarter of the dtype's range, -inf masks and
fully masked rows, in eager, tf.function and TF1 graph mode; the table shows
the largest error of the value and of the gradient in units of the dtype's
epsilon, relative to max(|exact|, 1), against a long-double NumPy reference of
the rounded inputs, and how many entries were NaN/inf where the exact result
is finite ("bad").  Speed: float32 [4096, 4096] (and the other dtypes for the
softmax family) on the CPU, eager and tf.function, each side called in
alternation; the table gives median milliseconds, the median ratio ours / ref
and the range of per-round ratios.  XLA (jit_compile=True on both sides) is
a separate column, float32 only.  Not a test: timings depend on the machine
and its load.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.get_logger().setLevel("ERROR")
_cpu = tf.config.list_physical_devices("CPU")[0]  # two logical CPUs for the tower ops
tf.config.set_logical_device_configuration(_cpu, [tf.config.LogicalDeviceConfiguration()] * 2)

from tflint_effective import runtime_checks as rc  # noqa: E402

DEVICES = [d.name for d in tf.config.list_logical_devices("CPU")][:2]
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52}
TOP = {"float16": 65504.0, "bfloat16": 3.39e38, "float32": 3.4e38, "float64": 1.79e308}
LD, NEG = np.longdouble, -np.inf


# ---------------------------------------------------------------- accuracy

def accuracy_inputs(dtype, rng):
    x = rng.normal(size=(64, 33)) * 4
    x[rng.uniform(size=x.shape) < 0.05] = 0.25 * TOP[dtype] * rng.choice([-1, 1])
    x[rng.uniform(size=x.shape) < 0.1] = NEG
    x[[3, 17]] = NEG  # fully masked rows
    labels = np.where(np.isneginf(x), 0.0, rng.uniform(size=x.shape))
    weights = np.where(rng.uniform(size=x.shape) < 0.2, 0.0, rng.uniform(size=x.shape))
    log_vars = rng.normal(size=x.shape) * 5
    log_vars[rng.uniform(size=x.shape) < 0.05] = -0.25 * TOP[dtype]
    return x, labels, weights, log_vars


def log_softmax_ref(x, empty_rows):
    top = x.max(axis=-1, keepdims=True)
    if empty_rows:
        top = np.where(top == NEG, 0, top)
    z = x - top
    total = np.exp(z).sum(axis=-1, keepdims=True)
    return z - np.log(np.where(total == 0, 1, total) if empty_rows else total)


def references(x, labels, weights, log_vars, means, w):
    """name -> (op, inputs, exact value, exact gradients of sum(value * cotangent)); w: [rows, cols]."""
    log_p = log_softmax_ref(x, False)
    p = np.exp(log_p)
    mlog_p = log_softmax_ref(x, True)
    mp, finite = np.exp(mlog_p), np.where(mlog_p == NEG, 0, mlog_p)
    entropy = -(mp * finite).sum(axis=-1, keepdims=True)
    live = np.where(weights != 0, x, NEG)
    top = live.max(-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    total = (weights * np.exp(live - top)).sum(axis=-1, keepdims=True)
    with np.errstate(over="ignore"):
        share = np.where(total == 0, 0, np.exp(x - top) / np.where(total == 0, 1, total))
    row = w[:, :1]  # the cotangent of the per-row ops
    return {
        "softmax": (rc.softmax, [x], p, w, [p * (w - (p * w).sum(-1, keepdims=True))]),
        "log_softmax": (rc.log_softmax, [x], log_p, w, [w - p * w.sum(-1, keepdims=True)]),
        "softmax_entropy": (rc.softmax_entropy, [x], entropy[:, 0], row[:, 0], [-mp * (finite + entropy) * row]),
        "softmax_cross_entropy": (rc.softmax_cross_entropy, [labels, x], -(labels * finite).sum(-1), row[:, 0],
                                  [-finite * row, (mp * labels.sum(-1, keepdims=True) - labels) * row]),
        "weighted_logsumexp": (lambda a, b: rc.weighted_logsumexp(a, b, axis=-1), [x, weights],
                               np.log(total[:, 0]) + top[:, 0], row[:, 0], [weights * share * row, share * row]),
        "gaussian_kl": (lambda a, b: rc.gaussian_kl((a, b)), [means, log_vars],  # p: the standard normal
                        0.5 * (np.expm1(log_vars) - log_vars + means ** 2).sum(-1), row[:, 0],
                        [means * row, 0.5 * np.expm1(log_vars) * row]),
    }


def evaluate(fn, arrays, cotangent, dtype, mode):
    def body(*xs):
        with tf.GradientTape() as tape:
            tape.watch(xs)
            y = fn(*xs)
            loss = tf.reduce_sum(y * tf.cast(cotangent, y.dtype), axis=None)
        return y, tape.gradient(loss, xs)

    if mode == "graph":
        with tf.Graph().as_default():
            out = body(*[tf.cast(a, dtype) for a in arrays])
            with tf.compat.v1.Session() as session:
                y, grads = session.run(out)
    else:
        call = body if mode == "eager" else tf.function(body)
        y, grads = call(*[tf.cast(a, dtype) for a in arrays])
    return np.asarray(tf.cast(y, tf.float64)), [np.asarray(tf.cast(g, tf.float64)) for g in grads]


def error(actual, exact, dtype):
    """(largest error in eps relative to max(|exact|, 1), entries non-finite where exact is finite)."""
    exact = np.asarray(exact, LD)
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(exact) & (np.abs(exact) < TOP[dtype])
        bad = int((finite & ~np.isfinite(actual)).sum())
        both = finite & np.isfinite(actual)
        err = np.abs(actual[both] - exact[both]) / np.maximum(np.abs(exact[both]), 1) / EPS[dtype]
    return (float(err.max()) if err.size else 0.0), bad


@np.errstate(all="ignore")  # the references meet inf and NaN on purpose
def accuracy_table(dtypes, pattern):
    rng = np.random.default_rng(0)
    print("\nAccuracy: max error in eps of the dtype, value / gradient (relative, absolute below 1);"
          " bad = NaN or inf where the exact result is finite")
    print(f"{'op':24} {'dtype':9} " + " ".join(f"{m:>24}" for m in ("eager", "tf.function", "graph")))
    for dtype in dtypes:
        inputs = accuracy_inputs(dtype, rng)
        means, w = rng.normal(size=inputs[0].shape), rng.uniform(-1, 1, size=inputs[0].shape)
        rounded = [tf.cast(tf.cast(a, dtype), tf.float64).numpy().astype(LD) for a in (*inputs, means, w)]
        for name, (fn, arrays, value, cotangent, grads) in references(*rounded).items():
            if pattern not in name:
                continue
            cells = []
            for mode in ("eager", "function", "graph"):
                y, g = evaluate(fn, [a.astype(np.float64) for a in arrays], cotangent.astype(np.float64), dtype, mode)
                (ve, vb), ge = error(y, value, dtype), [error(a, e, dtype) for a, e in zip(g, grads)]
                cells.append(f"{ve:6.2f} / {max(e for e, _ in ge):6.2f} bad {vb + sum(b for _, b in ge):<3d}")
            print(f"{name:24} {dtype:9} " + " ".join(f"{c:>24}" for c in cells), flush=True)


# ---------------------------------------------------------------- speed

def with_grad(fn):
    def run(*args):
        with tf.GradientTape() as tape:
            tape.watch(args[-1])
            out = fn(*args)
        return out, tape.gradient(out, args[-1])
    return run


def entropy_via_fused_xent(x):
    return tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x), logits=x)


def naive_gaussian_kl(mq, lq, mp, lp):
    var_q, var_p = tf.exp(lq), tf.exp(lp)
    return 0.5 * tf.reduce_sum(tf.math.log(var_p / var_q) + (var_q + tf.square(mq - mp)) / var_p - 1, axis=-1)


def speed_cases(dtype):
    """(name, ours, reference, label, args); the softmax family in every dtype, the rest in float32."""
    x = tf.cast(tf.random.normal([4096, 4096]), dtype)
    labels = tf.cast(tf.nn.softmax(tf.random.normal([4096, 4096])), dtype)
    weights = tf.cast(tf.random.uniform([4096, 4096]) * tf.cast(tf.random.uniform([4096, 4096]) > 0.2, tf.float32),
                      dtype)
    cases = [
        ("softmax", rc.softmax, tf.nn.softmax, "tf.nn.softmax", [x]),
        ("log_softmax", rc.log_softmax, tf.nn.log_softmax, "tf.nn.log_softmax", [x]),
        ("softmax_cross_entropy", rc.softmax_cross_entropy, tf.nn.softmax_cross_entropy_with_logits,
         "fused xent kernel", [labels, x]),
        ("softmax_entropy", rc.softmax_entropy, entropy_via_fused_xent, "xent(softmax(x), x)", [x]),
        ("weighted_logsumexp", lambda w, a: rc.weighted_logsumexp(a, w, axis=-1),
         lambda w, a: tf.reduce_logsumexp(a + tf.math.log(w), axis=-1), "logsumexp(x + log w)", [weights, x]),
        ("gaussian_kl", lambda *a: rc.gaussian_kl(a[:2], a[2:]), naive_gaussian_kl, "variance form",
         [tf.cast(tf.random.normal([4096, 4096]), dtype) for _ in range(4)]),
        ("leaky_relu", rc.leaky_relu, tf.nn.leaky_relu, "tf.nn.leaky_relu", [x]),
    ]
    if dtype == tf.float32:
        cases += [(f"{n} fwd+bwd", with_grad(o), with_grad(r), lab, a) for n, o, r, lab, a in cases[:5]]
        gather_t, gather_i = tf.random.normal([1024, 512, 64]), tf.random.uniform([1024, 128], 0, 512, tf.int32)
        cases += [
            ("softmax axis=None", lambda a: rc.softmax(a, axis=None),
             lambda a: tf.reshape(tf.nn.softmax(tf.reshape(a, [-1])), tf.shape(a)), "flat tf.nn.softmax", [x]),
            ("reshape [[0,1]]", lambda a: rc.reshape(a, [[0, 1]]), lambda a: tf.reshape(a, [-1]), "tf.reshape", [x]),
            ("batch_gather", rc.batch_gather, lambda t, i: tf.gather(t, i, batch_dims=1), "tf.gather(batch_dims=1)",
             [gather_t, gather_i]),
            ("reduce_sum axis=-1", lambda a: rc.reduce_sum(a, -1), lambda a: tf.reduce_sum(a, -1), "tf.reduce_sum",
             [x]),
            ("reduce_max axis=-1", lambda a: rc.reduce_max(a, -1), lambda a: tf.reduce_max(a, -1), "tf.reduce_max",
             [x]),
            ("with_assertions", lambda a: rc.with_assertions(a * 2, tf.debugging.assert_all_finite(a, "a")),
             assert_then_double, "control_dependencies", [x]),
            ("make_parallel (2 devices)", lambda a: rc.make_parallel(lambda x: x * 2, DEVICES, x=a),
             lambda a: a * 2, "one device, no split", [x]),
        ]
    return cases


def assert_then_double(x):
    with tf.control_dependencies([tf.debugging.assert_all_finite(x, "a")]):
        return x * 2


def timings(fns, args, repeats):
    """Per-round seconds of each fn, called in alternation after one warm-up call each."""
    samples = [[] for _ in fns]
    for fn in fns:
        fn(*args)
    for _ in range(repeats):
        for fn, own in zip(fns, samples):
            start = time.perf_counter()
            tf.nest.map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else t, fn(*args))
            own.append(time.perf_counter() - start)
    return [np.array(s) for s in samples]


def speed_table(dtypes, pattern, repeats, xla):
    print(f"\nSpeed on {tf.config.list_physical_devices('CPU')[0].name}, {repeats} alternating rounds; "
          "ms = median; ratio = median ours / median ref [range of per-round ratios]")
    modes = ["eager", "tf.function"] + (["XLA"] if xla else [])  # XLA: float32 only
    print(f"{'case':30} {'dtype':9} {'reference':24} " + " ".join(f"{m + ' ms ours/ref':>22} {'ratio':>17}"
                                                                  for m in modes))
    for dtype in dtypes:
        for name, ours, reference, label, args in speed_cases(tf.as_dtype(dtype)):
            if pattern not in name:
                continue
            cells = []
            for mode in modes if dtype == "float32" else modes[:2]:
                if mode == "eager":
                    fns = [ours, reference]
                else:
                    fns = [tf.function(f, autograph=False, jit_compile=mode == "XLA") for f in (ours, reference)]
                try:
                    mine, theirs = timings(fns, args, repeats)
                except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError, NotImplementedError):
                    cells.append(f"{'not supported':>22} {'':>17}")
                    continue
                low, high = (mine / theirs).min(), (mine / theirs).max()
                cells.append(f"{1e3 * np.median(mine):9.2f} /{1e3 * np.median(theirs):9.2f}  "
                             f"{np.median(mine) / np.median(theirs):5.2f} [{low:4.2f}-{high:4.2f}]")
            print(f"{name:30} {dtype:9} {label:24} " + " ".join(cells), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accuracy", action="store_true", help="only the accuracy table")
    parser.add_argument("--speed", action="store_true", help="only the speed table")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--filter", default="", help="only cases whose name contains this text")
    parser.add_argument("--dtypes", default="float32,float16,bfloat16,float64")
    parser.add_argument("--no-xla", action="store_true")
    args = parser.parse_args(argv)
    dtypes = args.dtypes.split(",")
    print(f"TensorFlow {tf.__version__}, NumPy long double eps {np.finfo(LD).eps:.1e}, load {os.getloadavg()}")
    if not args.speed:
        accuracy_table(dtypes, args.filter)
    if not args.accuracy:
        speed_table(dtypes, args.filter, args.repeats, not args.no_xla)
    print(f"load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
