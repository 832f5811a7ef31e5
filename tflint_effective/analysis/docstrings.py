"""What a function's docstring says a parameter is (Google ``Args:`` or NumPy ``Parameters``).

A parameter is documented as a tensor when its entry's type, or else the start of its text,
is ``Tensor`` (``a Tensor``, ``tf.Tensor``, ```Tensor```) and its first sentence does not
widen it ("Tensor or ...", "array_like", "a list of", "nest", "sparse", ...).  In a module
that imports a library with a ``Tensor`` class of its own (Mesh TensorFlow, PyTorch, JAX),
"a Tensor" may mean that class: only ``tf.Tensor`` counts there.
"""
from __future__ import annotations

import re

OTHER_TENSOR_LIBRARIES = frozenset({"mesh_tensorflow", "torch", "jax", "paddle", "mxnet", "oneflow", "mindspore"})
_TENSOR = re.compile(r"^(?:an?\s+)?`*(?:tf\.)?Tensor`*(?:[\s,.;]|$)", re.IGNORECASE)
_TF_TENSOR = re.compile(r"^(?:an?\s+)?`*tf\.Tensor`*(?:[\s,.;]|$)", re.IGNORECASE)
_ENTRY = re.compile(r"^\s*([^\s(:]+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")  # name (type): text, for any name
_NOT_ONLY_TENSOR = re.compile(r"\bor\b|array|\blist|numpy|ndarray|like\b|union|optional|nest|sparse|ragged",
                              re.IGNORECASE)


def documented_tensor(doc: str, name: str, other_tensors: bool = False) -> bool:
    """The docstring's entry for ``name`` says it is a Tensor, and nothing else; with
    ``other_tensors`` (the module uses another library's ``Tensor``), a ``tf.Tensor``."""
    pattern = _TF_TENSOR if other_tensors else _TENSOR
    for line in doc.splitlines():
        match = _ENTRY.match(line)
        if match and match.group(1) == name:
            typed, text = match.group(2), match.group(3).strip()
            described = typed if typed is not None else text
            first = described.split(". ")[0]
            return bool(pattern.match(described)) and not _NOT_ONLY_TENSOR.search(first)
    return False


def imports_other_tensors(module_scope) -> bool:
    """The module imports, at its top level, a library whose ``Tensor`` is not TensorFlow's."""
    return any(getattr(binding, "qualname", "").split(".")[0] in OTHER_TENSOR_LIBRARIES
               for bindings in module_scope.bindings.values() for binding in bindings)
