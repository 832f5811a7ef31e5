"""Shared test set-up.

TensorFlow is optional for the linter, so every TensorFlow test asks for the
``tf`` fixture, which skips when TensorFlow is not installed.  The first import
splits the host CPU into two logical devices (this must happen before any op
runs), so multi-device code is exercised on any machine without
``allow_soft_placement``.  The ``device`` parameter runs a test on the CPU and
on every GPU TensorFlow can see; GPU cases skip with a reason when there is none.
"""
import configparser
import functools
import importlib.metadata
import importlib.util
import os
import pathlib
import re
import signal

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# A run started in the background (``.ci/run &``) inherits SIGINT ignored, and so would every process
# the tests start: the Ctrl-C tests need Python's own handling back.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# tests/legacy_keras needs legacy Keras (tf-keras, TF_USE_LEGACY_KERAS=1, which TensorFlow reads once per
# process): it runs in a pytest process of its own, started by tests/test_legacy_keras.py.
collect_ignore = [] if os.environ.get("TF_USE_LEGACY_KERAS") == "1" else ["legacy_keras"]


@functools.lru_cache(maxsize=None)
def _tensorflow():
    if importlib.util.find_spec("tensorflow") is None:
        return None
    import tensorflow as tf

    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(
        cpus[0],
        [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()],
    )
    return tf


def gpu_names():
    tf = _tensorflow()
    if tf is None:
        return []
    return [d.name for d in tf.config.list_logical_devices("GPU")]


@pytest.fixture(scope="session")
def tf():
    module = _tensorflow()
    if module is None:
        pytest.skip("TensorFlow is not installed (pip install '.[tensorflow]')")
    return module


@pytest.fixture(scope="session")
def two_devices(tf):
    """Two devices of one kind: two GPUs when visible, else two logical CPUs."""
    gpus = gpu_names()
    if len(gpus) >= 2:
        return gpus[:2]
    return [d.name for d in tf.config.list_logical_devices("CPU")][:2]


def pytest_generate_tests(metafunc):
    if "device" not in metafunc.fixturenames:
        return
    params = [pytest.param("/device:CPU:0", id="cpu")]
    gpus = gpu_names()
    if gpus:
        params += [pytest.param(name, id=name.rsplit(":", 2)[-2].lower() + name[-1]) for name in gpus]
    else:
        params.append(
            pytest.param("/device:GPU:0", id="gpu",
                         marks=pytest.mark.skip(reason="no GPU visible to TensorFlow"))
        )
    metafunc.parametrize("device", params)


@pytest.fixture(autouse=True)
def _private_result_cache(tmp_path_factory, monkeypatch):
    """Each test gets an empty cache of check results, never the user's (see cache.py)."""
    monkeypatch.setenv("TFLINT_EFFECTIVE_CACHE_DIR", str(tmp_path_factory.mktemp("result-cache")))


def _libcst_too_old():
    """The reason to skip everything when the installed libcst is older than setup.cfg allows."""
    config = configparser.ConfigParser()
    config.read(pathlib.Path(__file__).resolve().parent.parent / "setup.cfg")
    wanted = re.search(r"libcst>=([\d.]+)", config["options"]["install_requires"]).group(1)
    have = importlib.metadata.version("libcst")
    as_tuple = lambda text: tuple(int(p) for p in re.findall(r"\d+", text)[:3])  # noqa: E731
    if as_tuple(have) < as_tuple(wanted):
        return f"libcst {have} is installed, setup.cfg needs >= {wanted}: pip install -U '.[test]'"
    return None


def pytest_collection_modifyitems(config, items):
    """``tensorflow`` marks every test that takes the ``tf`` fixture (``-m "not tensorflow"``
    is the quick inner loop); everything skips with the reason when libcst is too old."""
    too_old = _libcst_too_old()
    for item in items:
        if "tf" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.tensorflow)
        if too_old:
            item.add_marker(pytest.mark.skip(reason=too_old))
