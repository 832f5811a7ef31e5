"""Building libcst's nodes faster, above all while its parser builds a tree.

Each node class is a frozen dataclass with slots: the ``__init__`` dataclasses
writes for it sets every field through ``object.__setattr__`` and then calls
``__post_init__``, which validates the node.  The native parser calls these
``__init__`` methods for every node it builds, about an eighth of a parse.  When
this module is first imported, each such class gets an ``__init__`` with the
same parameters and defaults that stores its fields through their slots'
descriptors and validates only outside ``unvalidated()``: validation guards
trees built by hand, and the parser builds only valid ones.  Every concrete
node class gets one; classes whose fields are not slots (the abstract bases,
and the unslotted originals libcst's ``add_slots`` replaces) keep their own.
The methods' code is kept with the stored dataclass code (``startup.py``).
"""
from __future__ import annotations

import contextlib
import dataclasses
import threading
import types
from typing import Iterator, Optional

import libcst as cst

from . import startup

_validating = [True]  # read by every __init__ below
_lock = threading.Lock()


@contextlib.contextmanager
def unvalidated() -> Iterator[None]:
    """Nodes built in this block (by any thread) skip libcst's validation; one block at a time."""
    with _lock:
        _validating[0] = False
        try:
            yield
        finally:
            _validating[0] = True


def _subclasses(root: type) -> Iterator[type]:
    seen, todo = set(), [root]
    while todo:
        for cls in todo.pop().__subclasses__():
            if cls not in seen:
                seen.add(cls)
                todo.append(cls)
                yield cls


def _generated_init(cls: type) -> bool:
    init = cls.__dict__.get("__init__")
    return ("__slots__" in cls.__dict__ and dataclasses.is_dataclass(cls) and isinstance(init, types.FunctionType)
            and init.__code__.co_filename == "<string>")  # written by dataclasses, not by hand


def _fast_init(cls: type) -> Optional[types.FunctionType]:
    """An ``__init__`` for ``cls`` equal to its dataclass one but faster; None when its fields
    are not all slots set by ``__init__``."""
    fields = dataclasses.fields(cls)
    if any(not field.init or field.kw_only for field in fields):
        return None
    # dataclasses' own default for a field with a factory: the signature stays libcst's, and
    # callers that pass the signature's defaults explicitly (hypothesis's ``builds``) get the factory
    names = {"validating": _validating, "FACTORY": dataclasses._HAS_DEFAULT_FACTORY}
    parameters, body = [], []
    for field in fields:
        slot = getattr(cls, field.name, None)
        if type(slot) is not types.MemberDescriptorType:
            return None
        names[f"set_{field.name}"] = slot.__set__
        value = field.name
        if field.default is not dataclasses.MISSING:
            names[f"default_{field.name}"] = field.default
            parameters.append(f"{field.name}=default_{field.name}")
        elif field.default_factory is not dataclasses.MISSING:
            names[f"factory_{field.name}"] = field.default_factory
            parameters.append(f"{field.name}=FACTORY")
            value = f"factory_{field.name}() if {field.name} is FACTORY else {field.name}"
        else:
            parameters.append(field.name)
        body.append(f"  set_{field.name}(self, {value})")
    text = (f"def __create_fn__({', '.join(names)}):\n"
            f" def __init__(self, {', '.join(parameters)}):\n" + "".join(line + "\n" for line in body)
            + "  if validating[0]:\n   self.__post_init__()\n return __init__\n")
    namespace: dict = {}
    startup.run_text(text, {}, namespace)
    init = namespace["__create_fn__"](**names)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


def _install() -> None:
    for cls in _subclasses(cst.CSTNode):
        init = _fast_init(cls) if _generated_init(cls) else None
        if init is not None:
            cls.__init__ = init


_install()
