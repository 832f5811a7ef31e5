"""The TFE401-TFE405 fixtures executed in eager mode, inside tf.function and in graph mode.

Every case of a fixture (the functions in good.py's ``CASES``, which bad.py defines
under the same names) runs at the fixture's ``LOGITS`` in float32 and float16.
bad.py must give a non-finite value or gradient in every mode and dtype; good.py must
give finite values and gradients equal to bad.py's own formula run in float64, where
those logits are not yet extreme (exp overflows at 709).  The fixed bad.py runs good.py's
ops, so it is checked against the same reference in eager mode only (time).
Gradients are of ``sum(value * w)`` with distinct weights, so that a softmax's zero-sum
gradient cannot pass vacuously.
"""
import numpy as np
import pytest

from tfe_testing import FIXTURES, load_module
from tflint_effective.analysis import numeric_patterns
from tflint_effective.engine.fix import fix_source
from tflint_effective.rules import log_of_sigmoid, log_of_sum_exp, naive_softmax

NAMES = ["naive_softmax", "log_of_softmax", "handwritten_cross_entropy", "log_of_sigmoid",
         "log_of_sum_exp"]
TOLERANCE = {"float32": 1e-5, "float16": 2e-2}


@pytest.fixture(scope="module")
def programs(tf, tmp_path_factory):
    """name -> (bad, good, fixed bad) modules."""
    loaded = {}
    for name in NAMES:
        fixed = tmp_path_factory.mktemp(name) / "fixed.py"
        fixed.write_text(fix_source((FIXTURES / name / "bad.py").read_text()).source)
        loaded[name] = (load_module(FIXTURES / name / "bad.py"),
                        load_module(FIXTURES / name / "good.py"),
                        load_module(fixed, f"fixed_numerics_{name}"))
    return loaded


def evaluate(tf, module, names, dtype, mode):
    """{case: (value, gradient)} as float64 arrays, computed in ``mode``."""
    def body(logits):
        results = {}
        for name in names:
            with tf.GradientTape() as tape:
                tape.watch(logits)
                value = module.CASES[name](logits)
                weights = tf.reshape(tf.range(1, tf.size(value) + 1), tf.shape(value))
                loss = tf.reduce_sum(value * tf.cast(weights, value.dtype))
            results[name] = (value, tape.gradient(loss, logits))
        return results

    if mode == "eager":
        results = body(tf.constant(module.LOGITS, dtype))
    elif mode == "function":
        # The cases are straight-line code, which autograph leaves as it is; converting them
        # anyway triples the trace time.
        results = tf.function(body, autograph=False)(tf.constant(module.LOGITS, dtype))
    else:
        with tf.Graph().as_default():
            graph_results = body(tf.constant(module.LOGITS, dtype))
            with tf.compat.v1.Session() as session:
                results = session.run(graph_results)
    return {name: tuple(np.asarray(t, np.float64) for t in pair) for name, pair in results.items()}


@pytest.fixture(scope="module")
def references(tf, programs):
    """name -> bad.py's cases run in float64 (eager), where they are still exact."""
    return {name: evaluate(tf, bad, sorted(good.CASES), "float64", "eager")
            for name, (bad, good, _) in programs.items()}


def assert_matches(results, reference, dtype, variant):
    for case, expected_pair in reference.items():
        for part, actual, expected in zip(("value", "gradient"), results[case], expected_pair):
            np.testing.assert_allclose(actual, expected, rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype],
                                       err_msg=f"{variant} {case} {part} ({dtype})")


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", ["eager", "function", "graph"])
@pytest.mark.parametrize("name", NAMES)
def test_bad_breaks_and_good_matches_the_float64_reference(tf, programs, references, name, mode, dtype):
    bad, good, _ = programs[name]
    reference = references[name]
    for case, pair in reference.items():
        assert all(np.isfinite(part).all() for part in pair), f"reference {case}"
    broken = evaluate(tf, bad, sorted(reference), dtype, mode)
    for case, pair in broken.items():
        assert not all(np.isfinite(part).all() for part in pair), f"bad {case} is finite ({dtype})"
    assert_matches(evaluate(tf, good, sorted(reference), dtype, mode), reference, dtype, "good")


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name", NAMES)
def test_fixed_bad_matches_the_float64_reference(tf, programs, references, name, dtype):
    # Eager only: the fixed code runs good.py's ops, which the modes above exercise.
    fixed = programs[name][2]
    reference = references[name]
    assert_matches(evaluate(tf, fixed, sorted(reference), dtype, "eager"), reference, dtype, "fixed")


@pytest.mark.parametrize("path", [
    *naive_softmax.CURE, *numeric_patterns.CURE_LOG_SOFTMAX, *log_of_sigmoid.CURE, *log_of_sum_exp.CURE])
@pytest.mark.parametrize("api", ["v2", "v1"])
def test_every_name_a_fix_can_spell_exists_in_both_apis(tf, path, api):
    module = tf if api == "v2" else tf.compat.v1
    for part in path.split("."):
        module = getattr(module, part)
    assert callable(module)
