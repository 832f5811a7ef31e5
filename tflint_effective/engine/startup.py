"""Importing libcst in about half the CPU time, by keeping its dataclasses' compiled code.

libcst's node classes are some 200 dataclasses, and for each CPython writes the source of
``__init__``, ``__eq__``, ``__repr__``... and compiles it (``dataclasses`` hands the text to
``exec``) every time the module is imported: about half of what ``import libcst`` costs, which
is most of what checking one small file costs.  Like the package's own ``.pyc`` files, and
beside them in its ``__pycache__`` (so only who can change the package's code can change this
code), one file maps each generated text to its code object for this Python's bytecode.  During
the first import of libcst and the analysis, ``dataclasses``' ``exec`` (and ``run_text``, which
``node_init.py`` uses) gets the stored code instead of the text.  A text not stored is compiled
as usual and the file is rewritten, atomically, with exactly the texts this import used; a
package folder that cannot be written (a system-wide install) keeps nothing.  A damaged file,
or one of another bytecode version, is a miss.
"""
from __future__ import annotations

import builtins
import contextlib
import dataclasses
import marshal
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Dict

from .atomic import write_atomically

CODE_FILE = Path(__file__).resolve().parent.parent / "__pycache__" / (
    f"libcst_dataclasses.{sys.implementation.cache_tag}.marshal")


def run_text(source: str, globals: dict, locals: dict) -> None:
    """``exec(source, globals, locals)``, with the stored code inside ``stored_code`` (and
    storing it): the ``exec`` it gives ``dataclasses`` while its block runs."""
    getattr(dataclasses, "exec", builtins.exec)(source, globals, locals)


def compiled_dataclasses():
    """Imports in this block build their dataclasses from stored code; only the first time
    libcst is imported (afterwards there is nothing to build)."""
    if "libcst" in sys.modules or hasattr(dataclasses, "exec"):
        return contextlib.nullcontext()
    return stored_code(CODE_FILE)


@contextlib.contextmanager
def stored_code(path: Path):
    """Dataclasses made in this block get their methods' code from ``path`` when it holds it;
    ``path`` is rewritten when they needed code it did not hold."""
    stored = _load(path)
    used: Dict[str, CodeType] = {}

    def exec_stored(source, globals=None, locals=None):
        if isinstance(source, str):
            code = stored.get(source) or compile(source, "<string>", "exec")
            used[source] = code
            source = code
        return builtins.exec(source, globals, locals)

    dataclasses.exec = exec_stored  # shadows the builtin for that module alone
    try:
        yield
    finally:
        del dataclasses.exec
    if used.keys() - stored.keys():
        _store(path, marshal.dumps((MAGIC_NUMBER, used)))


def _load(path: Path) -> Dict[str, CodeType]:
    try:
        magic, codes = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if magic != MAGIC_NUMBER or type(codes) is not dict or not all(
            type(k) is str and type(v) is CodeType for k, v in codes.items()):
        return {}
    return codes


def _store(path: Path, data: bytes) -> None:
    with contextlib.suppress(OSError):  # a read-only install keeps nothing
        path.parent.mkdir(exist_ok=True)
        write_atomically(path, data, mode=0o644)  # readable by whoever runs the package, like its .pyc files
