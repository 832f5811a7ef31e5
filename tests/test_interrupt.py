"""Ctrl-C: the run stops within a second, exits 130 with one line, leaves no partial cache entry."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from tflint_effective.engine import threads
from tflint_effective.frontends import cli, one_file

BAD = "import tensorflow as tf\ny = tf.squeeze(tf.keras.layers.Dense(1)(x))\n"


def test_the_analysis_runs_on_a_daemon_thread_and_the_caller_can_be_interrupted():
    seen = threads.on_deep_stack(lambda: (threading.current_thread().name, threading.current_thread().daemon))
    assert seen == (threads.DEEP_STACK_THREAD, True)
    release = threading.Event()
    threading.Timer(0.2, lambda: signal.raise_signal(signal.SIGINT)).start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        threads.on_deep_stack(release.wait, 30)  # an analysis that would take 30 s
    assert time.monotonic() - started < 1
    assert threads.abandoned()  # still running, left behind
    release.set()
    deadline = time.monotonic() + 5
    while threads.abandoned() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not threads.abandoned()


def test_ctrl_c_in_process_prints_one_line_and_returns_130(tmp_path, capsys, monkeypatch):
    (tmp_path / "m.py").write_text(BAD)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(one_file, "_lint", interrupted)
    assert cli.main(["check", "-j1", "--isolated", str(tmp_path / "m.py")]) == 130
    assert capsys.readouterr() == ("", "tflint-effective: interrupted\n")


def _tree(folder, count):
    folder.mkdir()
    for i in range(count):
        (folder / f"m{i:04}.py").write_text(BAD * 40 + f"# {i}\n")  # distinct files, each analysed


def _processes_of(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as stream:
            return [int(child) for child in stream.read().split()]
    except OSError:
        return []


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals and /proc as on Linux")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_a_run_within_a_second(tmp_path, jobs):
    _tree(tmp_path / "tree", 400)
    env = {**os.environ, "TFLINT_EFFECTIVE_CACHE_DIR": str(tmp_path / "cache")}
    process = subprocess.Popen([sys.executable, "-m", "tflint_effective", "check", "-q", "--isolated",
                                "-j", jobs, "tree"], cwd=tmp_path, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not list((tmp_path / "cache").rglob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.05)  # under way: some files done
    workers = _processes_of(process.pid)
    assert len(workers) >= (2 if jobs == "2" else 0)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, errors = process.communicate(timeout=30)
    took = time.monotonic() - sent
    assert (process.returncode, errors.decode(), took < 1) == (130, "tflint-effective: interrupted\n", True), took
    time.sleep(0.2)
    assert [pid for pid in workers if os.path.exists(f"/proc/{pid}") and _state(pid) != "Z"] == []
    stored = list((tmp_path / "cache").rglob("*.json"))
    assert 0 < len(stored) < 400
    for entry in stored:  # every entry whole
        assert json.loads(entry.read_text())["findings"]
    assert list((tmp_path / "cache").rglob("*.tmp")) == []


def _state(pid):
    try:
        with open(f"/proc/{pid}/stat") as stream:
            return stream.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
