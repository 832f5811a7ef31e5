"""Results of ``check`` for unchanged files, kept between runs (``--no-cache`` to bypass).

An entry is found by a hash of exactly the bytes that were linted (read once:
the bytes hashed are the bytes analysed, so a file saved during a run cannot
leave its old findings under its new content, nor the reverse), of the file's
effective configuration and options (``settings``), and -- through the name of
the directory it lives in -- of the tool: its format, version, Python, libcst,
and the size and modification time of each of its source files, so editing a
rule in a development checkout starts a fresh directory.  The path is not part
of the key, only what it decides (the rules per-file-ignores leave, whether the
file is a notebook): findings are stored without it (and without it in their
diffs' headers) and the displayed name is put back on loading, so ``a.py``,
``./a.py`` and its absolute path share one entry.

Entries are small JSON files below the user cache directory
(``$TFLINT_EFFECTIVE_CACHE_DIR``, else ``$XDG_CACHE_HOME/tflint-effective``,
``~/.cache/tflint-effective``, ``~/Library/Caches/tflint-effective`` on macOS,
``%LOCALAPPDATA%\\tflint-effective`` on Windows).  Each is written to a temporary
file and renamed into place, so concurrent or interrupted runs never leave half
an entry, and checked when loaded: anything but the shape written is a miss.
Entries not used for ``UNUSED_DAYS`` are removed, then the least recently used
until the directory is under ``MAX_BYTES`` (at most once a day); a new version
removes the directories of versions no longer in use.  ``tflint-effective clean``
empties the cache.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib.util
import json
import os
import re
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from typing import List, Optional, Tuple

from .. import __version__
from ..engine.atomic import write_atomically

FORMAT = 2  # bump when the layout of an entry changes
MAX_BYTES = 64 * 2 ** 20  # entries of one version, as JSON text
UNUSED_DAYS = 30
DAY = 24 * 3600
KEEP_VERSIONS = 3  # other versions' directories kept when used within a day (other installs)
VERSION_DIR = re.compile(r"[0-9a-f]{16}")
TAG = "CACHEDIR.TAG"  # marks a directory backup tools may skip, and as ours
TAG_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
            "# tflint-effective's cache of check results; `tflint-effective clean` removes it.\n")
USED, PRUNED = ".used", ".pruned"


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


def _stamp(path: Path) -> str:
    try:
        status = path.stat()
    except OSError:
        return f"{path.name} -"
    return f"{path.name} {status.st_size} {status.st_mtime_ns}"


@functools.lru_cache(maxsize=None)
def tool_fingerprint() -> str:
    """This tool as installed: versions, and every source file's size and mtime (libcst's
    version from its files, without importing it or importlib.metadata)."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(f"{FORMAT} {__version__} {sys.version}\n".encode())
    spec = importlib.util.find_spec("libcst")
    if spec is not None and spec.origin:
        libcst = Path(spec.origin).parent
        digest.update(f"{libcst} {_stamp(libcst / '_version.py')}\n".encode())
        for native in sorted(libcst.glob("native*")):
            digest.update(f"{_stamp(native)}\n".encode())
    for source in sorted(package.rglob("*.py")):
        digest.update(f"{source.relative_to(package)} {_stamp(source)}\n".encode())
    return digest.hexdigest()[:16]


def settings(options, name: str) -> str:
    """Everything besides a file's bytes that decides its ``check`` result: its effective
    configuration (what it selects once per-file-ignores are applied, not where it was
    found or what it excludes), the options, and whether it is a notebook -- not its
    name (``entries`` takes it out of what is stored)."""
    config = options.config_for(name)
    # where it was found, what it excludes, and the size cap (a file over it is never stored)
    where = ("path", "exclude", "exclude_root", "per_file_ignores", "max_file_size")
    described = {field.name: getattr(config, field.name) for field in dataclasses.fields(config)
                 if field.name not in where}
    chosen = {field.name: getattr(options, field.name) for field in dataclasses.fields(options)
              if field.name not in ("config", "roots", "stdin_filename")
              and _plain(getattr(options, field.name))}
    return "\n".join([repr(sorted(described.items())), repr(config.selection(name)),
                      repr(sorted(chosen.items())), repr(name.endswith(".ipynb"))])


def _plain(value) -> bool:
    """Data whose repr is stable between runs (no object addresses)."""
    if isinstance(value, (tuple, list, frozenset)):
        return all(map(_plain, value))
    return value is None or isinstance(value, (str, int, float, bool))


