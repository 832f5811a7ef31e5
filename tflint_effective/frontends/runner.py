"""``check`` or ``fix`` over every target: each file read once, unchanged files served
from the cache, the rest spread over ``--jobs`` processes; results in target order.

With the cache on, a file's bytes are read here, hashed, and -- on a miss -- the
very same bytes are handed to the per-file function, so the entry stored holds
the result of the bytes its key names.  Biggest files go first so the workers
finish together.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from . import parallel
from .files import read_bytes
from .one_file import FileResult, max_file_size, read_scale, unreadable


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def run_files(per_file, targets: Sequence[str], options, jobs: int, cache,
              step: Callable[[str], None]) -> List[FileResult]:
    """``per_file(path, options, data)`` for every target (``cache``: a ``cache.Cache`` or None)."""
    if cache is not None:
        from .cache import settings
    results: List[Optional[FileResult]] = [None] * len(targets)
    keys: Dict[int, str] = {}

    def done(index: int, result: FileResult) -> None:
        results[index] = result
        key = keys.pop(index, None)
        if key is not None:
            cache.store(key, result, result.path)
        step(targets[index])

    def tasks():
        order = range(len(targets))
        if jobs > 1:
            order = sorted(order, key=lambda i: -_size(targets[i]))
        for index in order:
            path = targets[index]
            data = None if cache is None or path == "-" else _read(path, options)
            if data is not None:
                key = cache.key(data, settings(options, path))
                hit = cache.load(key, path)
                if hit is not None:
                    done(index, hit)
                    continue
                keys[index] = key
            yield index, path, data

    parallel.run(per_file, tasks(), options, jobs, done, _failed)
    if cache is not None:
        cache.close()
    return results


def _read(path: str, options) -> Optional[bytes]:
    try:
        return read_bytes(Path(path), max_file_size(options, path), read_scale(path))
    except OSError:  # reported by the per-file function, which tries again (a FIFO: a stat)
        return None


def _failed(path: str, error: BaseException) -> FileResult:
    return unreadable(path, f"internal error: the worker process checking this file stopped "
                            f"({type(error).__name__}); run with --jobs 1 to see more")
