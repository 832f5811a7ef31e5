"""The real-code evaluation corpus: TensorFlow code of several eras the linter was not tuned on.

Two kinds of unit (a unit is one package or one repository, never split):
PyPI units are downloaded at pinned versions into a cache directory and their
``.py`` files extracted, as ``scripts/corpus.py`` does; GitHub units are
snapshots of repositories at recorded commits that the user provides in a
local directory (``<github-dir>/<unit name>/``), e.g. extracted from a clone
with ``import-git``.  Nothing here imports TensorFlow, and nothing but the
PyPI download touches the network.  The code itself is never committed; see
``quality/CORPUS.md`` for the sources, the split and how the recall labels
were made.

    python scripts/realcode.py fetch                  # download and extract the PyPI units
    python scripts/realcode.py import-git NAME GITDIR # extract a GitHub unit at its commit
    python scripts/realcode.py list --split heldout   # the corpus files of a split, one a line
    python scripts/realcode.py table                  # the units: files, era, split (CSV)
    python scripts/realcode.py check                  # every unit present, the split valid?

Common options: ``--root`` (default ``$TFLINT_REALCODE`` or
``~/.cache/tflint-effective-realcode``) holds the PyPI units, ``--github-dir``
(default: the same directory) holds the GitHub units.  The units themselves are listed in
``corpus_units.py``.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from corpus_units import BY_NAME, UNITS, Unit

DEFAULT_ROOT = Path(os.environ.get("TFLINT_REALCODE", Path.home() / ".cache" / "tflint-effective-realcode"))

# The split, fixed before any tuning (quality/CORPUS.md): units ordered by the SHA-256 of
# f"{SPLIT_SALT}:{name}", the first half (rounded down) held out.  SPLIT_SALT is the first of
# "0", "1", "2", ... for which both parts hold TF1 and TF2 units and the held-out part has at
# least 1,000 .py files.  SPLIT_BOUNDARY is the key of the first dev unit of the original 37
# (dragen1860+TensorFlow-2.x-Tutorials): a unit is held out when its key sorts below it, so a
# unit added later gets a part by the same hash without moving any existing unit.
SPLIT_SALT = "0"
SPLIT_BOUNDARY = "9dfa0137bec1c41970d359b5cb52a4d3c28898a0cdde4af9168ed77b4eb4f950"
ORIGINAL_UNIT_COUNT = 37


def split_key(name: str, salt: str = SPLIT_SALT) -> str:
    return hashlib.sha256(f"{salt}:{name}".encode()).hexdigest()


def splits(salt: str | None = None, units=None) -> dict[str, str]:
    """Unit name -> "heldout" or "dev".

    Without ``salt`` this is the recorded split (keys below SPLIT_BOUNDARY are held out); with a
    salt it is the rule itself (lowest half of ``units`` held out), as used to choose the salt.
    """
    units = UNITS if units is None else units
    if salt is None:
        return {u.name: ("heldout" if split_key(u.name) < SPLIT_BOUNDARY else "dev") for u in units}
    ordered = sorted(units, key=lambda unit: split_key(unit.name, salt))
    half = len(ordered) // 2
    return {unit.name: ("heldout" if i < half else "dev") for i, unit in enumerate(ordered)}


def split_problems(root: Path, github_dir: Path | None, salt: str | None = None) -> list[str]:
    """What the split violates (empty when it is valid): the recorded one, or the rule with ``salt``."""
    assigned = splits(salt)
    problems = []
    original = UNITS[:ORIGINAL_UNIT_COUNT]
    if splits(SPLIT_SALT, original) != splits(None, original):
        problems.append("SPLIT_BOUNDARY does not reproduce the rule on the original units")
    for part in ("heldout", "dev"):
        eras = {u.era for u in UNITS if assigned[u.name] == part}
        for era in ("tf1", "tf2"):
            if era not in eras:
                problems.append(f"{part} has no {era} unit")
    heldout_files = sum(1 for name, _ in python_files(root, github_dir) if assigned[name] == "heldout")
    if heldout_files < 1000:
        problems.append(f"heldout has {heldout_files} .py files (< 1000)")
    return problems


def unit_dir(unit: Unit, root: Path, github_dir: Path | None = None) -> Path:
    if unit.source == "github":
        return (github_dir or root) / unit.name
    return root / unit.name


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def fetch(root: Path = DEFAULT_ROOT, names=None) -> Path:
    """Make sure every PyPI unit's sources are extracted under ``root``; return it."""
    root.mkdir(parents=True, exist_ok=True)
    downloads = root / "_downloads"
    for unit in UNITS:
        if unit.source != "pypi" or (names and unit.name not in names):
            continue
        target = unit_dir(unit, root)
        if (target / ".complete").exists():
            continue
        binary = ["--only-binary", ":all:"] if unit.archive == "wheel" else ["--no-binary", ":all:"]
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", *binary,
                        "--dest", str(downloads), f"{unit.name}=={unit.version}"], check=True)
        prefix = f"{_normalized(unit.name)}-{unit.version}"
        archive = next(a for a in downloads.iterdir()
                       if _normalized(a.name).startswith(_normalized(prefix))
                       and a.name.endswith((".whl", ".tar.gz", ".zip")))
        if archive.name.endswith(".whl") or archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as zipped:
                members = {m: zipped.read(m) for m in zipped.namelist() if m.endswith(".py")}
        else:
            with tarfile.open(archive) as tarred:
                members = {m.name: tarred.extractfile(m).read() for m in tarred.getmembers()
                           if m.isfile() and m.name.endswith(".py")}
        for member, data in members.items():
            relative = member.split("/", 1)[1] if unit.archive == "sdist" else member
            _write(target / relative, data)
        (target / ".complete").touch()
    return root


