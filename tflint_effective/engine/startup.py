"""Importing libcst in about half the CPU time, by keeping its dataclasses' compiled code.

libcst's node classes are some 200 dataclasses, and for each CPython writes the source of
``__init__``, ``__eq__``, ``__repr__``... and compiles it (``dataclasses`` hands the text to
``exec``) every time the module is imported: about half of what ``import libcst`` costs, which
is most of what checking one small file costs.  Like Python's own ``.pyc`` files, the compiled
code is kept: one file in the user cache directory maps each generated text to its code object,
for this Python's bytecode (its magic number).  During the first import of libcst and the
analysis, ``dataclasses``' ``exec`` gets the stored code instead of the text.  A text not stored
is compiled as usual and the file is rewritten, atomically, with exactly the texts this import
used.  An unreadable or damaged file is a miss.  It holds no results, so ``--no-cache`` (which
is about results) does not turn it off; ``tflint-effective clean`` removes it.
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

from ..user_cache import STARTUP_CODE, directory, write_atomically


def code_file() -> Path:
    return directory() / f"{STARTUP_CODE}{MAGIC_NUMBER.hex()}.marshal"


def compiled_dataclasses():
    """Imports in this block build their dataclasses from stored code; only the first time
    libcst is imported (afterwards there is nothing to build)."""
    if "libcst" in sys.modules or hasattr(dataclasses, "exec"):
        return contextlib.nullcontext()
    return stored_code(code_file())


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
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, marshal.dumps(used))


def _load(path: Path) -> Dict[str, CodeType]:
    try:
        codes = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if type(codes) is not dict or not all(type(k) is str and type(v) is CodeType for k, v in codes.items()):
        return {}
    return codes
