"""Configuration shared by the CLI and the pre-commit hooks.

Read from ``[tool.tflint-effective]`` in pyproject.toml, else ``[tflint-effective]`` in
setup.cfg or tox.ini.  Each file takes the configuration closest to it, at or above its
directory (a pyproject.toml without the table does not count), as ruff does: ``Resolver``
finds it.  Globs are relative to the directory of the configuration that holds them
(``--exclude`` globs to the working directory).  Keys::

    select = ["TFE1", "TFE301"]        # codes or prefixes to report (default: all)
    extend-select = ["TFE9"]           # added to select
    ignore = ["TFE103"]
    exclude = ["build/*", "legacy"]    # globs, as --exclude
    per-file-ignores = {"tests/*" = ["TFE101"]}
    severity = "warning"               # minimum severity reported: info|warning|error
    tensorflow-modules = ["myproject.compat.tf"]  # modules that re-export TensorFlow
    function-decorators = ["myproject.utils.compiled"]  # wrappers that stand for tf.function
    max-file-size = "2 MB"             # larger files (notebooks: code cells): one TFE000, no analysis (0: no limit)
    tensorflow-version = ">=1.4,<2"    # TensorFlow versions supported (default: the requirement files')

In setup.cfg / tox.ini lists are comma- or newline-separated and per-file-ignores
has one ``glob: codes`` pair per line (flake8's spelling).  An unknown or ill-typed
key is a ``ConfigError`` naming the file and key: never silently ignored.
"""
from __future__ import annotations

import configparser
import dataclasses
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .discovery import closest, glob_matches
from .files import DEFAULT_MAX_FILE_SIZE
from .requirements import Declared, Range, parse
from .tf1_directories import TF1Directories
from ..levels import SEVERITY_RANK

NAME = "tflint-effective"
CODE_SELECTOR = re.compile(r"TFE[0-9]{0,3}")
LIST_KEYS = {"select": "select", "extend-select": "extend_select", "ignore": "ignore",
             "exclude": "exclude"}
KEYS = (*LIST_KEYS, "per-file-ignores", "severity", "tensorflow-modules", "function-decorators",
        "max-file-size", "tensorflow-version")
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class ConfigError(Exception):
    """A configuration file or option that cannot be used (exit status 2)."""


@dataclass(frozen=True)
class Config:
    select: Optional[Tuple[str, ...]] = None  # None: every rule
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    exclude: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    severity: str = "warning"
    # ``from myproject.compat import tf`` / ``import myproject.compat.tf as tf`` give TensorFlow
    tensorflow_modules: Tuple[str, ...] = ()
    function_decorators: Tuple[str, ...] = ()  # a project's wrappers that stand for tf.function
    max_file_size: int = DEFAULT_MAX_FILE_SIZE  # bytes; 0: no limit
    tensorflow_versions: Optional[Range] = None  # (oldest, first unsupported); None: not declared
    tf1_directory: Tuple[Tuple[str, str], ...] = ()  # its modules written for TF 1.x (tf1_directories)
    path: Optional[Path] = None  # the file it was read from
    exclude_root: Optional[str] = None  # where ``exclude`` globs start, if not at ``root``

    @property
    def root(self) -> Optional[str]:
        """The directory relative globs start from (None: the working directory)."""
        return None if self.path is None else os.path.dirname(os.path.abspath(self.path))

    def excludes(self, path: str) -> bool:
        """Whether ``exclude`` matches ``path`` or one of its directories below the globs' root."""
        return glob_matches(path, self.exclude, self.exclude_root or self.root)

    def override(self, **options) -> "Config":
        """Command-line options replace the keys they name (None: not given)."""
        return dataclasses.replace(self, **{k: v for k, v in options.items() if v is not None})

    def selection(self, path: str) -> Tuple[Optional[List[str]], List[str]]:
        """(select, ignore) for one file, per-file-ignores included."""
        select = None
        if self.select is not None or self.extend_select:
            select = [*(self.select if self.select is not None else ["TFE"]), *self.extend_select]
        ignore = list(self.ignore)
        for pattern, codes in self.per_file_ignores:
            if glob_matches(path, [pattern], self.root):
                ignore += codes
        return select, ignore

    def reports(self, severity: str) -> bool:
        return SEVERITY_RANK[severity] >= SEVERITY_RANK[self.severity]


