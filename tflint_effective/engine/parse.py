"""Parsing a file with libcst: in pieces when large, on a thread with a deep stack, collector paused."""
from __future__ import annotations

import contextlib
import gc
import sys
import threading

import libcst as cst

from . import piecewise
from .nesting import refuse_too_deep

PARSE_FAILURES = (cst.ParserSyntaxError, SyntaxError, RecursionError, MemoryError)
# libcst's native parser recurses on the C stack: deeply nested input crashes the
# process on a main thread's 8 MiB stack, so parsing and traversal run on a thread
# with a large one (address space is reserved, not used).
DEEP_STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 20_000


DEEP_STACK_THREAD = "tflint-effective"


def on_deep_stack(function, *args, **kwargs):
    """Call ``function`` on a thread with a large stack; re-raise what it raises.

    The cycle collector stays paused until it returns, when the file's tree is gone:
    resumed any earlier, its first pass would walk the whole tree.  Already on such
    a thread (the CLI runs each file on one), call it in place."""
    if threading.current_thread().name == DEEP_STACK_THREAD:
        return function(*args, **kwargs)
    outcome = {}

    def target():
        try:
            with collector_paused():
                outcome["value"] = function(*args, **kwargs)
        except BaseException as error:  # handed back to the caller
            outcome["error"] = error

    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    previous = threading.stack_size(DEEP_STACK_BYTES)
    try:
        worker = threading.Thread(target=target, name=DEEP_STACK_THREAD)
        worker.start()
    finally:
        threading.stack_size(previous)
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


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


def parse(source: str) -> cst.Module:
    refuse_too_deep(source)
    with collector_paused():
        return piecewise.parse_module(source)
