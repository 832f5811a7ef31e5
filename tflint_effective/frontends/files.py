"""Finding, reading and atomically rewriting Python files."""
from __future__ import annotations

import fnmatch
import io
import os
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional, Sequence

from ..levels import PARSE_ERROR

SKIP_DIRS = {
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", ".eggs", "__pycache__",
    "build", "dist", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    "site-packages",
}
SUFFIXES = (".py", ".pyi")


class SourceError(OSError):
    """A file that cannot be read as Python source (message says why)."""


def reason(path, error) -> str:
    """Why ``path`` could not be read, without the path these messages start with."""
    message = str(error)
    prefix = f"{path}: "
    return message[len(prefix):] if message.startswith(prefix) else message


class MissingPath(SourceError):
    """A path that does not exist (and is not a broken symbolic link)."""


@dataclass(frozen=True)
class Source:
    text: str  # decoded, without a BOM
    encoding: str  # "utf-8-sig" when the file starts with a BOM


def excluded(path: Path, patterns: Sequence[str]) -> bool:
    text = path.as_posix()
    return any(fnmatch.fnmatch(text, p) or fnmatch.fnmatch(path.name, p)
               or fnmatch.fnmatch(text, f"*/{p}") for p in patterns)


def _is_virtualenv(directory: str) -> bool:
    return os.path.exists(os.path.join(directory, "pyvenv.cfg"))


def iter_python_files(paths: Iterable[str], exclude: Sequence[str] = (),
                      suffixes: Sequence[str] = SUFFIXES) -> Iterator[Path]:
    """Files named on the command line, and files with ``suffixes`` below directories, sorted.

    A named path that does not exist is yielded as it is: reading it reports
    the problem, and the other paths are still processed.  Directories are
    walked without following symbolic links to directories.
    """
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            if not excluded(path, exclude):
                yield path
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS
                             and not _is_virtualenv(os.path.join(root, d))
                             and not excluded(Path(root, d), exclude))
            for name in sorted(files):
                candidate = Path(root, name)
                if name.endswith(tuple(suffixes)) and not excluded(candidate, exclude):
                    yield candidate


def decode(data: bytes, name: str = "<bytes>") -> Source:
    """Decode like Python does: a BOM, else a PEP 263 coding cookie, else UTF-8."""
    if b"\0" in data:
        raise SourceError(f"{name}: binary file (contains NUL bytes), not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        hint = ("; declare the file's encoding with a `# -*- coding: NAME -*-` comment"
                if encoding == "utf-8" else "")
        raise SourceError(f"{name}: cannot decode as Python source: byte 0x{data[error.start]:02x} "
                          f"on line {line} is not valid {encoding}{hint}") from None
    except (SyntaxError, LookupError) as error:  # a bad or unknown coding cookie
        raise SourceError(f"{name}: cannot decode as Python source: {error}") from None
    if encoding == "utf-8-sig" and text.startswith("\ufeff"):
        text = text[1:]
    return Source(text, encoding)


def read_source(path: Path) -> Source:
    """The decoded text of ``path``; SourceError with a one-line reason when it has none."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise SourceError(f"{path}: is a directory") from None
    except FileNotFoundError:
        if path.is_symlink():
            raise SourceError(f"{path}: broken symbolic link (its target {os.readlink(path)} "
                              "does not exist)") from None
        raise MissingPath(f"{path}: no such file or directory") from None
    except PermissionError:
        raise SourceError(f"{path}: cannot read: permission denied") from None
    except OSError as error:
        raise SourceError(f"{path}: cannot read: {error.strerror or error}") from None
    return decode(data, str(path))


def outside(path: Path, roots: Sequence[str]) -> Optional[str]:
    """Where ``path`` really is, when symbolic links take it out of every directory in ``roots``.

    ``roots`` are real paths; an empty sequence puts no limit.
    """
    real = os.path.realpath(path)
    if not roots or any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots):
        return None
    return real


def write_atomic(path: Path, text: str, encoding: str) -> None:
    """Replace ``path``'s content via a temp file and rename; keep its mode.

    A symlink is written through to its target, so the link stays a link.
    """
    target = Path(os.path.realpath(path))
    data = text.encode(encoding)
    mode = target.stat().st_mode
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temp, mode & 0o7777)
        os.replace(temp, target)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def lint_paths(paths, select=None, ignore=None, exclude=()):
    """Lint files and directories (see ``iter_python_files``): (path, diagnostics) per file."""
    from ..engine.diagnostics import Diagnostic
    from ..engine.lint import lint_source

    for path in iter_python_files(paths, exclude):
        try:
            text = read_source(path).text
        except OSError as error:  # includes decoding problems, see read_source
            yield path, [Diagnostic(str(path), 1, 0, PARSE_ERROR, reason(path, error), "error", 1, 0)]
            continue
        yield path, lint_source(text, str(path), select, ignore)
