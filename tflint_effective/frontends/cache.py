"""Results of ``check`` for unchanged files, kept between runs (``--no-cache`` to bypass).

An entry is found by a hash of the file's bytes, its displayed name (per-file
ignores depend on it) and everything else that can change a result: the
options and configuration, the Python and libcst versions, and the tool itself
-- its version and the size and modification time of each of its source files,
so editing a rule in a development checkout invalidates the entries too.

Entries are small JSON files below the user cache directory
(``$TFLINT_EFFECTIVE_CACHE_DIR``, else ``$XDG_CACHE_HOME/tflint-effective``,
``~/.cache/tflint-effective``, ``~/Library/Caches/tflint-effective`` on macOS,
``%LOCALAPPDATA%\\tflint-effective`` on Windows), one directory per tool
fingerprint, each written to a temporary file and renamed into place, so
concurrent runs never read half an entry.  Delete the directory to reclaim space.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Optional

from .. import __version__

FORMAT = 1  # bump when the layout of an entry changes


def directory() -> Path:
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


@functools.lru_cache(maxsize=None)
def tool_fingerprint() -> str:
    """This tool as installed: versions, and every source file's size and mtime."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256(f"{FORMAT} {__version__} {sys.version}".encode())
    try:
        digest.update(version("libcst").encode())
    except PackageNotFoundError:  # pragma: no cover - libcst vendored somewhere
        pass
    for source in sorted(package.rglob("*.py")):
        stat = source.stat()
        digest.update(f"{source.relative_to(package)} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


class Cache:
    """Entries for one run: ``settings`` describes everything but the file."""

    def __init__(self, settings: str, root: Optional[Path] = None):
        self.root = (root or directory()) / tool_fingerprint()
        self.settings = settings

    def key(self, name: str, content: bytes) -> str:
        digest = hashlib.sha256(self.settings.encode())
        digest.update(b"\0" + name.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(content)
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def load(self, key: str) -> Optional[dict]:
        try:
            with open(self._path(key), encoding="utf-8") as stream:
                return json.load(stream)
        except (OSError, ValueError):  # absent, unreadable or damaged: a miss
            return None

    def store(self, key: str, entry: dict) -> None:
        """Write an entry; a cache that cannot be written is silently not used."""
        target = self._path(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".", suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(entry, stream)
            os.replace(temp, target)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temp)
