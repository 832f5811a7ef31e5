"""Both pre-commit hooks, run for real with ``pre-commit try-repo`` on a scratch repository.

The hook repository is a commit of this working tree's package files, so the
hooks under test are the code under test.  try-repo installs the hook
environment (libcst from PyPI) afresh on every call, so each call runs both hooks.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

from tfe_testing import ROOT
from tflint_effective.registry import rule_by_code

if shutil.which("git") is None or importlib.util.find_spec("pre_commit") is None:
    pytest.skip("needs git and pre-commit", allow_module_level=True)

PACKAGE_FILES = ("setup.cfg", "pyproject.toml", "README.md", ".pre-commit-hooks.yaml")
BAD = "import tensorflow as tf\nm = tf.reduce_mean(x, reduction_indices=[1])\n"
NOTEBOOK = {
    "cells": [
        {"cell_type": "code", "execution_count": None, "id": "a", "metadata": {}, "outputs": [],
         "source": ["import tensorflow as tf"]},
        {"cell_type": "code", "execution_count": None, "id": "b", "metadata": {}, "outputs": [],
         "source": ["y = tf.reduce_sum(x, keep_dims=True, axis=0)"]},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4, "nbformat_minor": 5,
}

pytestmark = pytest.mark.slow


def dumps(notebook):
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def git(*args, cwd):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
                   cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def env(tmp_path_factory):
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    environ["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    environ["NO_COLOR"] = "1"
    return environ


@pytest.fixture
def hook_repo(tmp_path_factory):
    repo = tmp_path_factory.mktemp("hook-repo")
    for name in PACKAGE_FILES:
        shutil.copy(ROOT / name, repo / name)
    shutil.copytree(ROOT / "tflint_effective", repo / "tflint_effective",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    git("init", "-q", cwd=repo)
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "hooks under test", cwd=repo)
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True,
                         text=True).stdout.strip()
    return repo, sha


@pytest.fixture
def project(tmp_path):
    tmp_path = tmp_path / "project"
    tmp_path.mkdir()
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "legacy").mkdir()  # excluded: --force-exclude keeps the hooks off it
    (tmp_path / "legacy" / "old.py").write_text(BAD)
    (tmp_path / "pyproject.toml").write_text('[tool.tflint-effective]\nexclude = ["legacy"]\n')
    (tmp_path / "nb.ipynb").write_text(dumps(NOTEBOOK))
    git("init", "-q", cwd=tmp_path)
    git("add", ".", cwd=tmp_path)
    return tmp_path


def try_repo(project, hook_repo, env):
    """Both hooks of the manifest, in id order: the check hook, then the fix hook."""
    repo, sha = hook_repo
    done = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(repo), "--ref", sha,
                           "--all-files", "--verbose"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=900)
    return done.returncode, done.stdout + done.stderr


def hook_report(output, hook_id):
    """The lines pre-commit printed for one hook (from its status line to the next one)."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line == f"- hook id: {hook_id}") - 1
    following = (i for i in range(start + 2, len(lines)) if lines[i].startswith("- hook id: "))
    end = next(following, len(lines) + 1)
    return lines[start:end - 1]


def test_check_hook_fails_with_the_findings_and_fix_hook_rewrites_fails_once_then_passes(
        project, hook_repo, env):
    # try-repo installs a fresh hook environment per call, so both hooks share each call.
    status, output = try_repo(project, hook_repo, env)
    assert status == 1, output
    message = rule_by_code("TFE102").MESSAGE
    check = hook_report(output, "tflint-effective")
    assert check[0].startswith("tflint-effective (check)...") and check[0].endswith("Failed"), output
    assert f"bad.py:2:23: TFE102 [warning] {message.format(old='reduction_indices', new='axis')}" in check
    assert f"nb.ipynb:cell 2:1:22: TFE102 [warning] {message.format(old='keep_dims', new='keepdims')}" in check
    fix = hook_report(output, "tflint-effective-fix")
    assert fix[0].startswith("tflint-effective (fix)...") and fix[0].endswith("Failed"), output
    assert "- files were modified by this hook" in fix
    assert (project / "bad.py").read_text() == BAD.replace("reduction_indices=", "axis=")
    assert not any("legacy" in line for line in check) and (project / "legacy" / "old.py").read_text() == BAD
    fixed = json.loads(dumps(NOTEBOOK))
    fixed["cells"][1]["source"] = ["y = tf.reduce_sum(x, keepdims=True, axis=0)"]
    assert (project / "nb.ipynb").read_text() == dumps(fixed)

    git("add", ".", cwd=project)
    status, output = try_repo(project, hook_repo, env)
    assert status == 0, output
    assert hook_report(output, "tflint-effective")[0].endswith("Passed")
    assert hook_report(output, "tflint-effective-fix")[0].endswith("Passed")
