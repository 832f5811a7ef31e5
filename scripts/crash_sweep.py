"""Crash sweep: lint all of the real-code corpus and fix a copy of all of it.

The corpus (``scripts/corpus.py``) is real TensorFlow-heavy code nobody here
wrote.  Every file is linted; a copy of the corpus is fixed in place (with the
unsafe fixes too, unless ``--safe-only``) through ``files.write_atomic``; every
fixed file is read back, parsed and ``compile()``d, and fixed a second time to
check that nothing changes.  Printed: files, findings per code, and the figures
whose target is 0 — internal errors, fixed files that fail to parse or to
compile, non-idempotent (or non-converging) fixes.

    python scripts/crash_sweep.py               # whole corpus, 1 process
    python scripts/crash_sweep.py --jobs 2 --limit 500 --verbose

Exit status: 0 when every target figure is 0, 1 otherwise.
"""
from __future__ import annotations

import argparse
import ast
import collections
import multiprocessing
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from corpus import DEFAULT_ROOT, fetch, python_files  # noqa: E402
from tflint_effective.engine.fix import FixError, fix_source  # noqa: E402
from tflint_effective.engine.lint import lint_source  # noqa: E402
from tflint_effective.levels import PARSE_ERROR  # noqa: E402
from tflint_effective.frontends.files import SourceError, read_source, write_atomic  # noqa: E402

INTERNAL = "internal error"
TARGETS = ("internal errors", "fixed files that do not parse", "fixed files that do not compile",
           "non-idempotent fixes", "fixes that do not converge")


@dataclass
class Outcome:
    """What happened to one corpus file; ``problems`` maps a figure to details."""

    path: str
    codes: Dict[str, int] = field(default_factory=dict)
    fixes: int = 0
    seconds: float = 0.0
    problems: Dict[str, List[str]] = field(default_factory=dict)

    def add(self, figure: str, detail: str) -> None:
        self.problems.setdefault(figure, []).append(detail)


def _compiles(text: str, path: str):
    """None when ``text`` compiles, else the error (compile() of the decoded text)."""
    try:
        compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return error
    return None


def sweep_file(job) -> Outcome:
    original, copy, unsafe = job
    outcome = Outcome(str(original))
    start = time.perf_counter()
    try:
        _sweep(original, copy, unsafe, outcome)
    except Exception:  # anything escaping the engine or files.py is an internal error
        outcome.add("internal errors", traceback.format_exc(limit=-4))
    outcome.seconds = time.perf_counter() - start
    return outcome


def _sweep(original: Path, copy: Path, unsafe: bool, outcome: Outcome) -> None:
    try:
        source = read_source(original)
    except SourceError as error:
        outcome.add("unreadable files", str(error))
        return
    path = str(original)
    for diagnostic in lint_source(source.text, path):
        outcome.codes[diagnostic.code] = outcome.codes.get(diagnostic.code, 0) + 1
        if diagnostic.code == PARSE_ERROR:
            figure = "internal errors" if INTERNAL in diagnostic.message else "files that do not parse (TFE000)"
            outcome.add(figure, f"{diagnostic.line}:{diagnostic.col + 1}: {diagnostic.message}")
    if outcome.codes.get(PARSE_ERROR):
        return
    try:
        result = fix_source(source.text, path, unsafe_fixes=unsafe)
    except FixError as error:
        figure = "fixed files that do not parse" if "does not parse" in str(error) else "fixes refused"
        outcome.add(figure, str(error))
        return
    if not result.converged:
        outcome.add("fixes that do not converge", f"{result.passes} passes")
    if result.source == source.text:
        return
    outcome.fixes = result.applied
    write_atomic(copy, result.source, source.encoding)
    written = read_source(copy).text
    if written != result.source:
        outcome.add("internal errors", "the file read back differs from the fixed source")
    try:
        ast.parse(written, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        outcome.add("fixed files that do not parse", f"{type(error).__name__}: {error}")
        return
    error = _compiles(written, path)
    if error is not None and _compiles(source.text, path) is None:
        outcome.add("fixed files that do not compile", f"{type(error).__name__}: {error}")
    try:
        again = fix_source(written, path, unsafe_fixes=unsafe)
    except FixError as error:
        outcome.add("non-idempotent fixes", f"second fix failed: {error}")
        return
    if again.source != written:
        outcome.add("non-idempotent fixes", f"a second fix applied {again.applied} more")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="corpus directory")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--limit", type=int, help="only the first N files (smoke run)")
    parser.add_argument("--safe-only", action="store_true", help="apply only the safe fixes")
    parser.add_argument("--keep", type=Path, help="fix the copy here and keep it (default: a temporary directory)")
    parser.add_argument("--verbose", action="store_true", help="print every problem with its details")
    args = parser.parse_args(argv)

    root = fetch(args.root)
    originals = [path for _, path in python_files(root)][:args.limit]
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="tflint-sweep-"))
    jobs = []
    for original in originals:
        copy = workdir / original.relative_to(root)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(original, copy)
        jobs.append((original, copy, not args.safe_only))

    start = time.perf_counter()
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            outcomes = list(pool.imap_unordered(sweep_file, jobs, chunksize=8))
    else:
        outcomes = [sweep_file(job) for job in jobs]
    elapsed = time.perf_counter() - start
    if args.keep is None:
        shutil.rmtree(workdir)

    codes = collections.Counter()
    figures: Dict[str, List[str]] = collections.defaultdict(list)
    for outcome in outcomes:
        codes.update(outcome.codes)
        for figure, details in outcome.problems.items():
            figures[figure] += [f"{outcome.path}: {detail}" for detail in details]

    print(f"files: {len(outcomes)} ({elapsed:.0f} s, {len(outcomes) / elapsed:.1f} files/s, "
          f"{'safe' if args.safe_only else 'safe and unsafe'} fixes)")
    print("findings per code: " + (", ".join(f"{c} {n}" for c, n in sorted(codes.items())) or "none"))
    print(f"files changed by fix: {sum(o.fixes > 0 for o in outcomes)} "
          f"({sum(o.fixes for o in outcomes)} fixes)")
    for figure in ("unreadable files", "files that do not parse (TFE000)", "fixes refused"):
        print(f"{figure}: {len(figures[figure])}")
    for figure in TARGETS:
        print(f"{figure}: {len(figures[figure])}  (target 0)")
    slowest = max(outcomes, key=lambda o: o.seconds, default=None)
    if slowest is not None:
        print(f"slowest file: {slowest.path} ({slowest.seconds:.1f} s)")
    for figure, details in sorted(figures.items()):
        shown = details if args.verbose or figure in TARGETS else details[:3]
        for detail in shown:
            print(f"  [{figure}] {detail}")
    return 1 if any(figures[f] for f in TARGETS) else 0


if __name__ == "__main__":
    sys.exit(main())
