"""Check the piecewise parser on the installed packages' largest sources.

Every ``.py`` file over ``piecewise.PIECE`` characters below the given folders
(default: this interpreter's site-packages) is parsed whole by libcst and in
pieces; the script reports each file whose pieces do not give back its text, the
whole parse's tree, or PositionProvider's positions of its names (a sample of up
to ``--names``).  Files libcst cannot parse or does not round-trip are skipped.

    python benchmarks/piecewise_site_packages.py --limit 200          # the 200 largest
    python benchmarks/piecewise_site_packages.py --limit 0 PATH...    # every file over the threshold
"""
from __future__ import annotations

import argparse
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import libcst as cst  # noqa: E402
from libcst.metadata import MetadataWrapper, PositionProvider  # noqa: E402

from tflint_effective.engine import piecewise  # noqa: E402
from tflint_effective.engine.positions import positions  # noqa: E402


def names(module):
    found = []

    class Names(cst.CSTVisitor):
        def visit_Name(self, node):
            found.append(node)

    module.visit(Names())
    return found


def problem(source: str, sample: int):
    """What differs between the piecewise and the whole parse, or None."""
    try:
        whole = cst.parse_module(source)
    except Exception:  # noqa: BLE001 - not libcst's to parse: skipped
        return None
    if whole.code != source:
        return None
    pieces = piecewise.parse_module(source)
    if pieces.code != source:
        return "text"
    if not pieces.deep_equals(whole):
        return "tree"
    if (pieces.default_indent, pieces.default_newline) != (whole.default_indent, whole.default_newline):
        return "defaults"
    expected = MetadataWrapper(whole, unsafe_skip_copy=True).resolve(PositionProvider)
    whole_names, piece_names = names(whole), names(pieces)
    chosen = range(0, len(piece_names), max(1, len(piece_names) // sample))
    computed = positions(pieces, [piece_names[i] for i in chosen])
    for i in chosen:
        where = expected[whole_names[i]]
        if computed[id(piece_names[i])] != ((where.start.line, where.start.column), (where.end.line, where.end.column)):
            return f"position of name {i}"
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[Path(sysconfig.get_paths()["purelib"])])
    parser.add_argument("--limit", type=int, default=100, help="the N largest files (0: all)")
    parser.add_argument("--names", type=int, default=200, help="names whose positions are compared per file")
    args = parser.parse_args(argv)
    files = sorted(((path.stat().st_size, path) for folder in args.folders for path in folder.rglob("*.py")
                    if path.is_file() and path.stat().st_size > piecewise.PIECE), reverse=True)
    if args.limit:
        files = files[:args.limit]
    failures, checked, began = 0, 0, time.perf_counter()
    for _, path in files:
        try:
            source = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if len(source) <= piecewise.PIECE:
            continue
        checked += 1
        found = problem(source, args.names)
        if found:
            failures += 1
            print(f"{path}: {found}", flush=True)
    print(f"{checked} files over {piecewise.PIECE} characters, {failures} differ "
          f"({time.perf_counter() - began:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
