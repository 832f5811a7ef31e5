"""Precision triage: lint the real-code corpus, write findings for review, print precision.

The corpus (``scripts/corpus.py``: tf-models-official, tf-keras, keras,
tensorflow-probability, tensorflow-datasets, tensorflow-addons) is code nobody
here wrote.  Every file is linted with every rule.  Findings are counted per
(file, line, code): two findings of one rule on one line are one review item.
Per rule, all items are reviewed when there are fewer than 50, else a random
sample of 50 (fixed seed, stable when items come and go).  The review files
(outside the repository, next to the corpus) show every finding with the lines
around it and its severity, the sampled ones marked with their label or
``TODO``.  Verdicts live in ``quality/labels.csv`` (see ``quality/README.md``);
the table printed at the end counts the labelled items of the current sample.

    python scripts/triage.py                 # lint (2 processes), write review, print table
    python scripts/triage.py --reuse         # reuse the last lint results
    python scripts/triage.py --markdown      # the table as the README shows it

Exit status: 0 when every sampled item has a label, 1 otherwise.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import multiprocessing
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, NamedTuple, Tuple

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from corpus import DEFAULT_ROOT, fetch, package_dir, python_files  # noqa: E402
from tflint_effective.engine.lint import lint_source  # noqa: E402
from tflint_effective.levels import PARSE_ERROR  # noqa: E402
from tflint_effective.registry import all_rules  # noqa: E402
from tflint_effective.frontends.files import SourceError, read_source  # noqa: E402

LABELS = REPO / "quality" / "labels.csv"
SAMPLE_SIZE = 50
SEED = 10
CONTEXT_LINES = 3


class Item(NamedTuple):
    """One review item: the findings of one rule on one line."""

    package: str
    path: str  # relative to the package's directory in the corpus
    line: int
    code: str
    cols: Tuple[int, ...]
    severity: str
    message: str

    @property
    def key(self) -> Tuple[str, int, str]:
        return self.path, self.line, self.code


def lint_file(job) -> List[dict]:
    package, path, root = job
    try:
        text = read_source(Path(path)).text
    except SourceError:
        return []
    relative = str(Path(path).relative_to(package_dir(Path(root), package)))
    return [dict(package=package, path=relative, line=d.line, col=d.col + 1, code=d.code,
                 severity=d.severity, message=d.message)
            for d in lint_source(text, path) if d.code != PARSE_ERROR]


def lint_corpus(root: Path, jobs: int) -> List[dict]:
    work = [(package, str(path), str(root)) for package, path in python_files(root)]
    with multiprocessing.Pool(jobs) as pool:
        return [f for found in pool.imap(lint_file, work, chunksize=8) for f in found]


def items_by_code(findings: List[dict]) -> Dict[str, List[Item]]:
    grouped: Dict[Tuple[str, str, int, str], List[dict]] = defaultdict(list)
    for f in findings:
        grouped[f["package"], f["path"], f["line"], f["code"]].append(f)
    by_code: Dict[str, List[Item]] = defaultdict(list)
    for (package, path, line, code), group in sorted(grouped.items()):
        cols = tuple(sorted(f["col"] for f in group))
        first = group[0]
        by_code[code].append(Item(package, path, line, code, cols, first.get("severity", "?"),
                                  first["message"]))
    return by_code


def sample(items: List[Item]) -> List[Item]:
    """All items below the sample size, else the first 50 in a seeded random order.

    The order is a hash of the seed and the item's key, so an item that appears or
    disappears (a rule changed) moves at most one item in or out of the sample.
    """
    if len(items) < SAMPLE_SIZE:
        return list(items)
    return sorted(sorted(items, key=_rank)[:SAMPLE_SIZE])


def _rank(item: Item) -> str:
    return hashlib.sha256(f"{SEED}:{item.path}:{item.line}:{item.code}".encode()).hexdigest()


def read_labels(path: Path = LABELS) -> Dict[Tuple[str, int, str], Tuple[str, str]]:
    labels = {}
    if path.exists():
        with path.open(newline="") as handle:
            for row in csv.DictReader(handle):
                labels[row["path"], int(row["line"]), row["code"]] = (row["verdict"], row["reason"])
    return labels


def excerpt(root: Path, item: Item) -> str:
    lines = (package_dir(root, item.package) / item.path).read_text(errors="replace").splitlines()
    start, end = max(item.line - 1 - CONTEXT_LINES, 0), min(item.line + CONTEXT_LINES, len(lines))
    return "\n".join(f"{'>' if n + 1 == item.line else ' '}{n + 1:6d}  {lines[n]}"
                     for n in range(start, end))


def write_review(root: Path, by_code, samples, labels) -> Path:
    folder = root / "triage"
    folder.mkdir(exist_ok=True)
    for old in folder.glob("TFE*.txt"):
        old.unlink()
    for code, items in by_code.items():
        sampled = set(samples[code])
        with (folder / f"{code}.txt").open("w") as out:
            out.write(f"{code}: {len(items)} items, {len(sampled)} sampled\n\n")
            for item in sorted(items, key=lambda i: i not in sampled):
                verdict = labels.get(item.key, ("TODO", ""))[0] if item in sampled else "not sampled"
                out.write(f"=== [{verdict}] {item.package}: {item.path}:{item.line} cols {item.cols} "
                          f"{item.severity}\n"
                          f"    {item.message}\n{excerpt(root, item)}\n\n")
    return folder


def table(by_code, samples, labels, markdown: bool) -> Tuple[str, int]:
    """Per rule: items, labelled sampled items, TP, FP, precision, and the FP items
    labelled earlier that the rules no longer report (false-positive classes fixed)."""
    header = ("rule", "findings", "reviewed", "TP", "FP", "precision", "FP fixed")
    rows, missing = [], 0
    for rule in all_rules():
        code = rule.CODE
        verdicts = [labels[i.key][0] for i in samples.get(code, ()) if i.key in labels]
        missing += len(samples.get(code, ())) - len(verdicts)
        tp, fp = verdicts.count("TP"), verdicts.count("FP")
        precision = f"{100 * tp / (tp + fp):.0f}%" if tp + fp else "n/a"
        found = {item.key for item in by_code.get(code, ())}
        fixed = sum(1 for key, (verdict, _) in labels.items()
                    if key[2] == code and verdict == "FP" and key not in found)
        rows.append((code, len(by_code.get(code, ())), len(verdicts), tp, fp, precision, fixed))
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    else:
        lines = ["".join(f"{str(c):>10}" for c in row) for row in [header, *rows]]
    return "\n".join(lines), missing


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--reuse", action="store_true", help="reuse the last lint results")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    root = fetch(args.root)
    results = root / "triage" / "findings.json"
    if args.reuse and results.exists():
        findings = json.loads(results.read_text())
    else:
        findings = lint_corpus(root, args.jobs)
        results.parent.mkdir(exist_ok=True)
        results.write_text(json.dumps(findings))
    by_code = items_by_code(findings)
    samples = {code: sample(items) for code, items in by_code.items()}
    labels = read_labels()
    folder = write_review(root, by_code, samples, labels)
    text, missing = table(by_code, samples, labels, args.markdown)
    print(text)
    print(f"\nreview files: {folder}; sampled items without a label: {missing}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
