"""Writing a file whole or not at all: a temporary file beside it, renamed into place."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Callable, Optional


def write_atomically(target: Path, data: bytes, mode: Optional[int] = None, *, durable: bool = False,
                     check: Optional[Callable[[], None]] = None) -> None:
    """Readers see the old file or the new one, never part of it; the temporary file is removed
    whatever goes wrong (the error is raised to the caller, after the clean-up).  ``durable``:
    the data reach the disk before the rename; ``check``: called just before it, it may raise to
    keep the old file."""
    import tempfile  # only a run that writes pays for it

    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            if durable:
                stream.flush()
                os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        if check is not None:
            check()
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
