"""``--jobs``: one function over many files in worker processes, results in input order.

Each call still runs on a thread with a large stack (``engine.on_deep_stack``):
libcst's native parser needs it for deeply nested input, in a worker as in the
main process.  Big files are handed out first so the workers finish together.
"""
from __future__ import annotations

import concurrent.futures
import gc
import multiprocessing
import os
from typing import Callable, Sequence, TypeVar

Result = TypeVar("Result")
BATCH = 4  # files per task: fewer round trips, still balanced


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


_job = {}  # set in each worker by _start


def _start(function, options) -> None:
    _job["function"], _job["options"] = function, options


def _batch(paths: Sequence[str]) -> list:
    from ..engine.parse import on_deep_stack

    return [on_deep_stack(_job["function"], path, _job["options"]) for path in paths]


def run(function: Callable[[str, object], Result], paths: Sequence[str], options, jobs: int,
        done: Callable[[int, Result], None], failed: Callable[[str, BaseException], Result]) -> None:
    """Call ``done(index, function(paths[index], options))`` for every path.

    With one job (or one path) everything runs here, in order.  Otherwise ``done``
    is called as batches come back; ``failed(path, error)`` stands in for the
    result of a file whose worker died.
    """
    if not paths:
        return
    from ..engine.parse import on_deep_stack  # not before: a run served from the cache need not load libcst

    if jobs <= 1 or len(paths) <= 1:
        for index, path in enumerate(paths):
            done(index, on_deep_stack(function, path, options))
        return
    order = sorted(range(len(paths)), key=lambda i: -_size(paths[i]))
    batches = [order[start:start + BATCH] for start in range(0, len(order), BATCH)]
    workers = min(jobs, len(batches))
    # Forked workers share this process's pages until they write to them; frozen
    # objects are never written to by the workers' collector (CPython's advice).
    gc.freeze()
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(),
                                                initializer=_start, initargs=(function, options)) as pool:
        futures = {pool.submit(_batch, [paths[i] for i in batch]): batch for batch in batches}
        for future in concurrent.futures.as_completed(futures):
            batch = futures[future]
            try:
                results = future.result()
            except Exception as error:  # a worker process died (BrokenProcessPool)
                results = [failed(paths[i], error) for i in batch]
            for index, result in zip(batch, results):
                done(index, result)
