"""Where ``check``'s CPU goes on the files the pre-filter keeps: libcst's parse, then the analysis.

The same fixed-seed sample as ``bench_lint.py``; each file is parsed (``engine/parse.py``:
the guard's scan, the piecewise parse) and analysed (``engine/analyse.py``: the one traversal,
every rule, positions of what is reported) in this process, with the collector paused as in a
run.  Printed: CPU seconds of each stage, medians of ``--repeat`` passes.  To compare two
checkouts, alternate runs of this one and ``--checkout OTHER`` (interleaved pairs).

    python benchmarks/bench_analysis.py                        # 1,000 files, seed 8, 3 passes
    python benchmarks/bench_analysis.py --checkout ../old      # the package of another checkout
"""
from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lint import sample  # noqa: E402  (the benchmark's own corpus and sample)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--checkout", type=Path, help="measure the tflint_effective of this checkout")
    args = parser.parse_args(argv)
    if args.checkout:
        sys.path.insert(0, str(args.checkout.resolve()))

    import tflint_effective
    from tflint_effective import registry
    from tflint_effective.engine.analyse import lint_module
    from tflint_effective.engine.parse import PARSE_FAILURES, parse
    from tflint_effective.engine.prefilter import can_skip
    from tflint_effective.engine.threads import RECURSION_LIMIT

    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    _, _, chosen = sample(args.files, args.seed)
    texts = [(str(path), path.read_text(encoding="utf-8", errors="replace")) for _, path in chosen]
    kept = [(path, text) for path, text in texts if not can_skip(text)]
    rules = registry.selected_rules(None, None)
    print(f"{tflint_effective.__file__}: {len(kept)} of {len(texts)} files kept by the pre-filter")
    parsing, analysing = [], []
    gc.disable()
    for _ in range(args.repeat):
        parse_seconds = analyse_seconds = 0.0
        for path, text in kept:
            start = time.process_time()
            try:
                module = parse(text)
            except PARSE_FAILURES:  # reported as TFE000 by a run; nothing to analyse
                continue
            middle = time.process_time()
            lint_module(module, path, rules)
            parse_seconds += middle - start
            analyse_seconds += time.process_time() - middle
            del module
        parsing.append(parse_seconds)
        analysing.append(analyse_seconds)
    print(f"parse {statistics.median(parsing):.2f} s, analysis {statistics.median(analysing):.2f} s of CPU "
          f"(medians of {args.repeat} passes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
