"""``--jobs``: one function over many files in worker processes, results by index.

Tasks are drawn lazily (the caller reads each file as its task is drawn, and
answers some from the cache), at most a few batches ahead of the workers, so
memory stays bounded however many files there are; no worker starts while at
most one batch's worth of work is known.  Each call still runs on a thread with
a large stack (``engine.threads.on_deep_stack``).

Ctrl-C: workers ignore SIGINT (no traceback from each of them); the main
process, whose waits are short slices, gets the KeyboardInterrupt, terminates
the workers and re-raises it.
"""
from __future__ import annotations

import gc
import itertools
import os
import signal
from typing import Callable, Iterable, Optional, Tuple, TypeVar

Result = TypeVar("Result")
Task = Tuple[int, str, Optional[bytes]]  # (index, path, the bytes read, or None: read it there)
BATCH = 4  # files per task: fewer round trips, still balanced
AHEAD = 2  # batches in flight per worker
WAIT_SLICE = 0.1  # seconds: how soon a KeyboardInterrupt is seen


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_job = {}  # set in each worker by _start


def _start(function, options) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us
    _job["function"], _job["options"] = function, options


def _batch(tasks) -> list:
    from ..engine.threads import on_deep_stack

    return [on_deep_stack(_job["function"], path, _job["options"], data) for path, data in tasks]


def run(function: Callable[..., Result], tasks: Iterable[Task], options, jobs: int,
        done: Callable[[int, Result], None], failed: Callable[[str, BaseException], Result]) -> None:
    """Call ``done(index, function(path, options, data))`` for every task.

    With one job, or at most one batch of tasks, everything runs here, in order.
    Otherwise ``done`` is called as batches come back.  When a worker dies, the
    tasks then in flight run again one by one, each in a worker of its own, and
    ``failed(path, error)`` stands in for the result of the one that kills it.
    """
    from ..engine.threads import on_deep_stack  # no libcst: a file the pre-filter skips never loads it

    tasks = iter(tasks)
    first = list(itertools.islice(tasks, 1 if jobs <= 1 else jobs * BATCH))
    if len(first) <= (1 if jobs <= 1 else BATCH):
        for index, path, data in itertools.chain(first, tasks):
            done(index, on_deep_stack(function, path, options, data))
        return
    workers = min(jobs, -(-len(first) // BATCH))
    batches = _Batches(itertools.chain(first, tasks))
    # Forked workers share this process's pages until they write to them; frozen
    # objects are never written to by the workers' collector (CPython's advice).
    gc.freeze()
    while True:
        suspects = _in_pool(function, options, workers, batches, done)
        if not suspects:
            return
        _one_by_one(function, options, suspects, done, failed)


class _Batches:
    """Lists of ``BATCH`` tasks, drawn lazily; a batch can be put back."""

    def __init__(self, tasks):
        self.tasks = tasks
        self.back: list = []

    def next(self):
        if self.back:
            return self.back.pop()
        return list(itertools.islice(self.tasks, BATCH)) or None


def _pool(workers: int, function, options):
    import concurrent.futures

    return concurrent.futures.ProcessPoolExecutor(workers, initializer=_start, initargs=(function, options))


def _in_pool(function, options, workers: int, batches: _Batches, done) -> list:
    """Run batches in a pool until they are all done ([]), or until a worker dies: then
    the tasks that were in flight, one of which killed it (the others are innocent)."""
    import concurrent.futures

    pool = _pool(workers, function, options)
    in_flight = {}
    try:
        def submit() -> bool:
            batch = batches.next()
            if batch is None:
                return True
            try:
                in_flight[pool.submit(_batch, [(path, data) for _, path, data in batch])] = batch
            except RuntimeError:  # the pool broke meanwhile
                batches.back.append(batch)
                return False
            return True

        for _ in range(workers * AHEAD):
            submit()
        while in_flight:
            finished, _ = concurrent.futures.wait(in_flight, WAIT_SLICE, concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                try:
                    results = future.result()
                except Exception:  # a worker process died (BrokenProcessPool): every batch in flight is lost
                    suspects = [task for batch in in_flight.values() for task in batch]
                    _stop(pool, interrupted=False)
                    return suspects
                for (index, _, _), result in zip(in_flight.pop(future), results):
                    done(index, result)
                if not submit():
                    suspects = [task for batch in in_flight.values() for task in batch]
                    _stop(pool, interrupted=False)
                    return suspects
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown()
    return []


def _one_by_one(function, options, tasks, done, failed) -> None:
    """Each task alone in a worker: the one that kills it is reported by ``failed``."""
    import concurrent.futures

    pool = _pool(1, function, options)
    try:
        for index, path, data in tasks:
            future = pool.submit(_batch, [(path, data)])
            while not future.done():
                concurrent.futures.wait([future], WAIT_SLICE)
            try:
                [result] = future.result()
            except Exception as error:
                _stop(pool, interrupted=False)
                pool = _pool(1, function, options)
                result = failed(path, error)
            done(index, result)
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown()


def _stop(pool, interrupted: bool = True) -> None:
    """End the workers now, whatever they are doing (SIGTERM: they ignore SIGINT)."""
    if interrupted:
        from ..engine.threads import left_behind

        left_behind("worker processes")  # the pool's threads may wait on pipes no one reads
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            process.terminate()
        except (OSError, ValueError, AttributeError):
            pass
    pool.shutdown(wait=False, cancel_futures=True)
