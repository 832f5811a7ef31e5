"""ruff's model: each file takes the configuration closest to it, globs are relative to that
configuration's directory, so findings do not depend on the working directory or the order
of the paths; --force-exclude, .gitignore / .ignore and tool folders."""
import builtins
import json
import sys

import pytest

from tflint_effective.engine.lint import lint_source
from tflint_effective.frontends.cli import main
from tflint_effective.frontends.config import ConfigError, Resolver, load

BAD = "import tensorflow as tf\nm = tf.reduce_mean(x, reduction_indices=[1])\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\n"
FOUND = {d.code: d for d in lint_source(BAD)}  # severities are the rules' business, not tested here


def lines(path, *codes):
    """The text lines ``check`` prints for BAD at ``path``."""
    return "".join(f"{path}:{FOUND[c].line}:{FOUND[c].col + 1}: {c} [{FOUND[c].severity}] {FOUND[c].message}\n"
                   for c in codes)


def check(capsys, *argv):
    status = main(["check", "-q", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return status, out


@pytest.fixture
def project(tmp_path, monkeypatch):
    """project/pyproject.toml ignoring TFE103 in tests/ and excluding legacy/ and gen_*.py."""
    root = tmp_path / "project"
    for folder in ("src", "tests/unit", "legacy", "other"):
        (root / folder).mkdir(parents=True)
    for name in ("src/m.py", "tests/unit/t.py", "legacy/old.py", "src/gen_x.py", "other/m.py"):
        (root / name).write_text(BAD)
    (root / "pyproject.toml").write_text(
        '[tool.tflint-effective]\nexclude = ["legacy", "src/gen_*.py"]\n'
        '[tool.tflint-effective.per-file-ignores]\n"tests/*" = ["TFE103"]\n')
    monkeypatch.chdir(root)
    return root


def test_globs_are_relative_to_the_configuration_whatever_the_working_directory(project, capsys, monkeypatch):
    expected_at_root = (lines("other/m.py", "TFE102", "TFE103") + lines("src/m.py", "TFE102", "TFE103")
                        + lines("tests/unit/t.py", "TFE102"))
    assert check(capsys, ".") == (1, expected_at_root)
    monkeypatch.chdir(project / "tests")
    assert check(capsys, ".") == (1, lines("unit/t.py", "TFE102"))
    assert check(capsys, "unit/t.py") == (1, lines("unit/t.py", "TFE102"))
    monkeypatch.chdir(project / "src")
    assert check(capsys, ".") == (1, lines("m.py", "TFE102", "TFE103"))  # gen_x.py excluded from here too
    assert check(capsys, "../legacy/old.py") == (1, lines("../legacy/old.py", "TFE102", "TFE103"))  # named
    monkeypatch.chdir(project.parent)
    assert check(capsys, "project/tests") == (1, lines("project/tests/unit/t.py", "TFE102"))
    assert check(capsys, str(project / "tests")) == (1, lines(project / "tests/unit/t.py", "TFE102"))


def test_the_closest_configuration_wins_per_file_whatever_the_order_of_the_paths(project, capsys):
    (project / "other" / "setup.cfg").write_text("[tflint-effective]\nselect = TFE103\n")
    first = check(capsys, "src/m.py", "other/m.py")
    second = check(capsys, "other/m.py", "src/m.py")
    assert first == (1, lines("src/m.py", "TFE102", "TFE103") + lines("other/m.py", "TFE103"))
    assert second == (1, lines("other/m.py", "TFE103") + lines("src/m.py", "TFE102", "TFE103"))
    (project / "other" / "setup.cfg").write_text("[tflint-effective]\nselect = TFE2\n")
    assert check(capsys, "other/m.py", "tests/unit/t.py")[0] == check(capsys, "tests/unit/t.py", "other/m.py")[0] == 1
    assert check(capsys, "other/m.py") == (0, "")


def test_per_file_configuration_reaches_worker_processes(project, capsys):
    (project / "other" / "setup.cfg").write_text("[tflint-effective]\nselect = TFE103\n")
    assert check(capsys, "--jobs", "2", "other", "tests") == (
        1, lines("other/m.py", "TFE103") + lines("tests/unit/t.py", "TFE102"))


def test_command_line_keys_apply_to_every_configuration(project, capsys):
    (project / "other" / "setup.cfg").write_text("[tflint-effective]\nselect = TFE103\n")
    assert check(capsys, "--select", "TFE102", "other", "src") == (
        1, lines("other/m.py", "TFE102") + lines("src/m.py", "TFE102"))
    # --exclude globs are relative to the working directory and replace the configured ones
    assert check(capsys, "--exclude", "src/m.py", "src") == (1, lines("src/gen_x.py", "TFE102", "TFE103"))


def test_a_path_is_linted_once(project, capsys):
    assert check(capsys, "src", "src/m.py", "./src/m.py") == (1, lines("src/m.py", "TFE102", "TFE103"))


def test_force_exclude_applies_exclude_to_named_files(project, capsys):
    assert check(capsys, "legacy/old.py", "src/gen_x.py") == (
        1, lines("legacy/old.py", "TFE102", "TFE103") + lines("src/gen_x.py", "TFE102", "TFE103"))
    assert check(capsys, "--force-exclude", "legacy/old.py", "src/gen_x.py", "src/m.py") == (
        1, lines("src/m.py", "TFE102", "TFE103"))
    assert check(capsys, "--force-exclude", "legacy") == (0, "")
    (project / ".ipynb_checkpoints").mkdir()
    (project / ".ipynb_checkpoints" / "m.py").write_text(BAD)
    assert check(capsys, "--force-exclude", ".ipynb_checkpoints/m.py") == (0, "")
    assert check(capsys, ".ipynb_checkpoints/m.py")[0] == 1


def test_configuration_named_by_config_has_globs_relative_to_its_directory(project, capsys, monkeypatch):
    (project / "lint").mkdir()
    (project / "lint" / "strict.toml").write_text(
        '[tool.tflint-effective]\nselect = ["TFE102"]\nexclude = ["../src/gen_*.py"]\n'
        '[tool.tflint-effective.per-file-ignores]\n"../other/*" = ["TFE102"]\n')
    monkeypatch.chdir(project / "src")
    assert check(capsys, "--config", "../lint/strict.toml", ".", "../other") == (1, lines("m.py", "TFE102"))


def test_gitignore_and_ignore_files_are_respected_when_walking(project, capsys):
    (project / "src" / "generated").mkdir()
    (project / "src" / "generated" / "g.py").write_text(BAD)
    (project / "src" / "keep.py").write_text(BAD)
    (project / ".gitignore").write_text("generated/\n*.py\n!m.py\n")
    (project / "src" / ".ignore").write_text("!keep.py\n")
    (project / "other" / ".gitignore").write_text("!*.py\n")
    assert check(capsys, ".") == (
        1, lines("other/m.py", "TFE102", "TFE103") + lines("src/keep.py", "TFE102", "TFE103")
        + lines("src/m.py", "TFE102", "TFE103"))
    assert check(capsys, "src/generated/g.py")[0] == 1  # named: linted
    assert check(capsys, "--no-respect-gitignore", "src")[1].count("TFE102") == 3  # gen_x.py stays excluded


def test_gitignore_above_the_repository_root_is_not_read(project, capsys):
    (project.parent / ".gitignore").write_text("*.py\n")
    assert check(capsys, "src") == (0, "")  # no repository: the parent's file applies
    (project / ".git").mkdir()
    assert check(capsys, "src") == (1, lines("src/m.py", "TFE102", "TFE103"))


def test_tool_folders_and_checkpoints_are_skipped(project, capsys):
    for folder in (".ipynb_checkpoints", ".venv", "__pypackages__", "node_modules", ".git"):
        (project / "src" / folder).mkdir()
        (project / "src" / folder / "m.py").write_text(BAD)
    (project / "src" / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text(json.dumps({"cells": []}))
    assert check(capsys, "src") == (1, lines("src/m.py", "TFE102", "TFE103"))


def test_a_broken_configuration_below_is_an_error_naming_it(project, capsys):
    (project / "other" / "pyproject.toml").write_text('[tool.tflint-effective]\nselcet = ["TFE1"]\n')
    status = main(["check", "-q", "--no-cache", "src", "other"])
    assert status == 2
    assert capsys.readouterr().err.startswith(
        "tflint-effective: other/pyproject.toml: [tool.tflint-effective]: unknown key 'selcet'")


def test_resolver_remembers_each_directory_and_survives_pickling(project):
    import pickle

    resolver = Resolver()
    config = resolver.config_for("tests/unit/t.py")
    assert config.path == project / "pyproject.toml" and config.root == str(project)
    assert pickle.loads(pickle.dumps(resolver)).config_for("src/m.py") == config
    assert repr(resolver) == repr(pickle.loads(pickle.dumps(resolver)))


def test_tomli_reads_pyproject_when_tomllib_is_missing(project, monkeypatch):
    """Python < 3.11 has no tomllib: setup.cfg requires tomli there."""
    pytest.importorskip("tomli", reason="pip install '.[test]' (tomli)")
    monkeypatch.setitem(sys.modules, "tomllib", None)  # import tomllib raises ImportError
    assert load(project / "pyproject.toml").per_file_ignores == (("tests/*", ("TFE103",)),)
    real_import = builtins.__import__

    def without_tomli(name, *args, **kwargs):
        if name == "tomli":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_tomli)
    with pytest.raises(ConfigError, match="pyproject.toml: reading TOML needs Python 3.11"):
        load(project / "pyproject.toml")
