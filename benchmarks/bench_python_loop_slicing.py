"""TFE201: summing the rows of a matrix by slicing it in a Python loop, versus one reduction.

Prints, for eager mode and tf.function, the time of the bad form (``z += x[i]``
per row), of ``tf.unstack`` and of ``tf.reduce_sum(x, axis=0)``, their ratios,
and the graph size each form traces to.  Timings vary by machine; nothing here
is asserted.

    python benchmarks/bench_python_loop_slicing.py [ROWS]
"""
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402


def sliced(x):
    z = tf.zeros(x.shape[1:])
    for i in range(x.shape[0]):
        z += x[i]
    return z


def unstacked(x):
    z = tf.zeros(x.shape[1:])
    for row in tf.unstack(x):
        z += row
    return z


def reduced(x):
    return tf.reduce_sum(x, axis=0)


def best_time(fn, x, repeats=5):
    fn(x)  # warm up (and trace, for tf.function)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(x).numpy()
        times.append(time.perf_counter() - start)
    return min(times)


def main(rows=500):
    x = tf.random.uniform([rows, 10])
    forms = {"sliced": sliced, "unstacked": unstacked, "reduced": reduced}
    print(f"{rows} x 10 matrix, sum of the rows (best of 5 runs)")
    for mode in ("eager", "tf.function"):
        timings = {}
        for name, form in forms.items():
            fn = form if mode == "eager" else tf.function(form)
            if mode == "tf.function":
                start = time.perf_counter()
                fn(x).numpy()
                ops = len(fn.get_concrete_function(x).graph.get_operations())
                print(f"  {mode:11} {name:9} first call {time.perf_counter() - start:8.4f} s, "
                      f"{ops} graph ops")
            timings[name] = best_time(fn, x)
            print(f"  {mode:11} {name:9} {timings[name] * 1e3:10.3f} ms")
        print(f"  {mode}: sliced / reduced = {timings['sliced'] / timings['reduced']:.0f}x, "
              f"sliced / unstacked = {timings['sliced'] / timings['unstacked']:.1f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
