"""The cache of check results: keyed by the bytes linted, path-independent, validated, pruned."""
import json
import os
import signal
import tempfile
import threading
import time

import pytest

from tflint_effective.frontends import cache, cli, one_file

BAD = "import tensorflow as tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\n"
CLEAN = "import tensorflow as tf\ny = tf.squeeze(x, axis=[0])\n"


def check(capsys, *args):
    """(exit status, [(path, line, column, code)], stderr) of an in-process ``check``."""
    status = cli.main(["check", "-q", "-j1", "--isolated", "--format", "json", *args])
    out, err = capsys.readouterr()
    found = [(f["path"], f["line"], f["column"], f["code"]) for f in json.loads(out)["findings"]]
    return status, found, err


def entries(root):
    return sorted(p for p in root.rglob("*.json"))


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(BAD)
    monkeypatch.setenv("TFLINT_EFFECTIVE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def not_analysed(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("analysed, not taken from the cache")

    monkeypatch.setattr(one_file, "_lint", refuse)


def test_a_file_edited_during_a_run_and_restored_reports_its_findings(tree, capsys, monkeypatch):
    """The key is the hash of the bytes linted: an edit after reading cannot put another
    content's result under this key (git checkout / undo restoring the file)."""
    load = cache.Cache.load

    def edited_meanwhile(self, key, name):
        (tree / "m.py").write_text(CLEAN)  # saved while the run is under way
        return load(self, key, name)

    monkeypatch.setattr(cache.Cache, "load", edited_meanwhile)
    assert check(capsys, "m.py") == (1, [("m.py", 2, 5, "TFE103")], "")
    monkeypatch.setattr(cache.Cache, "load", load)
    (tree / "m.py").write_text(BAD)  # restored
    with monkeypatch.context() as patch:
        not_analysed(patch)
        assert check(capsys, "m.py") == (1, [("m.py", 2, 5, "TFE103")], "")
    (tree / "m.py").write_text(CLEAN)
    assert check(capsys, "m.py") == (0, [], "")


def test_one_entry_however_the_path_is_spelled(tree, capsys, monkeypatch):
    assert check(capsys, "m.py") == (1, [("m.py", 2, 5, "TFE103")], "")
    not_analysed(monkeypatch)
    absolute = str(tree / "m.py")
    assert check(capsys, "./m.py") == (1, [("m.py", 2, 5, "TFE103")], "")  # the walk normalises ./
    assert check(capsys, absolute) == (1, [(absolute, 2, 5, "TFE103")], "")
    assert len(entries(tree / "cache")) == 1


def test_what_a_path_decides_is_in_the_key(tree, capsys):
    (tree / "pyproject.toml").write_text('[tool.tflint-effective]\nper-file-ignores = {"tests/*" = ["TFE103"]}\n')
    for folder in ("src", "tests"):
        (tree / folder).mkdir()
        (tree / folder / "m.py").write_text(BAD)
    status = cli.main(["check", "-q", "-j1", "--format", "json", "src/m.py", "tests/m.py"])
    found = [(f["path"], f["code"]) for f in json.loads(capsys.readouterr().out)["findings"]]
    assert (status, found) == (1, [("src/m.py", "TFE103")])
    assert len(entries(tree / "cache")) == 2
    status = cli.main(["check", "-q", "-j1", "--format", "json", "tests/m.py", "src/m.py"])
    found = [(f["path"], f["code"]) for f in json.loads(capsys.readouterr().out)["findings"]]
    assert (status, found) == (1, [("src/m.py", "TFE103")])


def test_warnings_name_the_file_as_it_is_displayed(tree, capsys, monkeypatch):
    (tree / "m.py").write_text(BAD.rstrip("\n") + "  # noqa: TFE999\n")
    assert check(capsys, "m.py")[2] == "m.py:2: warning: TFE999 in a suppression comment is not a rule code\n"
    not_analysed(monkeypatch)
    absolute = str(tree / "m.py")
    assert check(capsys, absolute)[2] == (
        f"{absolute}:2: warning: TFE999 in a suppression comment is not a rule code\n")


@pytest.mark.parametrize("damage", [
    b"", b"{", b"null", b"[]", b'{"format": 2}', b"\xff\xfe", b"[" * 100_000,
    "wrong key", "line is text", "extra field", "edit of two", "missing field", "bool for int",
])
def test_a_damaged_entry_is_a_miss_never_a_crash(tree, capsys, damage):
    assert check(capsys, "m.py") == (1, [("m.py", 2, 5, "TFE103")], "")
    [path] = entries(tree / "cache")
    entry = json.loads(path.read_text())
    finding = entry["findings"][0]
    if damage == "wrong key":
        entry["key"] = "0" * 64
    elif damage == "line is text":
        finding["line"] = "2"
    elif damage == "extra field":
        finding["colour"] = "red"
    elif damage == "edit of two":
        finding["edits"] = [[0, 1]]
    elif damage == "missing field":
        del finding["message"]
    elif damage == "bool for int":
        finding["column"] = True
    path.write_bytes(damage if isinstance(damage, bytes) else json.dumps(entry).encode())
    assert check(capsys, "m.py") == (1, [("m.py", 2, 5, "TFE103")], "")
    assert json.loads(path.read_text())["findings"][0]["line"] == 2  # written again, whole


def test_an_interrupted_write_leaves_no_entry_and_no_temporary_file(tree, capsys, monkeypatch):
    def interrupted(source, target):
        raise KeyboardInterrupt

    monkeypatch.setattr(cache.os, "replace", interrupted)
    assert cli.main(["check", "-q", "-j1", "--isolated", "m.py"]) == 130
    assert capsys.readouterr().err == "tflint-effective: interrupted\n"
    assert [p.name for p in (tree / "cache").rglob("*") if p.is_file() and p.suffix in (".json", ".tmp")] == []


def test_ctrl_c_during_a_write_waits_for_the_whole_entry(tree, capsys, monkeypatch):
    made = tempfile.mkstemp

    def ctrl_c_now(*args, **kwargs):  # the temporary file exists: the worst moment
        found = made(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)
        return found

    monkeypatch.setattr(tempfile, "mkstemp", ctrl_c_now)
    idle = threading.Event()
    other = threading.Thread(target=idle.wait, daemon=True)  # the kernel may hand the signal to it
    other.start()
    try:
        assert cli.main(["check", "-q", "-j1", "--isolated", "m.py"]) == 130
    finally:
        idle.set()
    assert capsys.readouterr().err == "tflint-effective: interrupted\n"
    assert list((tree / "cache").rglob("*.tmp")) == []
    [entry] = entries(tree / "cache")
    assert json.loads(entry.read_text())["findings"]


def _entry(root, name, size, age_days, now):
    path = root / name[:2] / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    os.utime(path, (now - age_days * cache.DAY, now - age_days * cache.DAY))
    return path.name


def test_prune_removes_unused_entries_then_the_least_recently_used_over_the_cap(tmp_path):
    now = time.time()
    root = tmp_path / "0123456789abcdef"
    names = {_entry(root, f"{i:02x}" + "0" * 62, 100, age, now): age
             for i, age in enumerate([0, 1, 2, 3, 31, 40])}
    stale = root / "00" / ".abc.tmp"
    stale.write_text("half")
    os.utime(stale, (now - 7200, now - 7200))
    assert cache.prune(root, now, max_bytes=250) == 5
    kept = sorted(p.name for p in root.rglob("*") if p.is_file())
    assert kept == sorted(name for name, age in names.items() if age <= 1)


def test_a_new_version_removes_the_directories_of_versions_no_longer_used(tmp_path, monkeypatch):
    now = time.time()
    ages = {"a" * 16: 0.1, "b" * 16: 0.2, "c" * 16: 0.3, "d" * 16: 0.4, "e" * 16: 2.0}
    for name, age in ages.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / cache.USED).touch()
        os.utime(tmp_path / name / cache.USED, (now - age * cache.DAY, now - age * cache.DAY))
    (tmp_path / "notes").mkdir()  # not ours: never touched
    monkeypatch.setattr(cache, "tool_fingerprint", lambda: "f" * 16)
    cache.Cache(tmp_path).store("1" * 64, one_file.FileResult("m.py"), "m.py")
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == [
        "a" * 16, "b" * 16, "c" * 16, "f" * 16, "notes"]


