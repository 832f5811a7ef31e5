"""The flake8 plugin as flake8 calls it (parity with the CLI: test_flake8_parity.py)."""
import ast
import subprocess
import sys

from tflint_effective.frontends.flake8_plugin import Plugin


def test_plugin_yields_flake8_tuples_and_leaves_noqa_to_flake8():
    source = "import tensorflow as tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))  # noqa\n"
    lines = source.splitlines(keepends=True)
    found = list(Plugin(ast.parse(source), lines, "m.py").run())
    assert [(line, col, text.split()[0]) for line, col, text, _ in found] == [(2, 4, "TFE103")]
    assert found[0][3] is Plugin


def test_plugin_skips_files_that_never_mention_tensorflow():
    source = "import numpy as np\ny = np.squeeze(x)\n"
    assert list(Plugin(ast.parse(source), source.splitlines(True), "m.py").run()) == []


def test_plugin_accepts_tree_so_flake8_runs_it_as_a_tree_plugin():
    import inspect

    assert list(inspect.signature(Plugin).parameters)[:2] == ["tree", "lines"]


def test_plugin_loads_libcst_only_for_tensorflow_files_then_freezes_what_is_alive():
    program = (
        "import ast, gc, sys\n"
        "from tflint_effective.frontends.flake8_plugin import Plugin\n"
        "def run(source):\n"
        "    return len(list(Plugin(ast.parse(source), source.splitlines(True), 'm.py').run()))\n"
        "print(run('import numpy as np\\ny = np.squeeze(x)\\n'), 'libcst' in sys.modules, gc.get_freeze_count() > 0)\n"
        "print(run('import tensorflow as tf\\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\\n'), 'libcst' in sys.modules, gc.get_freeze_count() > 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.stdout.splitlines() == ["0 False False", "1 True True"], done.stderr
