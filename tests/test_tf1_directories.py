"""The directories whose modules are written for TF 1.x, and TFE102 in their helper modules."""
import ast

import pytest

from tflint_effective.engine.lint import lint_source
from tflint_effective.frontends.cli import main
from tflint_effective.frontends.flake8_plugin import Plugin
from tflint_effective.frontends.requirements import MAX_BYTES
from tflint_effective.frontends.tf1_directories import TF1Directories

HELPER = "import tensorflow as tf\ndef norm(x):\n    return x / tf.reduce_sum(x, reduction_indices=[1])\n"
TF1_MESSAGE = ("`reduction_indices=` is deprecated, removed in TF2; use `axis=`: this directory's modules are "
               "written for TF 1.x (`train.py` spells `tf.Session`), where it still works")
TRAIN = (("train.py", "Session"),)


@pytest.mark.parametrize("siblings, expected", [
    ({"train.py": "import tensorflow as tf\nsess = tf.Session()\n"}, TRAIN),
    ({"train.py": "x = tf.placeholder(tf.float32)\nsess = tf.Session()\n", "data.py": "import os\n"},
     (("train.py", "Session"),)),  # the first name in sorted order
    ({"model.py": "y = tf.contrib.layers.flatten(x)\n", "train.py": "s = tf.Session()\n", "z.py": "tf.log(x)\n"},
     (("model.py", "contrib.layers"), ("train.py", "Session"))),  # two at most
    ({"train.py": "opt = tf.train.AdamOptimizer(0.1)\n"}, (("train.py", "train.AdamOptimizer"),)),
    # a TF2-only name anywhere in the directory: no evidence
    ({"train.py": "sess = tf.Session()\n", "new.py": "@tf.function\ndef f(x):\n    return x\n"}, ()),
    ({"train.py": "sess = tf.Session()\n", "new.py": "with tf.GradientTape() as tape:\n    pass\n"}, ()),
    # TF2 spellings, another alias, a name that only starts like a TF1 one, text that is not a module
    ({"train.py": "y = tf.math.log(x)\nckpt = tf.train.Checkpoint()\n"}, ()),
    ({"train.py": "sess = v1.Session()\nz = mytf.placeholder()\n"}, ()),
    ({"train.py": "y = tf.logits\n"}, ()),
    ({"notes.txt": "sess = tf.Session()\n"}, ()),
    ({}, ()),
])
def test_the_modules_of_a_directory_that_spell_tf1_names_when_none_spells_a_tf2_one(tmp_path, siblings, expected):
    for name, text in siblings.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "helper.py").write_text(HELPER)
    assert TF1Directories().at(str(tmp_path)) == expected


def test_large_files_are_not_read_and_answers_are_remembered(tmp_path):
    (tmp_path / "big.py").write_text("sess = tf.Session()\n" + "#" * MAX_BYTES)
    directories = TF1Directories()
    assert directories.at(str(tmp_path)) == ()
    (tmp_path / "train.py").write_text("sess = tf.Session()\n")
    assert directories.at(str(tmp_path)) == ()  # remembered
    assert TF1Directories().at(str(tmp_path)) == TRAIN
    assert TF1Directories().at(str(tmp_path / "missing")) == ()


def _found(source, path="<string>", **settings):
    return [(d.line, d.col, d.severity, d.message) for d in lint_source(source, path, select=["TFE102"], **settings)]


def test_a_helper_beside_tf1_modules_is_info_and_still_fixed():
    assert _found(HELPER, tf1_directory=TRAIN) == [(3, 32, "info", TF1_MESSAGE)]
    assert _found(HELPER) == [(3, 32, "warning", "`reduction_indices=` is deprecated (a TypeError in TF2); use "
                                                 "`axis=`")]
    moments = "import tensorflow as tf\nm, v = tf.nn.moments(x, [0], keep_dims=True)\n"
    assert _found(moments, tf1_directory=(("model.py", "contrib.layers"),)) == [(2, 29, "info", (
        "`keep_dims=` is deprecated, removed in TF2; use `keepdims=`: this directory's modules are written for "
        "TF 1.x (`model.py` spells `tf.contrib.layers`), where it still works (older TF 1.x releases lack it here: "
        "check yours)"))]


def test_a_module_is_not_its_own_evidence():
    assert _found(HELPER, path="/p/train.py", tf1_directory=TRAIN)[0][2] == "warning"
    assert _found(HELPER, path="/p/ops.py", tf1_directory=(("ops.py", "log"), ("train.py", "Session"))) == [
        (3, 32, "info", TF1_MESSAGE)]


@pytest.mark.parametrize("source", [
    HELPER + "@tf.function\ndef step(x):\n    return norm(x)\n",  # the module's own TF2 evidence
    "import tensorflow as tf\ny = tf.reduce_sum(x, axis=1, reduction_indices=1)\n",  # both: rejected everywhere
])
def test_a_module_with_tf2_evidence_or_both_keywords_stays_a_warning(source):
    assert [severity for _, _, severity, _ in _found(source, tf1_directory=TRAIN)] == ["warning"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "ops.py").write_text(HELPER)
    return tmp_path


def test_the_cli_and_fix_look_at_the_directory(project, capsys):
    assert main(["check", "-q", "--no-cache", "lib"]) == 1
    (project / "lib" / "train.py").write_text("import tensorflow as tf\nsess = tf.Session()\n")
    capsys.readouterr()
    assert main(["check", "-q", "lib"]) == 0  # info, below the default minimum severity
    assert main(["check", "-q", "--severity", "info", "lib"]) == 1
    assert capsys.readouterr().out == f"lib/ops.py:3:33: TFE102 [info] {TF1_MESSAGE}\n"
    assert main(["fix", "-q", "--severity", "info", "lib"]) == 1
    assert (project / "lib" / "ops.py").read_text() == HELPER.replace("reduction_indices", "axis")


def test_the_flake8_plugin_looks_at_the_directory(project, monkeypatch):
    monkeypatch.setattr(Plugin, "tf1_directories", TF1Directories())
    monkeypatch.setattr(Plugin, "use_cache", False)
    path = project / "lib" / "ops.py"

    def codes():
        return [text.split()[0] for _, _, text, _ in Plugin(ast.parse(HELPER), HELPER.splitlines(True),
                                                               str(path)).run()]

    assert codes() == ["TFE102"]
    (project / "lib" / "train.py").write_text("import tensorflow as tf\nsess = tf.Session()\n")
    monkeypatch.setattr(Plugin, "tf1_directories", TF1Directories())
    assert codes() == []  # info