# -- validation ------------------------------------------------------------
def _shown(path: Path) -> str:
    """The path relative to the working directory when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _section(path: Path) -> str:
    return f"{_shown(path)}: [tool.{NAME}]" if path.suffix == ".toml" else f"{_shown(path)}: [{NAME}]"


def _where(path: Path, key: str) -> str:
    return f"{_section(path)} {key}"


def codes(values, where: str) -> Tuple[str, ...]:
    """Upper-cased rule selectors; ConfigError for anything that is not one."""
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ConfigError(f"{where}: expected a list of rule codes, got {values!r}")
    result = tuple(v.strip().upper() for v in values if v.strip())
    bad = [c for c in result if not CODE_SELECTOR.fullmatch(c)]
    if bad:
        raise ConfigError(f"{where}: {', '.join(bad)} is not a rule code or prefix "
                          "(TFE followed by up to three digits)")
    return result


def _strings(values, where: str) -> Tuple[str, ...]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ConfigError(f"{where}: expected a list of strings, got {values!r}")
    return tuple(values)


def module_names(values, where: str) -> Tuple[str, ...]:
    names = _strings(values, where)
    bad = [name for name in names if not MODULE_NAME.fullmatch(name)]
    if bad:
        raise ConfigError(f"{where}: {', '.join(map(repr, bad))} is not a dotted module name")
    return names


def severity(value, where: str) -> str:
    if value not in SEVERITY_RANK:
        raise ConfigError(f"{where}: expected one of {', '.join(SEVERITY_RANK)}, got {value!r}")
    return value


_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(|b|bytes?|kb|k|mb|m|kib|mib)\s*", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "byte": 1, "bytes": 1, "k": 1000, "kb": 1000, "m": 1000 ** 2,
          "mb": 1000 ** 2, "kib": 1024, "mib": 1024 ** 2}


def file_size(value, where: str) -> int:
    """Bytes, from a number of bytes or a text such as ``"2 MB"`` / ``"500kB"``."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    match = _SIZE.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise ConfigError(f"{where}: expected a size such as 2000000, \"500 kB\" or \"2 MB\", got {value!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def versions(value, where: str) -> Range:
    """The range of a version specifier such as ``">=1.4,<2"``."""
    found = parse(value) if isinstance(value, str) else None
    if found is None:
        raise ConfigError(f"{where}: expected a version specifier such as \">=1.4,<2\" or \"==1.15\", "
                          f"got {value!r}")
    return found


def _build(table: Dict[str, object], path: Path) -> Config:
    values = {}
    for key, value in table.items():
        where = _where(path, key)
        if key in ("select", "extend-select", "ignore"):
            values[LIST_KEYS[key]] = codes(value, where)
        elif key == "exclude":
            values["exclude"] = _strings(value, where)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: expected a table of glob = [codes], got {value!r}")
            values["per_file_ignores"] = tuple(
                (glob, codes(selected, f"{where} {glob!r}")) for glob, selected in value.items())
        elif key == "severity":
            values["severity"] = severity(value, where)
        elif key == "tensorflow-modules":
            values["tensorflow_modules"] = module_names(value, where)
        elif key == "function-decorators":
            values["function_decorators"] = module_names(value, where)
        elif key == "max-file-size":
            values["max_file_size"] = file_size(value, where)
        elif key == "tensorflow-version":
            values["tensorflow_versions"] = versions(value, where)
        else:
            raise ConfigError(f"{_section(path)}: unknown key {key!r} (known: {', '.join(KEYS)})")
    return Config(**values, path=path)


