"""Whether a module is part of a test suite: named as tests are (``test_*.py``, ``*_test.py``,
``conftest.py``, or in a ``tests`` / ``test`` / ``testing`` folder) and written as they are (it
imports ``pytest``, ``unittest`` or ``absl.testing``, derives a class from ``tf.test.TestCase``,
or defines a ``test_*`` function).  A study script called ``mnist_test.py`` is not one."""
from __future__ import annotations

import re

import libcst as cst

from .names import Import

TEST_PATH = re.compile(r"(?:^|[/\\])(?:tests?|testing)[/\\]|(?:^|[/\\])(?:test_[^/\\]*|[^/\\]*_test|conftest)\.py$")
TEST_MODULES = ("pytest", "unittest", "absl.testing")
TEST_CASES = ("tensorflow.test.TestCase", "tensorflow.compat.v1.test.TestCase", "tensorflow.compat.v2.test.TestCase")


def is_test_module(context) -> bool:
    if not TEST_PATH.search(context.path):
        return False
    imports = (binding.qualname for bindings in context.module_scope.bindings.values() for binding in bindings
               if type(binding) is Import)
    if any(name == module or name.startswith(module + ".") for name in imports for module in TEST_MODULES):
        return True
    for statement in context.module.body:
        if type(statement) is cst.FunctionDef and statement.name.value.startswith("test_"):
            return True
        if type(statement) is cst.ClassDef and any(
                context.qualname(base.value) in TEST_CASES for base in statement.bases):
            return True
    return False
