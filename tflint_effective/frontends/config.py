"""Configuration shared by the CLI and the pre-commit hooks.

Read from ``[tool.tflint-effective]`` in pyproject.toml, else ``[tflint-effective]`` in
setup.cfg or tox.ini, in the closest directory at or above the first path checked
(a pyproject.toml without the table does not count).  Keys::

    select = ["TFE1", "TFE301"]        # codes or prefixes to report (default: all)
    extend-select = ["TFE9"]           # added to select
    ignore = ["TFE103"]
    exclude = ["build/*", "legacy"]    # globs, as --exclude
    per-file-ignores = {"tests/*" = ["TFE101"]}
    severity = "warning"               # minimum severity reported: info|warning|error
    tensorflow-modules = ["myproject.compat.tf"]  # modules that re-export TensorFlow

In setup.cfg / tox.ini lists are comma- or newline-separated and per-file-ignores
has one ``glob: codes`` pair per line (flake8's spelling).  An unknown or ill-typed
key is a ``ConfigError`` naming the file and key: never silently ignored.
"""
from __future__ import annotations

import configparser
import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .files import excluded
from ..levels import SEVERITY_RANK

NAME = "tflint-effective"
CODE_SELECTOR = re.compile(r"TFE[0-9]{0,3}")
LIST_KEYS = {"select": "select", "extend-select": "extend_select", "ignore": "ignore",
             "exclude": "exclude"}
KEYS = (*LIST_KEYS, "per-file-ignores", "severity", "tensorflow-modules")
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
    severity: str = "info"
    # ``from myproject.compat import tf`` / ``import myproject.compat.tf as tf`` give TensorFlow
    tensorflow_modules: Tuple[str, ...] = ()
    path: Optional[Path] = None  # the file it was read from

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
            if excluded(Path(path), [pattern]):
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


def _module_names(values, where: str) -> Tuple[str, ...]:
    names = _strings(values, where)
    bad = [name for name in names if not MODULE_NAME.fullmatch(name)]
    if bad:
        raise ConfigError(f"{where}: {', '.join(map(repr, bad))} is not a dotted module name")
    return names


def severity(value, where: str) -> str:
    if value not in SEVERITY_RANK:
        raise ConfigError(f"{where}: expected one of {', '.join(SEVERITY_RANK)}, got {value!r}")
    return value


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
            values["tensorflow_modules"] = _module_names(value, where)
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
        elif key == "severity":
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


def discover(start: Path) -> Config:
    """The closest configuration at or above ``start`` (a file or directory)."""
    start = Path(start).resolve()
    directory = start if start.is_dir() else start.parent
    for folder in (directory, *directory.parents):
        for name in ("pyproject.toml", "setup.cfg", "tox.ini"):
            candidate = folder / name
            if candidate.is_file():
                config = load(candidate)
                if config is not None:
                    return config
    return Config()