def _write(path: Path, data: bytes) -> None:
    if ".." in path.parts:
        raise ValueError(f"unsafe path in archive: {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def import_git(name: str, git_dir: Path, github_dir: Path) -> Path:
    """Extract the .py files of a GitHub unit at its recorded commit from a local git directory."""
    unit = BY_NAME[name]
    if unit.source != "github":
        raise SystemExit(f"{name} is not a GitHub unit")
    git = ["git", f"--git-dir={git_dir}"]
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", unit.commit], check=True,
                             capture_output=True).stdout.decode()
    blobs = []  # (object id, path) of the .py files; other (possibly absent) objects are never read
    for entry in filter(None, listing.split("\0")):
        info, path = entry.split("\t", 1)
        _, kind, object_id = info.split()
        if kind == "blob" and (path.endswith(".py") or unit.notebooks and path.endswith(".ipynb")):
            blobs.append((object_id, path))
    batch = subprocess.run([*git, "cat-file", "--batch"], check=True, capture_output=True,
                           input="".join(f"{object_id}\n" for object_id, _ in blobs).encode()).stdout
    target = unit_dir(unit, github_dir, github_dir)
    position = 0
    for object_id, path in blobs:
        header_end = batch.index(b"\n", position)
        header = batch[position:header_end].split()
        if header[-1] == b"missing":  # a snapshot may leave its largest files out
            print(f"{name}: {path} is absent from {git_dir}; skipped", file=sys.stderr)
            position = header_end + 1
            continue
        size = int(header[2])
        data = batch[header_end + 1:header_end + 1 + size]
        if path.endswith(".ipynb"):
            path, data = path + ".py", _notebook_code(data)
        if data is not None:
            _write(target / path, data)
        position = header_end + 1 + size + 1
    (target / ".commit").write_text(unit.commit + "\n")
    (target / ".complete").touch()
    return target


def _notebook_code(data: bytes) -> bytes | None:
    """The module the linter sees for a notebook (its code cells, magics masked), or None.  Cells under
    a cell magic are left out, as the linter did when the corpus was recorded (it reads ``%%time``
    cells since round 83): the judged items' lines stay where they were."""
    from tflint_effective.frontends.documents import Notebook, NotebookError

    try:
        return Notebook(data.decode("utf-8"), python_cell_magics=frozenset()).source.encode("utf-8")
    except (NotebookError, UnicodeDecodeError):
        return None


def python_files(root: Path = DEFAULT_ROOT, github_dir: Path | None = None, split: str | None = None,
                 names=None):
    """The corpus .py files, sorted, as (unit name, path); optionally of one split only."""
    assigned = splits()
    for unit in UNITS:
        if (split and assigned[unit.name] != split) or (names and unit.name not in names):
            continue
        directory = unit_dir(unit, root, github_dir)
        if not (directory / ".complete").exists():
            raise SystemExit(f"unit {unit.name} missing or incomplete in {directory}"
                             + (": run `fetch`" if unit.source == "pypi" else
                                f": extract {unit.version} at {unit.commit} with `import-git`"))
        for path in sorted(directory.rglob("*.py")):
            yield unit.name, path


_TF = re.compile(rb"\btensorflow\b|\bimport\s+tf\b")


def mentions_tensorflow(path: Path) -> bool:
    return bool(_TF.search(path.read_bytes()))


def table(root: Path, github_dir: Path | None):
    """One row per unit, the columns of quality/corpus.csv."""
    assigned = splits()
    for unit in UNITS:
        files = [path for _, path in python_files(root, github_dir, names=[unit.name])]
        yield {
            "name": unit.name, "source": unit.source, "version_or_repository": unit.version,
            "commit": unit.commit, "era": unit.era, "python2": unit.python2,
            "files": len(files), "tf_files": sum(mentions_tensorflow(p) for p in files),
            "split": assigned[unit.name],
        }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--github-dir", type=Path, default=None,
                        help="directory holding the GitHub units (default: --root)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("fetch", help="download and extract the PyPI units")
    importer = commands.add_parser("import-git", help="extract a GitHub unit from a local git directory")
    importer.add_argument("name", choices=[u.name for u in UNITS if u.source == "github"])
    importer.add_argument("git_dir", type=Path)
    lister = commands.add_parser("list", help="list the corpus files, one path a line")
    lister.add_argument("--split", choices=["heldout", "dev"])
    lister.add_argument("--tensorflow-only", action="store_true",
                        help="only files that mention tensorflow")
    commands.add_parser("table", help="print the unit table as CSV")
    commands.add_parser("check", help="report missing units and verify the split")
    args = parser.parse_args(argv)
    github_dir = args.github_dir or args.root
    if args.command == "fetch":
        print(fetch(args.root))
    elif args.command == "import-git":
        print(import_git(args.name, args.git_dir, github_dir))
    elif args.command == "list":
        for _, path in python_files(args.root, github_dir, args.split):
            if not args.tensorflow_only or mentions_tensorflow(path):
                print(path)
    elif args.command == "table":
        rows = list(table(args.root, github_dir))
        writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    elif args.command == "check":
        missing = [u.name for u in UNITS if not (unit_dir(u, args.root, github_dir) / ".complete").exists()]
        for name in missing:
            print(f"missing: {name}")
        if missing:
            return 1
        problems = split_problems(args.root, github_dir)
        for problem in problems:
            print(f"split: {problem}")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