def test_clean_empties_the_cache_and_nothing_else(tree, capsys):
    check(capsys, "m.py")
    (tree / "cache" / "mine.txt").write_text("not the cache's")
    assert cli.main(["clean"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Removed 1 cache directory (0.0 MB) from ") and out.endswith("cache.\n")
    assert [p.name for p in (tree / "cache").iterdir()] == ["mine.txt"]
    assert cli.main(["clean"]) == 0
    assert capsys.readouterr().out.startswith("Removed 0 cache directories (0.0 MB) from ")


def test_errors_and_fix_results_are_not_stored(tree, capsys):
    (tree / "broken.py").write_text("def f(:\n")
    assert cli.main(["check", "-q", "-j1", "--isolated", "broken.py"]) == 2
    assert cli.main(["fix", "-q", "-j1", "--isolated", "m.py"]) == 1
    capsys.readouterr()
    assert entries(tree / "cache") == []


def test_diffs_name_the_file_as_it_is_displayed(tree, capsys, monkeypatch):
    (tree / "m.py").write_text("import tensorflow as tf\ny = tf.reduce_sum(x, 1, keep_dims=True)\n")

    def diffs(path):
        assert cli.main(["check", "-q", "-j1", "--isolated", "--format", "json", path]) == 1
        return [f["fix"]["diff"] for f in json.loads(capsys.readouterr().out)["findings"] if f["fix"]]

    [first] = diffs("m.py")
    assert first.startswith("--- a/m.py\n+++ b/m.py\n@@ ")
    not_analysed(monkeypatch)
    absolute = str(tree / "m.py")
    assert diffs(absolute) == [first.replace("a/m.py", f"a/{absolute}").replace("b/m.py", f"b/{absolute}")]


def test_a_cache_that_cannot_be_written_is_not_used(tree, capsys, monkeypatch):
    (tree / "not-a-directory").write_text("")
    monkeypatch.setenv("TFLINT_EFFECTIVE_CACHE_DIR", str(tree / "not-a-directory"))
    assert check(capsys, "m.py") == (1, [("m.py", 2, 5, "TFE103")], "")
    assert check(capsys, "m.py") == (1, [("m.py", 2, 5, "TFE103")], "")
