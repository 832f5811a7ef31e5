"""The flake8 plugin as flake8 calls it (parity with the CLI: test_flake8_parity.py)."""
import ast
import os
import subprocess
import sys

from tflint_effective.frontends.flake8_plugin import Plugin
from tfe_testing import ROOT


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


# -- the cache shared with the CLI -----------------------------------------------------
_RUN_TWICE = (
    "import ast, json, sys\n"
    "from tflint_effective.frontends.flake8_plugin import Plugin\n"
    "source = open(sys.argv[1], encoding='utf-8').read()\n"
    "Plugin.use_cache = sys.argv[2] == 'cache'\n"
    "found = [t[:3] for t in Plugin(ast.parse(source), source.splitlines(True), sys.argv[1]).run()]\n"
    "print(json.dumps([found, 'libcst' in sys.modules]))\n"
)
SQUEEZE = "tf.squeeze(tf.keras.layers.Dense(1)(x))"
TF_SOURCE = f"import tensorflow as tf\ny = {SQUEEZE}\nz = {SQUEEZE}\n"


def _plugin_process(path, cache="cache"):
    """(findings, whether libcst was imported) of the plugin on ``path`` in a fresh process."""
    import json

    done = subprocess.run([sys.executable, "-c", _RUN_TWICE, str(path), cache], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    found, loaded = json.loads(done.stdout)
    return [tuple(item) for item in found], loaded


def _entries():
    import pathlib

    return sorted(pathlib.Path(os.environ["TFLINT_EFFECTIVE_CACHE_DIR"]).rglob("*.json"))


def test_a_warm_run_is_served_from_the_cache_without_libcst(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(TF_SOURCE)
    cold = _plugin_process(path)
    assert [item[:2] for item in cold[0]] == [(2, 4), (3, 4)] and cold[1] is True
    assert len(_entries()) == 1
    warm = _plugin_process(path)
    assert warm == (cold[0], False)  # the same findings, libcst never imported


def test_an_edited_file_is_linted_again(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(TF_SOURCE)
    assert len(_plugin_process(path)[0]) == 2
    path.write_text(TF_SOURCE + f"w = {SQUEEZE}\n")
    found, loaded = _plugin_process(path)
    assert [item[0] for item in found] == [2, 3, 4] and loaded is True
    assert len(_entries()) == 2


def test_no_cache_neither_reads_nor_writes(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(TF_SOURCE)
    found, loaded = _plugin_process(path, cache="no cache")
    assert len(found) == 2 and loaded is True and _entries() == []
    _plugin_process(path)
    assert _plugin_process(path, cache="no cache")[1] is True  # an entry exists, but is not read


def test_a_damaged_entry_is_a_miss_and_is_replaced(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(TF_SOURCE)
    cold = _plugin_process(path)
    [entry] = _entries()
    entry.write_text('{"format": 2, "findings": [')
    assert _plugin_process(path) == cold  # linted again (libcst loaded)
    assert _plugin_process(path) == (cold[0], False)  # and stored again


def test_the_severity_and_options_are_part_of_the_key(tmp_path, monkeypatch):
    source = "import tensorflow as tf\nx = tf.reduce_sum(y)\n"  # an info-level finding
    lines = source.splitlines(True)

    def run(**options):
        for name, value in options.items():
            monkeypatch.setattr(Plugin, name, value)
        return [text.split()[0] for _, _, text, _ in Plugin(ast.parse(source), lines, str(tmp_path / "m.py")).run()]

    assert run(severity="info") == ["TFE101"]
    assert run(severity="warning") == []  # an entry of its own: info findings are not computed
    assert run(severity="info") == ["TFE101"]
    assert len(_entries()) == 2
    run(function_decorators=("my_function",))
    assert len(_entries()) == 3


def test_flake8_honours_the_cache_option(tmp_path):
    (tmp_path / "m.py").write_text(TF_SOURCE)
    command = [sys.executable, "-m", "flake8", "--isolated", "--select", "TFE", "m.py"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's plugin, wherever flake8 runs
    runs = [subprocess.run(command + extra, cwd=tmp_path, capture_output=True, text=True, env=env)
            for extra in (["--tfe-no-cache"], [], [])]
    assert [len(_entries())] == [1]
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout != ""
