"""Writing a file whole or not at all: a temporary file beside it, renamed into place."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Optional


def write_atomically(target: Path, data: bytes, mode: Optional[int] = None) -> None:
    """Readers see the old file or the new one, never part of it; the temporary file is removed
    whatever goes wrong (an ``OSError`` is raised to the caller, after the clean-up)."""
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
