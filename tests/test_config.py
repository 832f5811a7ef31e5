"""Configuration files: where they are found, what each key does, and the errors for bad ones."""
import io
import sys

import pytest

from tflint_effective.frontends.cli import main
from tflint_effective.frontends.config import Config, ConfigError, discover, load
from tflint_effective.registry import rule_by_code

M101 = rule_by_code("TFE101").MESSAGE
M102 = rule_by_code("TFE102").MESSAGE.format(old="reduction_indices", new="axis")
BAD = ("import tensorflow as tf\n"
       "m = tf.reduce_mean(x, reduction_indices=[1])\n"
       "s = tf.reduce_sum(tf.ones([2, 1]) * tf.ones([2]))\n")
LINE_102 = f"src/bad.py:2:23: TFE102 [warning] {M102}"
LINE_101 = f"src/bad.py:3:5: TFE101 [warning] {M101}"


def check(capsys, *argv):
    status = main(["check", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.py").write_text(BAD)
    return tmp_path


def test_no_configuration_reports_every_rule(project, capsys):
    assert check(capsys, "src", "--select", "TFE1")[:2] == (1, f"{LINE_102}\n{LINE_101}\n")
    assert discover(project / "src") == Config()


def test_pyproject_table_selects(project, capsys):
    (project / "pyproject.toml").write_text('[tool.tflint-effective]\nselect = ["TFE102"]\n')
    assert check(capsys, "src")[:2] == (1, f"{LINE_102}\n")


def test_setup_cfg_and_tox_ini_sections(project, capsys):
    (project / "setup.cfg").write_text("[tflint-effective]\nignore = TFE102,\n    TFE2\nselect = TFE1\n")
    assert check(capsys, "src")[:2] == (1, f"{LINE_101}\n")
    (project / "setup.cfg").unlink()
    (project / "tox.ini").write_text("[tflint-effective]\nselect = TFE102\n")
    assert check(capsys, "src")[:2] == (1, f"{LINE_102}\n")


def test_closest_file_wins_and_pyproject_without_the_table_does_not_count(project, capsys):
    (project / "setup.cfg").write_text("[tflint-effective]\nselect = TFE101\n")
    (project / "src" / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n")
    (project / "src" / "tox.ini").write_text("[tflint-effective]\nselect = TFE102\n")
    assert check(capsys, "src/bad.py")[:2] == (1, f"{LINE_102}\n")
    assert discover(project / "src" / "bad.py").path == project / "src" / "tox.ini"
    (project / "src" / "tox.ini").unlink()
    assert check(capsys, "src/bad.py")[:2] == (1, f"{LINE_101}\n")


def test_pyproject_wins_over_setup_cfg_in_the_same_directory(project, capsys):
    (project / "setup.cfg").write_text("[tflint-effective]\nselect = TFE101\n")
    (project / "pyproject.toml").write_text('[tool.tflint-effective]\nselect = ["TFE102"]\n')
    assert check(capsys, "src")[:2] == (1, f"{LINE_102}\n")


def test_command_line_replaces_configured_keys(project, capsys):
    (project / "pyproject.toml").write_text('[tool.tflint-effective]\nselect = ["TFE102"]\n')
    assert check(capsys, "src", "--select", "TFE101")[:2] == (1, f"{LINE_101}\n")
    assert check(capsys, "src", "--isolated", "--select", "TFE1")[:2] == (1, f"{LINE_102}\n{LINE_101}\n")


def test_extend_select_adds_to_select(project, capsys):
    (project / "pyproject.toml").write_text(
        '[tool.tflint-effective]\nselect = ["TFE101"]\nextend-select = ["TFE102"]\n')
    assert check(capsys, "src")[:2] == (1, f"{LINE_102}\n{LINE_101}\n")


def test_exclude_and_per_file_ignores(project, capsys):
    (project / "tests").mkdir()
    (project / "tests" / "t.py").write_text(BAD)
    (project / "legacy.py").write_text(BAD)
    (project / "pyproject.toml").write_text(
        '[tool.tflint-effective]\nselect = ["TFE1"]\nexclude = ["legacy.py"]\n'
        '[tool.tflint-effective.per-file-ignores]\n"tests/*" = ["TFE101"]\n')
    assert check(capsys, ".")[:2] == (1, f"{LINE_102}\n{LINE_101}\ntests/t.py:2:23: TFE102 [warning] {M102}\n")


def test_per_file_ignores_in_setup_cfg(project, capsys):
    (project / "setup.cfg").write_text(
        "[tflint-effective]\nselect = TFE1\nper-file-ignores =\n    src/*: TFE101, TFE103\n")
    assert check(capsys, "src")[:2] == (1, f"{LINE_102}\n")


def test_minimum_severity(project, capsys):
    (project / "pyproject.toml").write_text('[tool.tflint-effective]\nseverity = "error"\n')
    assert check(capsys, "src", "--select", "TFE1") == (0, "", "No findings (1 file checked).\n")
    assert check(capsys, "src", "--select", "TFE1", "--severity", "warning")[0] == 1


def test_the_fix_command_reads_the_same_configuration(project, capsys):
    (project / "pyproject.toml").write_text('[tool.tflint-effective]\nignore = ["TFE102"]\n')
    assert main(["fix", "src"]) == 1
    assert (project / "src" / "bad.py").read_text() == BAD


def test_standard_input_is_configured_from_its_name(project, capsys, monkeypatch):
    (project / "src" / "pyproject.toml").write_text('[tool.tflint-effective]\nselect = ["TFE101"]\n')
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    assert check(capsys, "-", "--stdin-filename", "src/bad.py")[:2] == (1, f"{LINE_101}\n")


@pytest.mark.parametrize("name, text, message", [
    ("pyproject.toml", '[tool.tflint-effective]\nselcet = ["TFE1"]\n',
     "pyproject.toml: [tool.tflint-effective]: unknown key 'selcet' "
     "(known: select, extend-select, ignore, exclude, per-file-ignores, severity, tensorflow-modules, "
     "function-decorators, max-file-size, tensorflow-version)"),
    ("pyproject.toml", '[tool.tflint-effective]\nselect = "TFE101"\n',
     "pyproject.toml: [tool.tflint-effective] select: expected a list of rule codes, got 'TFE101'"),
    ("pyproject.toml", '[tool.tflint-effective]\nignore = [101]\n',
     "pyproject.toml: [tool.tflint-effective] ignore: expected a list of rule codes, got [101]"),
    ("pyproject.toml", '[tool.tflint-effective]\nselect = ["E501"]\n',
     "pyproject.toml: [tool.tflint-effective] select: E501 is not a rule code or prefix "
     "(TFE followed by up to three digits)"),
    ("pyproject.toml", '[tool.tflint-effective]\nseverity = "fatal"\n',
     "pyproject.toml: [tool.tflint-effective] severity: expected one of info, warning, error, got 'fatal'"),
    ("pyproject.toml", '[tool.tflint-effective]\nexclude = "build"\n',
     "pyproject.toml: [tool.tflint-effective] exclude: expected a list of strings, got 'build'"),
    ("pyproject.toml", '[tool.tflint-effective]\nper-file-ignores = ["tests/*"]\n',
     "pyproject.toml: [tool.tflint-effective] per-file-ignores: expected a table of glob = [codes], "
     "got ['tests/*']"),
    ("pyproject.toml", '[tool.tflint-effective.per-file-ignores]\n"tests/*" = ["X1"]\n',
     "pyproject.toml: [tool.tflint-effective] per-file-ignores 'tests/*': X1 is not a rule code or "
     "prefix (TFE followed by up to three digits)"),
    ("setup.cfg", "[tflint-effective]\nmax-line-length = 3\n",
     "setup.cfg: [tflint-effective]: unknown key 'max-line-length' "
     "(known: select, extend-select, ignore, exclude, per-file-ignores, severity, tensorflow-modules, "
     "function-decorators, max-file-size, tensorflow-version)"),
    ("tox.ini", "[tflint-effective]\nper-file-ignores =\n    tests/* TFE101\n",
     "tox.ini: [tflint-effective] per-file-ignores: expected `glob: codes` lines, got 'tests/* TFE101'"),
])
def test_bad_configuration_is_exit_2_naming_the_file_and_key(project, capsys, name, text, message):
    (project / name).write_text(text)
    assert check(capsys, "src") == (2, "", f"tflint-effective: {message}\n")


def test_invalid_toml_names_the_file(project, capsys):
    (project / "pyproject.toml").write_text("[tool.tflint-effective\n")
    status, out, err = check(capsys, "src")
    assert (status, out) == (2, "")
    assert err.startswith("tflint-effective: pyproject.toml: invalid TOML: ")


def test_explicit_config_file(project, capsys):
    (project / "lint.toml").write_text('[tool.tflint-effective]\nselect = ["TFE101"]\n')
    assert check(capsys, "src", "--config", "lint.toml")[:2] == (1, f"{LINE_101}\n")
    (project / "empty.cfg").write_text("[flake8]\n")
    assert check(capsys, "src", "--config", "empty.cfg") == (
        2, "", "tflint-effective: empty.cfg: no [tool.tflint-effective] / [tflint-effective] section\n")
    with pytest.raises(ConfigError, match="no such configuration file"):
        load(project / "missing.toml")
