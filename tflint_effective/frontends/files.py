"""Finding, reading and atomically rewriting Python files."""
from __future__ import annotations

import io
import os
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from ..engine.atomic import write_atomically
from ..levels import PARSE_ERROR
from .discovery import iter_python_files


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


def _unreadable(path: Path, error: OSError) -> SourceError:
    if isinstance(error, IsADirectoryError):
        return SourceError(f"{path}: is a directory")
    if isinstance(error, FileNotFoundError):
        if path.is_symlink():
            return SourceError(f"{path}: broken symbolic link (its target {os.readlink(path)} "
                               "does not exist)")
        return MissingPath(f"{path}: no such file or directory")
    if isinstance(error, PermissionError):
        return SourceError(f"{path}: cannot read: permission denied")
    return SourceError(f"{path}: cannot read: {error.strerror or error}")


DEFAULT_MAX_FILE_SIZE = 2_000_000  # bytes: ``max-file-size``


class NotRegularFile(SourceError):
    """A FIFO, device or socket (perhaps behind a symbolic link): skipped with a warning,
    never opened -- reading one could block forever or never end."""


class TooLarge(SourceError):
    """A file over the size cap for analysis (``max-file-size``): not read."""


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def regular_file(path: Path, mode: int) -> None:
    """Raise NotRegularFile unless ``mode`` (from a stat following links) is a regular file's."""
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise SourceError(f"{path}: is a directory")
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    via = f"a symbolic link to {os.path.realpath(path)}, " if os.path.islink(path) else ""
    raise NotRegularFile(f"{path}: {via}{kind}, not a regular file: skipped")


def size_text(size: float) -> str:
    """``2 MB``, ``2.5 MB``, ``500 kB``, ``120 bytes``."""
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{round(size / scale, 1):g} {unit}"
    return f"{size:g} bytes"


def too_large(path, size: int, limit: Optional[int], scale: int = 1, what: str = "") -> None:
    """Raise TooLarge when ``size`` bytes (``what``: of what) exceed ``scale`` times ``limit``
    (None or 0: no limit)."""
    if limit and size > limit * scale:
        times = f"{scale} times " if scale != 1 else ""
        raise TooLarge(f"{path}: not analysed: {size:,} bytes{what} is over {times}the max-file-size of "
                       f"{size_text(limit)} (raise max-file-size in the configuration, or pass "
                       "--max-file-size, to analyse it)")


_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_BINARY", 0))


def read_bytes(path: Path, limit: Optional[int] = None, scale: int = 1) -> bytes:
    """The bytes of a regular file, read once; SourceError with a one-line reason otherwise.

    FIFOs, devices and sockets are refused from a ``stat`` (never opened), and again from
    the open descriptor (O_NONBLOCK: a FIFO swapped in meanwhile cannot block the open);
    a file over ``scale`` times ``limit`` bytes raises TooLarge without being read.
    """
    path = Path(path)
    try:
        status = os.stat(path)
        regular_file(path, status.st_mode)
        too_large(path, status.st_size, limit, scale)
        descriptor = os.open(path, _READ_FLAGS)
    except OSError as error:
        if isinstance(error, SourceError):
            raise
        raise _unreadable(path, error) from None
    with os.fdopen(descriptor, "rb") as stream:
        try:
            status = os.fstat(descriptor)
            regular_file(path, status.st_mode)
            too_large(path, status.st_size, limit, scale)
            data = stream.read(limit * scale + 1) if limit else stream.read()
        except OSError as error:
            if isinstance(error, SourceError):
                raise
            raise _unreadable(path, error) from None
    too_large(path, len(data), limit, scale)  # it grew while being read
    return data


def read_source(path: Path, limit: Optional[int] = None) -> Source:
    """The decoded text of ``path`` (see ``read_bytes``)."""
    return decode(read_bytes(path, limit), str(path))


def outside(path: Path, roots: Sequence[str]) -> Optional[str]:
    """Where ``path`` really is, when symbolic links take it out of every directory in ``roots``.

    ``roots`` are real paths; an empty sequence puts no limit.
    """
    real = os.path.realpath(path)
    if not roots or any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots):
        return None
    return real


class ReadOnlyFile(OSError):
    """``fix`` leaves a file without write permission unchanged."""


class ChangedOnDisk(OSError):
    """The file is no longer what was read: someone saved it meanwhile."""


def read_only(path: Path) -> Optional[str]:
    """Why ``path`` (through links) may not be rewritten: no write permission bit, or none
    for this user; None when it may."""
    target = os.path.realpath(path)
    mode = os.stat(target).st_mode
    if mode & 0o222 and os.access(target, os.W_OK):
        return None
    return f"read-only file (mode {stat.S_IMODE(mode):04o}); `chmod u+w {path}` to include it"


def write_atomic(path: Path, text: str, encoding: str, expected: Optional[bytes] = None) -> None:
    """Replace ``path``'s content via a temp file and rename; keep its mode.

    A symlink is written through to its target, so the link stays a link.  With
    ``expected`` (the bytes the new text was made from), the file is compared with
    them just before the rename, and ChangedOnDisk raised instead of overwriting a
    file saved in between.  A read-only file raises ReadOnlyFile.
    """
    target = Path(os.path.realpath(path))
    data = text.encode(encoding)
    refusal = read_only(path)
    if refusal:
        raise ReadOnlyFile(refusal)

    def unchanged() -> None:
        if expected is not None and _current(target, len(expected)) != expected:
            raise ChangedOnDisk("changed on disk since it was read (saved meanwhile?); run fix again")

    write_atomically(target, data, target.stat().st_mode & 0o7777, durable=True, check=unchanged)


def _current(target: Path, size: int) -> Optional[bytes]:
    """``target``'s bytes now (None when it is no longer a regular file of about ``size``)."""
    try:
        status = os.stat(target)
        if not stat.S_ISREG(status.st_mode) or status.st_size != size:
            return None
        return read_bytes(target, size)
    except OSError:
        return None


def lint_paths(paths, select=None, ignore=None, exclude=()):
    """Lint files and directories (see ``iter_python_files``; ``exclude`` globs are relative
    to the working directory): (path, diagnostics) per file."""
    from ..engine.diagnostics import Diagnostic
    from ..engine.lint import lint_source
    from .discovery import FixedExcludes

    for path in iter_python_files(paths, FixedExcludes(exclude, os.getcwd())):
        try:
            text = read_source(path).text
        except NotRegularFile:  # a FIFO, device or socket: never read
            continue
        except OSError as error:  # includes decoding problems, see read_source
            yield path, [Diagnostic(str(path), 1, 0, PARSE_ERROR, reason(path, error), "error", 1, 0)]
            continue
        yield path, lint_source(text, str(path), select, ignore)
