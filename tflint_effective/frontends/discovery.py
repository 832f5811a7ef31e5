"""Which files a run lints: directories walked, tool folders, ``exclude`` and ``.gitignore``.

ruff's model: each directory's ``exclude`` comes from its own configuration
(``config.Resolver``); ``.gitignore`` / ``.ignore`` files are read with pathspec (git's
own matching rules); a path named on the command line is linted even when excluded,
unless ``--force-exclude`` (what pre-commit needs, since it names every file).
"""
from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, Optional, Sequence, TypeVar

Found = TypeVar("Found")

SUFFIXES = (".py", ".pyi")
# Tool folders never linted (ruff's default excludes, plus build): a named path is
# checked even inside one, unless --force-exclude.
SKIP_DIRS = {
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
    ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox",
    ".venv", ".vscode", "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist",
    "node_modules", "site-packages", "venv",
}
IGNORE_FILES = (".gitignore", ".ignore")  # a later one takes precedence in its directory


def glob_matches(path, patterns: Sequence[str], root: Optional[str] = None) -> bool:
    """Whether a glob matches ``path`` or one of its directories below ``root``.

    A glob without ``/`` matches the name of the path or of a directory above it
    (below ``root``); one with ``/`` is relative to ``root`` (default: the working
    directory; ``..`` allowed) unless absolute, and matches the path or a directory
    above it.  ``*`` also matches ``/``, as in fnmatch.
    """
    if not patterns:
        return False
    absolute = os.path.abspath(path)
    root = os.path.abspath(root or os.curdir)
    folders = [absolute]  # the path, then every directory above it
    while os.path.dirname(folders[-1]) != folders[-1]:
        folders.append(os.path.dirname(folders[-1]))
    below = folders[:folders.index(root)] if root in folders else folders[:1]
    for pattern in patterns:
        glob = pattern.replace(os.sep, "/").rstrip("/")
        if "/" not in glob:
            if any(fnmatch.fnmatch(os.path.basename(folder), glob) for folder in below):
                return True
            continue
        anchored = Path(os.path.normpath(os.path.join(root, glob))).as_posix()
        if any(fnmatch.fnmatch(Path(folder).as_posix(), anchored) for folder in folders):
            return True
    return False


def closest(directory: str, look: Callable[[str], Optional[Found]], memo: Dict[str, Optional[Found]]
            ) -> Optional[Found]:
    """``look(folder)`` for ``directory`` and each folder above it, up to the first answer that
    is not None (None at the top); ``memo`` remembers it for every folder passed."""
    chain, folder = [], directory
    while folder not in memo:
        chain.append(folder)
        found = look(folder)
        parent = os.path.dirname(folder)
        if found is not None or parent == folder:
            break
        folder = parent
    else:
        found = memo[folder]
    for folder in chain:
        memo[folder] = found
    return found


def _is_virtualenv(directory: str) -> bool:
    return os.path.exists(os.path.join(directory, "pyvenv.cfg"))


class GitIgnores:
    """``.gitignore`` and ``.ignore`` files (and ``.git/info/exclude``) as git reads them,
    with pathspec: the deepest file with a matching pattern decides, up to the repository
    root (the directory holding ``.git``) or, outside a repository, the filesystem root."""

    def __init__(self):
        self._chains: dict = {}  # directory -> [(directory, spec), ...] that apply, deepest first

    @staticmethod
    def _spec(directory: str):
        lines: list = []
        for name in (os.path.join(".git", "info", "exclude"), *IGNORE_FILES):
            try:
                with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as f:
                    lines += f.read().splitlines()
            except OSError:
                continue
        if not lines:
            return None
        import pathspec

        return pathspec.GitIgnoreSpec.from_lines(lines)

    def _chain(self, directory: str) -> list:
        if directory not in self._chains:
            spec = self._spec(directory)
            parent = os.path.dirname(directory)
            top = parent == directory or os.path.exists(os.path.join(directory, ".git"))
            self._chains[directory] = ([(directory, spec)] if spec else []) + ([] if top else self._chain(parent))
        return self._chains[directory]

    def ignored(self, path: str, is_dir: bool) -> bool:
        path = os.path.abspath(path)
        for directory, spec in self._chain(os.path.dirname(path)):
            relative = os.path.relpath(path, directory).replace(os.sep, "/") + ("/" if is_dir else "")
            include = spec.check_file(relative).include
            if include is not None:
                return include
        return False


def excluded_named(path: str, configs) -> bool:
    """``--force-exclude``: whether a path named on the command line is excluded by its
    configuration or lies in a tool folder (below the configuration's directory)."""
    config = configs.config_for(path)
    relative = os.path.relpath(os.path.abspath(path), config.root or os.curdir)
    folders = () if relative.startswith(os.pardir) else Path(relative).parts[:-1]
    return config.excludes(path) or any(folder in SKIP_DIRS for folder in folders)


class FixedExcludes:
    """The same ``exclude`` globs everywhere, relative to ``root``: a stand-in for a
    ``config.Resolver`` (the public ``lint_paths``, which reads no configuration)."""

    def __init__(self, exclude: Sequence[str] = (), root: Optional[str] = None):
        self.exclude, self.root = tuple(exclude), root

    def excludes(self, path) -> bool:
        return glob_matches(path, self.exclude, self.root)

    def for_directory(self, directory):
        return self

    def config_for(self, path):
        return self


def iter_python_files(paths: Iterable[str], configs=None, suffixes: Sequence[str] = SUFFIXES, *,
                      force_exclude: bool = False, respect_gitignore: bool = True) -> Iterator[Path]:
    """Files named on the command line, and files with ``suffixes`` below directories, sorted.

    ``configs`` (a ``config.Resolver``) gives each directory's ``exclude``.  Below a
    directory, tool folders, virtual environments, excluded and (``respect_gitignore``)
    git-ignored paths are skipped; a named path only with ``force_exclude``.  A path is
    yielded once.  A named path that does not exist is yielded as it is: reading it
    reports the problem.  Symbolic links to directories are not followed.
    """
    configs = configs or FixedExcludes()
    suffixes = tuple(suffixes)
    ignores = GitIgnores() if respect_gitignore else None
    seen = set()

    def new(path: Path) -> bool:
        key = os.path.abspath(path)
        if key in seen:
            return False
        seen.add(key)
        return True

    for raw in paths:
        path = Path(raw)
        if force_exclude and excluded_named(raw, configs):
            continue
        if not path.is_dir():
            if new(path):
                yield path
            continue
        for root, dirs, files in os.walk(path):
            config = configs.for_directory(root)

            def skipped(entry: str, is_dir: bool) -> bool:
                return config.excludes(entry) or (ignores is not None and ignores.ignored(entry, is_dir))

            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS
                             and not _is_virtualenv(os.path.join(root, d))
                             and not skipped(os.path.join(root, d), True))
            for name in sorted(files):
                if name.endswith(suffixes) and not skipped(os.path.join(root, name), False):
                    candidate = Path(root, name)
                    if new(candidate):
                        yield candidate
