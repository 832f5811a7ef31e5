"""Where tflint-effective keeps what it caches for the user: check results (``frontends.cache``)
and compiled start-up code (``engine.startup``)."""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

STARTUP_CODE = "dataclass-code-"  # the prefix of engine.startup's file


def directory() -> Path:
    """``$TFLINT_EFFECTIVE_CACHE_DIR``, else the platform's user cache directory."""
    override = os.environ.get("TFLINT_EFFECTIVE_CACHE_DIR")
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tflint-effective"


def write_atomically(target: Path, data: bytes) -> bool:
    """Write ``data`` to a temporary file beside ``target`` and rename it into place, so readers
    see the old file or the new one, never part of it (a temporary file is removed on failure);
    False when the directory cannot be written."""
    import tempfile  # not paid by a run that writes nothing

    try:
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".", suffix=".tmp")
    except OSError:
        return False
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temp, target)
        return True
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if not isinstance(error, Exception):
            raise
        return False
