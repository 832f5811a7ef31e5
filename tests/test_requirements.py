"""The TensorFlow versions a project supports: requirement files, the tensorflow-version key,
and what TFE102 makes of them in every front end."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfe_testing import findings, fixed
from tflint_effective.frontends.cli import main
from tflint_effective.frontends.flake8_plugin import Plugin
from tflint_effective.frontends.requirements import Declared, in_text, parse

ROOT = Path(__file__).resolve().parent.parent
SOURCE = "import tensorflow as tf\ny = tf.reduce_sum(x, reduction_indices=[1], keep_dims=True)\n"


@pytest.mark.parametrize("spec, expected", [
    (">=1.4,<2", ((1, 4), (2,))),
    (">=1.10,<2.0", ((1, 10), (2,))),  # 2.0 is 2
    ("==1.0.1", ((1, 0, 1), (1, 0, 2))),
    ("==1.4.*", ((1, 4), (1, 5))),
    ("=1.0.1", ((1, 0, 1), (1, 0, 2))),  # conda
    ("~=1.4", ((1, 4), (2,))),
    ("~=1.4.0", ((1, 4), (1, 5))),
    ("^1.15", ((1, 15), (2,))),  # poetry
    ("^0.12", ((0, 12), (0, 13))),
    ("<2", (None, (2,))),
    (">=2.4", ((2, 4), None)),
    ("!=1.5", None),
    ("1.4", None),
    ("latest", None),
])
def test_specifiers(spec, expected):
    assert parse(spec) == expected


@pytest.mark.parametrize("text, expected", [
    ("numpy\ntensorflow-gpu==1.4.0  # the GPU build\ntensorflow-probability>=0.7\n", ((1, 4), (1, 4, 1))),
    ("setup(install_requires=['numpy', 'tensorflow>=1.10,<2.0', 'tensorflow_datasets'])", ((1, 10), (2,))),
    ("dependencies:\n  - tensorflow-gpu=1.0.1\n  - pip:\n    - tensorflow==1.3\n", ((1, 0, 1), (1, 4))),
    ('[packages]\ntensorflow = "==1.4"\n', ((1, 4), (1, 5))),
    ('[tool.poetry.dependencies]\ntensorflow = "^1.15"\n', ((1, 15), (2,))),
    ("Requires-Dist: tensorflow (>=1.4)\n", ((1, 4), None)),
    ("tensorflow >= 1.10.0, < 2.0.0\n", ((1, 10), (2,))),
    ("- pip:\n  - https://storage.googleapis.com/tensorflow/linux/gpu/tensorflow_gpu-1.0.1-cp35-cp35m-linux_x86_64.whl"
     "; 'linux' in sys_platform\n", ((1, 0, 1), (1, 0, 2))),
    # a Dockerfile's base image or pip install
    ("FROM tensorflow/tensorflow:1.8.0-gpu-py3\nRUN pip install keras==2.1\n", ((1, 8), (1, 8, 1))),
    ("FROM nvidia/cuda:9.0-cudnn7-runtime\nRUN pip install tensorflow-gpu==1.12.0 scipy\n", ((1, 12), (1, 12, 1))),
    ("FROM tensorflow/tensorflow:latest-gpu\n", None),
    # an upper bound only when every mention has one
    ("tensorflow>=2.0\ntensorflow-gpu==1.3\n", ((1, 3), None)),
    # no version, other packages, code
    ("tensorflow\ntensorflow-addons==0.9\nimport tensorflow\nif tensorflow.__version__ >= '1.4':\n", None),
])
def test_mentions_in_requirement_files(text, expected):
    assert in_text(text) == expected


def test_the_closest_directory_that_declares_a_version_wins(tmp_path):
    (tmp_path / "requirements.txt").write_text("tensorflow==1.3\n")
    (tmp_path / "sub" / "inner").mkdir(parents=True)
    (tmp_path / "sub" / "setup.py").write_text("setup(install_requires=['numpy'])\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "environment.yml").write_text("dependencies:\n  - tensorflow=1.0\n")
    (tmp_path / "other" / "requirements-gpu.txt").write_text("tensorflow-gpu>=1.2,<2\n")
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "Dockerfile").write_text("FROM tensorflow/tensorflow:1.15.5-gpu\n")
    declared = Declared()
    assert declared.at(str(tmp_path / "docker")) == ((1, 15, 5), (1, 15, 6))
    assert declared.at(str(tmp_path / "sub" / "inner")) == ((1, 3), (1, 4))  # setup.py names no version
    assert declared.at(str(tmp_path / "other")) == ((1,), (2,))
    (tmp_path / "requirements.txt").write_text("tensorflow>=2.4\n")
    assert declared.at(str(tmp_path / "sub")) == ((1, 3), (1, 4))  # remembered per directory
    assert Declared().at(str(tmp_path / "sub")) == ((2, 4), None)


@pytest.mark.parametrize("versions, severities, fixes", [
    (None, ["warning", "warning"], [True, True]),
    (((2, 4), None), ["warning", "warning"], [True, True]),
    (((1, 5), None), ["warning", "warning"], [True, True]),
    (((1, 0), None), ["warning", "warning"], [True, False]),  # keepdims needs TF 1.5
    (((0, 12), None), ["warning", "warning"], [False, False]),  # axis needs TF 1.0
    (((1, 10), (2,)), ["info", "info"], [True, True]),  # never meets TF2: the old names work
    (((1, 0, 1), (1, 0, 2)), ["info", "info"], [True, False]),
])
def test_tfe102_follows_the_supported_versions(versions, severities, fixes):
    from tflint_effective.engine.lint import lint_source

    found = lint_source(SOURCE, select=["TFE102"], tensorflow_versions=versions)
    assert [(d.line, d.col) for d in found] == [(2, 21), (2, 44)]
    assert [d.severity for d in found] == severities
    assert [d.fix is not None for d in found] == fixes


def test_messages_say_why(tmp_path):
    from tflint_effective.engine.lint import lint_source

    old = lint_source(SOURCE, select=["TFE102"], tensorflow_versions=((1, 3), (1, 4)))
    assert old[1].message == ("`keep_dims=` is deprecated, removed in TF2; use `keepdims=` once the project "
                              "drops TensorFlow 1.3, which lacks it (the project's requirements exclude TF2)")
    assert old[0].message == ("`reduction_indices=` is deprecated, removed in TF2; use `axis=` "
                              "(the project's requirements exclude TF2)")


STRAY_TF1_NAME = ("import tensorflow as tf\n\ndef post(masks):\n    n = tf.count_nonzero(masks)\n"
                  "    if tf.size(masks) == 0:\n        return n\n    return masks\n")


@pytest.mark.parametrize("source, versions, expected", [
    (STRAY_TF1_NAME, None, [(5, 7)]),  # a TF 1.x-only name: TF1 graph code, where `==` compares identities
    (STRAY_TF1_NAME, ((1, 15), (2,)), [(5, 7)]),
    (STRAY_TF1_NAME, ((2, 9), None), []),  # in a TF2 project: a latent AttributeError, eager code
    (STRAY_TF1_NAME.replace("tf.count_nonzero(masks)", "tf.nn.softmax(masks, dim=1)"), ((2, 9), None), []),
    (STRAY_TF1_NAME.replace("tf.count_nonzero(masks)", "tf.placeholder(tf.float32)"), ((2, 9), None),
     [(5, 7)]),  # a graph API still says graph code, whatever the requirements
])
def test_a_tf2_project_reads_stray_tf1_names_as_no_mode_signal(source, versions, expected):
    from tflint_effective.engine.lint import lint_source

    found = lint_source(source, select=["TFE302"], tensorflow_versions=versions)
    assert [(d.line, d.col) for d in found] == expected


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text(SOURCE)
    return tmp_path


def _check(capsys, *argv):
    status = main(["check", "-q", "--no-cache", "--severity", "info", *argv])
    return status, [line.split(" [")[0] + " " + line.split(" [")[1].split("]")[0]
                    for line in capsys.readouterr().out.splitlines()]


def test_the_cli_reads_requirement_files_and_the_key_overrides_them(project, capsys):
    warnings = ["src/model.py:2:22: TFE102 warning", "src/model.py:2:45: TFE102 warning"]
    infos = ["src/model.py:2:22: TFE102 info", "src/model.py:2:45: TFE102 info"]
    assert _check(capsys, "src") == (1, warnings)
    (project / "requirements.txt").write_text("tensorflow-gpu==1.3.0\n")
    assert _check(capsys, "src") == (1, infos)
    assert _check(capsys, "src", "--isolated") == (1, infos)  # facts about the project, not configuration
    assert _check(capsys, "src", "--tensorflow-version", ">=2.4") == (1, warnings)
    (project / "pyproject.toml").write_text('[tool.tflint-effective]\ntensorflow-version = ">=1.5"\n')
    assert _check(capsys, "src") == (1, warnings)
    assert main(["fix", "src"]) == 1  # changed a file
    assert (project / "src" / "model.py").read_text() == SOURCE.replace("reduction_indices", "axis").replace(
        "keep_dims", "keepdims")


def test_fix_keeps_a_keyword_the_oldest_supported_release_lacks(project, capsys):
    (project / "setup.py").write_text("setup(install_requires=['tensorflow>=1.2'])\n")
    assert main(["fix", "-q", "--severity", "info", "src"]) == 1
    assert (project / "src" / "model.py").read_text() == SOURCE.replace("reduction_indices", "axis")


def test_a_bad_key_is_a_configuration_error(project, capsys):
    (project / "setup.cfg").write_text("[tflint-effective]\ntensorflow-version = newest\n")
    assert main(["check", "src"]) == 2
    assert capsys.readouterr().err == ("tflint-effective: setup.cfg: [tflint-effective] tensorflow-version: "
                                       "expected a version specifier such as \">=1.4,<2\" or \"==1.15\", "
                                       "got 'newest'\n")


def test_the_flake8_plugin_reads_them_too(tmp_path, monkeypatch):
    (tmp_path / "requirements.txt").write_text("tensorflow<2\n")
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    monkeypatch.setattr(Plugin, "declared", Declared())
    monkeypatch.setattr(Plugin, "use_cache", False)
    monkeypatch.setattr(Plugin, "severity", "info")

    def severities():
        return [text.split()[0] for _, _, text, _ in Plugin(ast.parse(SOURCE), SOURCE.splitlines(True),
                                                               str(path)).run()]

    assert severities() == ["TFE102", "TFE102"]
    monkeypatch.setattr(Plugin, "severity", "warning")
    assert severities() == []  # info: the project never runs TF2
    monkeypatch.setattr(Plugin, "tensorflow_versions", ((2, 4), None))
    assert severities() == ["TFE102", "TFE102"]


def test_flake8_option(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "flake8", "--isolated", "--select", "TFE", "--tfe-no-cache", "m.py"]
    runs = [subprocess.run(command + extra, cwd=tmp_path, capture_output=True, text=True, env=env)
            for extra in ([], ["--tfe-tensorflow-version", "<2"], ["--tfe-tensorflow-version", "two"])]
    assert runs[0].stdout.count("TFE102") == 2 and runs[1].stdout == ""
    assert "--tfe-tensorflow-version: expected a version specifier" in runs[2].stderr
