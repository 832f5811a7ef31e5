"""Project-level promises: CI runs the README's command, docs are current, no TensorFlow import."""
import re
import subprocess
import sys

from tfe_testing import ROOT
from tflint_effective.frontends import docs


def readme():
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_ci_runs_exactly_the_readme_test_command():
    blocks = re.findall(r"```sh\n(.*?)\n```", readme(), re.S)
    test_command = next(b for b in blocks if "pytest" in b)
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines


def test_readme_rule_table_is_current():
    assert docs.with_rule_table(readme()) == readme(), "run: python -m tflint_effective.frontends.docs"


def test_importing_the_linter_does_not_import_tensorflow():
    code = ("import sys, tflint_effective, tflint_effective.frontends.cli, tflint_effective.frontends.flake8_plugin\n"
            "from tflint_effective import lint_source\n"
            "lint_source('import tensorflow as tf\\ntf.reduce_sum(x)\\n')\n"
            "assert 'tensorflow' not in sys.modules, 'tensorflow was imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
