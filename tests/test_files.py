"""``fix`` on disk: atomic, and the file keeps its encoding, BOM, line endings, mode and links."""
import os
import stat

import pytest

from tfe_testing import UnparsableFix, only_rules
from tflint_effective.frontends import cli, files

BAD = "import tensorflow as tf\ny = tf.reduce_sum(x, 1, keep_dims=True)  # café\n"
GOOD = BAD.replace("keep_dims", "keepdims")


def run_fix(path):
    return cli.main(["fix", "--isolated", "-q", str(path)])


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings_are_kept(tmp_path, newline):
    path = tmp_path / "m.py"
    path.write_bytes(BAD.replace("\n", newline).encode())
    assert run_fix(path) == 1
    assert path.read_bytes() == GOOD.replace("\n", newline).encode()


def test_mixed_line_endings_are_kept(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"import tensorflow as tf\r\ny = tf.reduce_sum(x, 1, keep_dims=True)\nz = 1\r\n")
    run_fix(path)
    assert path.read_bytes() == (
        b"import tensorflow as tf\r\ny = tf.reduce_sum(x, 1, keepdims=True)\nz = 1\r\n")


def test_coding_cookie_and_bom_are_kept(tmp_path):
    latin = tmp_path / "latin.py"
    latin.write_bytes(("# -*- coding: latin-1 -*-\n" + BAD).encode("latin-1"))
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + BAD.encode())
    assert run_fix(latin) == 1 and run_fix(bom) == 1
    assert latin.read_bytes() == ("# -*- coding: latin-1 -*-\n" + GOOD).encode("latin-1")
    assert bom.read_bytes() == b"\xef\xbb\xbf" + GOOD.encode()


def test_mode_is_kept_and_no_temporary_file_is_left(tmp_path):
    path = tmp_path / "tool.py"
    path.write_text(BAD)
    path.chmod(0o751)
    run_fix(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert sorted(os.listdir(tmp_path)) == ["tool.py"]


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path):
    target = tmp_path / "real.py"
    target.write_text(BAD)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    run_fix(link)
    assert link.is_symlink() and target.read_text() == GOOD


def test_a_failure_before_the_rename_leaves_the_original(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_text(BAD)

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_atomic(path, GOOD, "utf-8")
    assert path.read_text() == BAD
    assert sorted(os.listdir(tmp_path)) == ["m.py"]


def test_undecodable_file_is_reported_and_others_still_checked(tmp_path, capsys):
    (tmp_path / "a.py").write_bytes(b"x = '\xff\xfe'\n")
    (tmp_path / "b.py").write_text("import tensorflow as tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\n")
    assert cli.main(["check", "--isolated", "-q", str(tmp_path)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{tmp_path / 'a.py'}:1:1: TFE000 [error] cannot decode as Python source")
    assert out[1] == f"{tmp_path / 'b.py'}:2:5: TFE103 [warning] " + \
        "`squeeze` without `axis` removes every size-1 dimension, including a batch of one; " \
        "pass the axis to remove (`axis=[...]`)"


def test_a_symlink_out_of_the_tree_is_reported_but_not_written(tmp_path, monkeypatch, capsys):
    """``fix`` writes through a link only to a file below the current directory or a path named."""
    outside = tmp_path / "outside"
    outside.mkdir()
    real = outside / "real.py"
    real.write_text(BAD)
    project = tmp_path / "project"
    project.mkdir()
    (project / "link.py").symlink_to(real)
    monkeypatch.chdir(project)
    assert cli.main(["fix", "--isolated", "-q", "."]) == 1
    out, err = capsys.readouterr()
    assert real.read_text() == BAD
    assert out == "link.py:2:25: TFE102 [warning] `keep_dims=` is deprecated (a TypeError in TF2); use `keepdims=`\n"
    assert err == (f"link.py: warning: not fixed: a symbolic link to {real}, outside the current "
                   "directory and the paths being fixed; file left unchanged\n")
    assert cli.main(["fix", "--isolated", "-q", ".", str(outside)]) == 1  # named: fixed, both ways
    assert real.read_text() == GOOD and (project / "link.py").is_symlink()


def test_a_symlink_inside_the_tree_is_written_through(tmp_path, monkeypatch):
    (tmp_path / "real.py").write_text(BAD)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "link.py").symlink_to("../real.py")
    monkeypatch.chdir(tmp_path / "sub")
    run_fix(tmp_path)
    assert (tmp_path / "real.py").read_text() == GOOD and (tmp_path / "sub" / "link.py").is_symlink()


def test_a_fix_that_does_not_parse_leaves_the_file_untouched(tmp_path, monkeypatch, capsys):
    only_rules(monkeypatch, [UnparsableFix])
    path = tmp_path / "m.py"
    path.write_bytes(b"import tensorflow as tf\r\ny = tf.abs(x)\r\n")
    assert run_fix(path) == 2
    assert path.read_bytes() == b"import tensorflow as tf\r\ny = tf.abs(x)\r\n"
    assert sorted(os.listdir(tmp_path)) == ["m.py"]
    assert "fixing produced code that does not parse" in capsys.readouterr().err