class Cache:
    """The entries of this version of the tool."""

    def __init__(self, base: Optional[Path] = None):
        self.base = Path(base or directory())
        self.root = self.base / tool_fingerprint()
        self._ready = False

    def key(self, data: bytes, described: str) -> str:
        digest = hashlib.sha256(described.encode("utf-8", "surrogateescape"))
        digest.update(b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    # -- reading -------------------------------------------------------------------
    def load(self, key: str, name: str):
        """The FileResult stored under ``key``, shown as ``name``; None when absent or not
        exactly what ``store`` writes (a damaged or foreign entry is a miss, never a crash)."""
        from .entries import result_from

        path = self._path(key)
        try:
            with open(path, "rb") as stream:
                entry = json.loads(stream.read())
                status = os.fstat(stream.fileno())
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
            return None
        result = result_from(entry, name)
        if result is not None and time.time() - status.st_mtime > DAY:
            with contextlib.suppress(OSError):  # used: kept by the next prune
                os.utime(path)
        return result

    # -- writing -------------------------------------------------------------------
    def store(self, key: str, result, name: str) -> None:
        """Write an entry for a result (of a file displayed as ``name``); a cache that
        cannot be written is silently not used."""
        from .entries import entry_for

        entry = entry_for(result, name)
        if entry is None:
            return
        entry.update(format=FORMAT, key=key)
        target = self._path(key)
        with _ctrl_c_deferred():  # an interrupted run leaves no partial entry, nor its temporary file
            try:
                self._prepare()
                target.parent.mkdir(exist_ok=True)
                write_atomically(target, json.dumps(entry, ensure_ascii=False).encode("utf-8"))
            except Exception:  # a cache that cannot be written is not used
                return

    def _prepare(self) -> None:
        """Create this version's directory; the first time, remove unused old versions."""
        if self._ready:
            return
        new = not self.root.is_dir()
        self.root.mkdir(parents=True, exist_ok=True)
        tag = self.root / TAG
        if not tag.exists():
            tag.write_text(TAG_TEXT, encoding="utf-8")
        (self.root / USED).touch()
        if new:
            remove_old_versions(self.base, keep=self.root.name)
        self._ready = True

    def close(self) -> None:
        """After a run: mark this version used, and prune at most once a day."""
        if not self.root.is_dir():
            return
        with contextlib.suppress(OSError):
            used = self.root / USED
            if not used.exists() or time.time() - used.stat().st_mtime > 3600:
                used.touch()
            marker = self.base / PRUNED
            if marker.exists() and time.time() - marker.stat().st_mtime < DAY:
                return
            marker.touch()
            prune(self.root)


# -- housekeeping ------------------------------------------------------------------
def _versions(base: Path) -> List[Path]:
    """Version directories below ``base``: named like ours (16 hexadecimal digits)."""
    try:
        return [p for p in base.iterdir() if p.is_dir() and not p.is_symlink()
                and VERSION_DIR.fullmatch(p.name)]
    except OSError:
        return []


def _last_used(folder: Path) -> float:
    for marker in (folder / USED, folder):
        with contextlib.suppress(OSError):
            return marker.stat().st_mtime
    return 0.0


def remove_old_versions(base: Path, keep: str, now: Optional[float] = None) -> List[Path]:
    """Remove other versions' directories, except the ``KEEP_VERSIONS`` most recently used
    ones that were used within a day (another install of the tool, still in use)."""
    now = time.time() if now is None else now
    others = sorted((p for p in _versions(base) if p.name != keep), key=_last_used, reverse=True)
    removed = [p for i, p in enumerate(others) if i >= KEEP_VERSIONS or now - _last_used(p) > DAY]
    for folder in removed:
        shutil.rmtree(folder, ignore_errors=True)
    return removed


def prune(root: Path, now: Optional[float] = None, max_bytes: int = MAX_BYTES) -> int:
    """Remove entries unused for ``UNUSED_DAYS``, then the least recently used until the
    rest fit in ``max_bytes``, and stale temporary files; the number removed."""
    now = time.time() if now is None else now
    entries: List[Tuple[float, int, str]] = []
    removed = 0
    with contextlib.suppress(OSError):
        for shard in os.scandir(root):
            if not shard.is_dir(follow_symlinks=False):
                continue
            for item in os.scandir(shard.path):
                with contextlib.suppress(OSError):
                    status = item.stat(follow_symlinks=False)
                    stale = item.name.endswith(".tmp") and now - status.st_mtime > 3600
                    if stale or (item.name.endswith(".json")
                                 and now - status.st_mtime > UNUSED_DAYS * DAY):
                        os.unlink(item.path)
                        removed += 1
                    elif item.name.endswith(".json"):
                        entries.append((status.st_mtime, status.st_size, item.path))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= max_bytes:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            removed += 1
        total -= size
    return removed


def clean(base: Optional[Path] = None) -> Tuple[int, int]:
    """Remove every version's entries (only directories that are ours); (directories, bytes)."""
    base = Path(base or directory())
    count = size = 0
    for folder in _versions(base):
        for dirpath, _, names in os.walk(folder):
            for name in names:
                with contextlib.suppress(OSError):
                    size += os.lstat(os.path.join(dirpath, name)).st_size
        shutil.rmtree(folder, ignore_errors=True)
        count += 1
    with contextlib.suppress(OSError):
        (base / PRUNED).unlink()
    with contextlib.suppress(OSError):
        base.rmdir()  # only when nothing else is in it
    return count, size


@contextlib.contextmanager
def _ctrl_c_deferred():
    """Ctrl-C held back (when called in the main thread, where Python handles signals) until
    the block is done, then delivered: it interrupts right after it, a few milliseconds late."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            signal.raise_signal(signal.SIGINT)
