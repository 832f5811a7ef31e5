"""Download the real-code corpus (sources of packages that use TensorFlow heavily).

The sources are never committed: ``pip download`` fetches pinned wheels into a
cache directory and their ``.py`` files are extracted next to them.  The
benchmark, crash-sweep and precision scripts all read the same corpus.

    python scripts/corpus.py            # download (once) and print the corpus path
    python scripts/corpus.py --list     # also list the packages and file counts
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGES = {
    "tf-models-official": "2.20.0",
    "tf-keras": "2.21.0",
    "keras": "3.15.1",
    "tensorflow-probability": "0.25.0",
    "tensorflow-datasets": "4.9.10",
    "tensorflow-addons": "0.23.0",
}
DEFAULT_ROOT = Path(os.environ.get("TFLINT_CORPUS", Path.home() / ".cache" / "tflint-effective-corpus"))


def package_dir(root: Path, name: str) -> Path:
    return root / f"{name}-{PACKAGES[name]}"


def fetch(root: Path = DEFAULT_ROOT, names=None) -> Path:
    """Make sure every package's sources are extracted under ``root``; return it."""
    root.mkdir(parents=True, exist_ok=True)
    wheels = root / "wheels"
    for name in names or PACKAGES:
        target = package_dir(root, name)
        if (target / ".complete").exists():
            continue
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--only-binary", ":all:", "--dest", str(wheels), f"{name}=={PACKAGES[name]}"],
                       check=True)
        normalized = name.replace("-", "_").lower()
        wheel = next(w for w in wheels.glob("*.whl")
                     if w.name.lower().startswith(f"{normalized}-{PACKAGES[name]}"))
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.endswith(".py"):
                    archive.extract(member, target)
        (target / ".complete").touch()
    return root


def python_files(root: Path = DEFAULT_ROOT, names=None):
    """All corpus .py files, sorted, as (package, path)."""
    for name in names or PACKAGES:
        for path in sorted(package_dir(root, name).rglob("*.py")):
            yield name, path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    root = fetch(args.root)
    if args.list:
        for name in PACKAGES:
            files = list(package_dir(root, name).rglob("*.py"))
            size = sum(f.stat().st_size for f in files)
            print(f"{name}=={PACKAGES[name]}: {len(files)} files, {size / 1e6:.1f} MB")
    print(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
