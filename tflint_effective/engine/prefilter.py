"""Decide, before libcst parses a file, whether any rule could report in it.

Under the resolver in ``names.py`` a name means TensorFlow only through an
import: ``import tensorflow``, ``import tensorflow.x as y``, ``from tensorflow.x
import y``, or an import of a module that re-exports TensorFlow (``SHIMS``
and the ``tensorflow-modules`` setting), or of a function that returns it (RLlib's
``try_import_tf``, ``TF_IMPORTERS``).  Keras code is the one exception: Keras 3
programs often import only ``keras`` (or ``tf_keras``), and rules about Keras
models (TFE407) read them too; every other rule stays silent there, as it does
in a file that imports neither.  That rule needs a ``compile(`` call, so a file
that imports Keras but not TensorFlow and never spells ``compile(`` (Keras's
own sources, most layer libraries) is skipped too.  A file with none of these
imports is skipped:

1. text: a file that never spells ``tensorflow``, ``keras`` nor ``tf_keras`` as a
   word (nor the last part of a configured module, which every import of that
   module spells), imports none: ``tensorflow_datasets`` is another word.  It
   is skipped once CPython's parser accepts it (its symbol table, cheaper than
   its tree);
2. imports: a line starting ``import tensorflow`` or ``from tensorflow`` (or
   ``keras`` / ``tf_keras`` with ``compile(``) sends the file to libcst at once (should it sit in a
   string, libcst just finds nothing).  When no such word can be part of an import statement
   (no line spelling one also spells ``import``, continues a line ending with a backslash, or
   lies in a parenthesised list of imported names), the file is skipped as in 1.  Otherwise
   CPython's parser, many times cheaper than libcst, lists the file's imports, in every scope.

A file is skipped only when CPython parses it, so a syntax error still reaches
libcst and is reported as TFE000 like in any other file.
"""
from __future__ import annotations

import ast
import functools
import re
import symtable
import warnings
from typing import Iterable, Iterator, Mapping, Optional, Sequence, Tuple

from ..analysis.tf_api import SHIMS, TENSORFLOW, TF_IMPORTERS, shims

_NESTED_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")
_PLAIN_IMPORT = re.compile(r"^[ \t]*(?:import|from)[ \t]+tensorflow\b", re.MULTILINE)
_KERAS_IMPORT = re.compile(r"^[ \t]*(?:import|from)[ \t]+(?:keras|tf_keras)\b", re.MULTILINE)
# ``import (`` and the names up to its ``)`` (comments included: they may hold one)
_IMPORT_LIST = re.compile(r"\bimport[ \t]*\((?:[^)#]|#[^\n]*)*\)?")
KERAS_NEEDS = "compile("  # what the one rule that reads Keras-only files needs to see
KERAS = ("keras", "tf_keras")  # standalone Keras 3 and the legacy tf-keras package


def _is_tensorflow(qualname: str) -> bool:
    return qualname == TENSORFLOW or qualname.startswith(TENSORFLOW + ".")


def _is_keras(qualname: str) -> bool:
    return qualname.partition(".")[0] in KERAS


def _statements(body: Iterable[ast.AST]) -> Iterator[ast.AST]:
    for node in body:
        yield node
        for name in _NESTED_BODIES:
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _imported(tree: ast.Module, aliases: Mapping[str, str]) -> Iterator[str]:
    """The qualified name every import in ``tree`` binds (the same reading of each
    import as ``names.ScopeTable``)."""
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is None:
                    yield alias.name.split(".")[0]  # binds the top-level package only
                else:
                    yield aliases.get(alias.name, alias.name)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                if alias.name != "*":  # names.py does not follow star imports
                    qualname = f"{node.module}.{alias.name}"
                    yield TENSORFLOW if qualname in TF_IMPORTERS else aliases.get(qualname, qualname)


def imports_tensorflow(tree: ast.Module, aliases: Mapping[str, str] = SHIMS) -> bool:
    """Whether an import in ``tree`` binds a name that names.py resolves to TensorFlow."""
    return any(_is_tensorflow(qualname) for qualname in _imported(tree, aliases))


def imports_tensorflow_or_keras(tree: ast.Module, aliases: Mapping[str, str] = SHIMS) -> bool:
    """Whether an import in ``tree`` binds TensorFlow, ``keras`` or ``tf_keras`` (or a name in them)."""
    return any(_is_tensorflow(qualname) or _is_keras(qualname) for qualname in _imported(tree, aliases))


def _parses(source: str) -> bool:
    """Whether CPython's parser accepts ``source`` (a symbol table is built from its tree)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            symtable.symtable(source, "<prefilter>", "exec")
    except Exception:  # SyntaxError, null bytes, nesting too deep...: libcst reports it
        return False
    return True


@functools.lru_cache(maxsize=None)
def _words(aliases: tuple, keras: bool = True) -> Tuple[Tuple[str, ...], "re.Pattern[str]"]:
    """The words some import of TensorFlow (or Keras) spells (``aliases``: the shims' names), and a
    pattern that finds them as whole words."""
    words = sorted({TENSORFLOW, *(qualname.rsplit(".", 1)[-1] for qualname in (*aliases, *TF_IMPORTERS)),
                    *(KERAS if keras else ())})
    return tuple(words), re.compile(r"\b(?:%s)\b" % "|".join(map(re.escape, words)))


def _spells_word(source: str, aliases: tuple) -> bool:
    """Whether ``source`` spells one of those words (a substring test first: on text without any,
    the pattern is ten times slower)."""
    words, pattern = _words(aliases)
    return any(word in source for word in words) and pattern.search(source) is not None


def _in_import(source: str, words: "re.Pattern[str]") -> bool:
    """Whether an import statement may spell one of ``words``: a line spelling it also spells
    ``import``, continues a line ending with a backslash, or lies in a parenthesised import list."""
    lists = None
    for match in words.finditer(source):
        start = source.rfind("\n", 0, match.start()) + 1
        end = source.find("\n", match.end())
        if "import" in source[start:end if end >= 0 else len(source)]:
            return True
        if source[max(0, start - 3):start].rstrip("\r\n").endswith("\\"):
            return True
        if lists is None:
            lists = [m.span() for m in _IMPORT_LIST.finditer(source)]
        if any(a <= match.start() < b for a, b in lists):
            return True
    return False


def _python_ast(source: str) -> Optional[ast.Module]:
    """CPython's tree, or None for anything its parser refuses."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            return compile(source, "<prefilter>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except Exception:  # SyntaxError, null bytes, nesting too deep...: libcst reports it
        return None


def can_skip(source: str, tensorflow_modules: Sequence[str] = (), tree: Optional[ast.Module] = None) -> bool:
    """True when ``source`` is valid Python in which no name can resolve to TensorFlow or Keras.

    ``tree``, when given, is CPython's tree of ``source`` (flake8 has one already).
    """
    aliases = shims(tensorflow_modules)
    if not _spells_word(source, tuple(aliases)):
        return tree is not None or _parses(source)
    keras = KERAS_NEEDS in source
    if tree is None and (_PLAIN_IMPORT.search(source) or keras and _KERAS_IMPORT.search(source)):
        return False
    if tree is None and not _in_import(source, _words(tuple(aliases), keras)[1]):
        return _parses(source)
    tree = tree or _python_ast(source)
    if tree is None:
        return False
    test = imports_tensorflow_or_keras if keras else imports_tensorflow
    return not test(tree, aliases)
