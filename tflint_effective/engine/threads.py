"""Where an analysis runs: a daemon thread with a deep stack, that Ctrl-C can leave behind.

libcst's native parser recurses on the C stack: deeply nested input crashes the
process on a main thread's 8 MiB stack, so parsing and traversal run on a thread
with a large one (address space is reserved, not used), kept for the next call.
The thread is a daemon and the caller waits for it in short slices, so a
KeyboardInterrupt reaches the main thread between two slices; ``interrupted``
then ends the process at once, whatever the abandoned thread is doing.
(libcst's parser holds the GIL while it runs, so the main thread sees the signal
only when it returns: the guard that refuses inputs libcst would take long on
bounds that time.)

The same waiting loop bounds the analysis: a call that has used more than
``CPU_BUDGET`` seconds of its thread's CPU time gets ``OverBudget`` raised in it
(at its next Python instruction; that thread is then retired), which
``lint_document`` reports as a TFE000 for the file, so a case the analysis is
slow on costs one file, not the run.

No libcst here: the CLI runs every file through ``on_deep_stack`` and a file the
pre-filter skips must not pay for importing it.
"""
from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import queue
import sys
import threading
import time

DEEP_STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 20_000
DEEP_STACK_THREAD = "tflint-effective"
WAIT_SLICE = 0.1  # seconds between two chances for a KeyboardInterrupt
INTERRUPTED = 130  # the exit status of a process ended by SIGINT, by shell convention
CPU_BUDGET = 20.0  # CPU seconds one call may use (the slowest corpus file, 450 KB, takes 2.5; the 2 MB size cap ~11)
_running = set()  # workers running a call
_left_behind = []  # other work an interruption abandoned (``left_behind``)
_idle = []  # workers waiting for a call (``_Worker``)
_idle_lock = threading.Lock()


class OverBudget(Exception):
    """Raised inside an analysis thread that used more than ``CPU_BUDGET`` seconds of CPU."""


def on_deep_stack(function, *args, **kwargs):
    """Call ``function`` on a daemon thread with a large stack; re-raise what it raises.

    The cycle collector stays paused until it returns, when the file's tree is gone:
    resumed any earlier, its first pass would walk the whole tree.  Already on such
    a thread, call it in place."""
    if threading.current_thread().name == DEEP_STACK_THREAD:
        return function(*args, **kwargs)
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    job = _Job(function, args, kwargs)
    worker = _idle_worker()
    worker.jobs.put(job)
    stopped = False
    while not job.done.wait(WAIT_SLICE):  # a KeyboardInterrupt lands here, between two slices
        if stopped and not worker.thread.is_alive():  # the error ended it before it could tell
            raise OverBudget
        if not stopped and job.cpu_start is not None and worker.cpu_seconds() - job.cpu_start > CPU_BUDGET:
            worker.retired = True  # the error may land after the call returns: use this thread no more
            stopped = _raise_in(worker.thread, OverBudget)
            worker.jobs.put(None)
    if job.error is not None:
        raise job.error
    return job.value


_PENDING = object()


class _Job:
    """One call, run by a worker: its outcome, and the worker's CPU clock when it began."""

    def __init__(self, function, args, kwargs):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.value = _PENDING
        self.error = self.cpu_start = None
        self.done = threading.Event()


class _Worker:
    """A daemon thread with a deep stack that runs calls one after another.  It is kept
    between calls: a new thread for each file would fault its stack and its allocator's
    memory in again (about a sixth of a parse's CPU time)."""

    def __init__(self):
        self.jobs = queue.SimpleQueue()
        self.retired = False
        self.clock = None
        previous = threading.stack_size(DEEP_STACK_BYTES)
        try:
            self.thread = threading.Thread(target=self._serve, name=DEEP_STACK_THREAD, daemon=True)
            self.thread.start()
        finally:
            threading.stack_size(previous)

    def cpu_seconds(self) -> float:
        return _cpu_seconds(self.clock) if self.clock is not None else 0.0

    def _serve(self):
        self.clock = _own_cpu_clock()
        try:
            while True:
                job = self.jobs.get()
                if job is None:
                    return
                self._run(job)
                job = None  # keep nothing of a file while waiting for the next
        except OverBudget:  # raised as the call returned: this thread is retired
            pass

    def _run(self, job: _Job):
        ident = threading.get_ident()
        _running.add(ident)
        job.cpu_start = self.cpu_seconds()
        try:
            with collector_paused():
                job.value = job.function(*job.args, **job.kwargs)
        except BaseException as error:  # handed back to the caller
            if not (isinstance(error, OverBudget) and job.value is not _PENDING):  # late: the work is done
                job.error = error
        finally:
            _running.discard(ident)
            if not self.retired:
                with _idle_lock:
                    _idle.append(self)
            job.done.set()


def _idle_worker() -> _Worker:
    with _idle_lock:
        while _idle:
            worker = _idle.pop()
            if not worker.retired:
                return worker
            worker.jobs.put(None)
    return _Worker()


def _forget_workers():
    """In a forked child: the parent's worker threads do not exist there."""
    _idle.clear()
    _running.clear()


os.register_at_fork(after_in_child=_forget_workers)


def _own_cpu_clock():
    """The CPU-time clock of the calling thread, readable from others (None where the platform
    has none).  Asked by the thread itself: asking about a thread that may have ended is undefined."""
    try:
        return time.pthread_getcpuclockid(threading.get_ident())
    except (AttributeError, OSError):
        return None


def _cpu_seconds(clock) -> float:
    try:
        return time.clock_gettime(clock)
    except OSError:  # the thread has just ended
        return 0.0


def _raise_in(thread: threading.Thread, error: type) -> bool:
    """Raise ``error`` in ``thread`` at its next Python instruction."""
    return ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(error)) == 1


def left_behind(what: str) -> None:
    """Record work an interruption abandons (a pool of worker processes being torn down,
    whose threads the interpreter would wait for on exit): ``interrupted`` then exits hard."""
    _left_behind.append(what)


def abandoned() -> bool:
    """Whether an analysis thread is still running (its caller was interrupted), or other
    work was left behind."""
    return bool(_running or _left_behind)


def interrupted(message: str = "tflint-effective: interrupted") -> int:
    """After Ctrl-C: print one line and return 130 -- or, when an analysis thread is still
    running or a pool of workers was abandoned, flush and end the process here with 130
    (the interpreter's shutdown would wait for them, or crash under a running thread)."""
    with contextlib.suppress(Exception):
        print(message, file=sys.stderr)
    if not abandoned():
        return INTERRUPTED
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(INTERRUPTED)


@contextlib.contextmanager
def collector_paused():
    """No cyclic garbage collection inside: building and analysing a tree allocates
    hundreds of thousands of objects, and the collections they trigger cost about a
    fifth of the time.  The analysis makes no reference cycles (back-references are
    weak), so the tree is freed as soon as it is dropped, collector or not."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