# -- reading -----------------------------------------------------------------
def _toml_table(path: Path) -> Optional[dict]:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ImportError:
            raise ConfigError(f"{_shown(path)}: reading TOML needs Python 3.11+ or the tomli package")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{_shown(path)}: invalid TOML: {error}") from None
    table = data.get("tool", {}).get(NAME)
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{_shown(path)}: tool.{NAME} must be a table")
    return table


def _split(text: str) -> List[str]:
    return [item for item in re.split(r"[,\s]+", text) if item]


def _ini_table(path: Path) -> Optional[dict]:
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(path.read_text(encoding="utf-8"), str(path))
    except (configparser.Error, UnicodeDecodeError) as error:
        raise ConfigError(f"{_shown(path)}: invalid INI file: {error}") from None
    if not parser.has_section(NAME):
        return None
    table: Dict[str, object] = {}
    for key, text in parser.items(NAME):
        if key == "per-file-ignores":
            pairs = {}
            for line in filter(None, (line.strip() for line in text.splitlines())):
                glob, colon, selected = line.partition(":")
                if not colon:
                    raise ConfigError(f"{_where(path, key)}: expected `glob: codes` lines, got {line!r}")
                pairs[glob.strip()] = _split(selected)
            table[key] = pairs
        elif key in ("severity", "max-file-size", "tensorflow-version"):
            table[key] = text.strip()
        else:
            table[key] = _split(text)
    return table


def load(path: Path) -> Optional[Config]:
    """The configuration in ``path``, or None if it has no section for us."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such configuration file")
    table = _toml_table(path) if path.suffix == ".toml" else _ini_table(path)
    return None if table is None else _build(table, path)


CONFIG_FILES = ("pyproject.toml", "setup.cfg", "tox.ini")


def _in_directory(folder: str) -> Optional[Config]:
    for name in CONFIG_FILES:
        candidate = Path(folder, name)
        if candidate.is_file():
            config = load(candidate)
            if config is not None:
                return config
    return None


def discover(start: Path) -> Config:
    """The closest configuration at or above ``start`` (a file or directory)."""
    start = Path(os.path.abspath(start))
    return Resolver().for_directory(str(start if start.is_dir() else start.parent))


class Resolver:
    """The effective configuration of each file: the closest configuration at or above its
    directory (or ``fixed``: ``--config`` / ``--isolated``), with the command line's keys, and
    the TensorFlow versions the closest requirement files declare unless a key names them.

    Plain data, so it can be sent to worker processes; configurations found are remembered
    per directory.
    """

    def __init__(self, fixed: Optional[Config] = None, overrides: Optional[dict] = None,
                 cwd: Optional[str] = None):
        self.fixed = fixed
        self.overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
        self.cwd = cwd or os.getcwd()
        self._found: Dict[str, Optional[Config]] = {}  # directory -> closest configuration, unmodified
        self._declared = Declared()
        self._tf1_directories = TF1Directories()

    def __repr__(self) -> str:  # stable: part of the cache's settings
        found = sorted((d, repr(c)) for d, c in self._found.items())
        return f"Resolver({self.fixed!r}, {sorted(self.overrides.items())!r}, {self.cwd!r}, {found!r})"

    def absolute(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.cwd, path))

    def config_for(self, path: str) -> Config:
        """The configuration of the file ``path`` (``-``: standard input, from the working
        directory); ConfigError when that configuration is broken."""
        return self.for_directory(os.path.dirname(self.absolute(path)))

    def for_directory(self, directory: str) -> Config:
        directory = self.absolute(directory)
        config = self.fixed if self.fixed is not None else self._closest(directory)
        config = config.override(**self.overrides) if self.overrides else config
        if config.tensorflow_versions is None:
            declared = self._declared.at(directory)
            config = config if declared is None else dataclasses.replace(config, tensorflow_versions=declared)
        return dataclasses.replace(config, tf1_directory=self._tf1_directories.at(directory))

    def _closest(self, directory: str) -> Config:
        return closest(directory, _in_directory, self._found) or Config()
