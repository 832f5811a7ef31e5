"""Inputs libcst parses slowly or hugely, and what ``engine/guard.py`` says about them.

    python benchmarks/bench_pathological.py           # scan time and verdict, each shape and size;
                                                      #   then the corpus: refusals among its *.py,
                                                      #   scan time vs libcst's on a sample of them
    python benchmarks/bench_pathological.py --parse   # + libcst's time and peak memory on the accepted
                                                      #   inputs, and on the largest accepted input of
                                                      #   each shape: "accepted => within budget"
    python benchmarks/bench_pathological.py --fit     # parse every input (killed after --timeout) and
                                                      #   print it against the guard's model
Options: --only SHAPE..., --corpus DIR (default ~/.cache/tflint-effective-corpus),
--no-corpus, --sample N, --timeout S.

Each parse runs ``libcst.parse_module`` in a fresh subprocess (on a thread with a
large stack, as ``engine/parse.py`` does), measured as CPU time and as the growth
of peak RSS after importing libcst; a parse slower than ``--timeout`` is killed.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from tflint_effective.engine import guard, token_scan  # noqa: E402  (imports only the standard library)

CORPUS = pathlib.Path.home() / ".cache" / "tflint-effective-corpus"


def _floats(n):
    return ", ".join("%.17g" % (i * 0.1234567) for i in range(n))


def _chain(operator, operand="a"):
    return lambda n: "x = " + f" {operator} ".join([operand] * n) + "\n"


# name -> (source for size n, sizes); n counts operators, links, elements or statements.
SHAPES = {
    "plus": (_chain("+"), [500, 1000, 1500, 2000, 3000, 4000, 10000]),
    "matmul": (_chain("@"), [500, 1000, 1500, 2000, 3000]),
    "modulo": (_chain("%"), [500, 1000, 1500, 2000, 3000]),
    "minus": (_chain("-"), [1000, 2000, 3000]),
    "floor-division": (_chain("//"), [1000, 2000, 3000]),
    "bitwise-or": (_chain("|"), [1000, 2000, 3000]),
    "unary-run": (lambda n: "x = f(" + "-" * n + "y)\n", [1000, 2000, 3000]),
    "plus-multiline": (lambda n: "x = (\n" + " +\n".join(["    a"] * n) + "\n)\n", [1000, 2000, 4000]),
    "plus-of-products": (_chain("+", "a * b"), [1000, 2000, 3000]),
    "plus-of-attributes": (_chain("+", "a.b.c"), [500, 1000, 1500, 2000]),
    "plus-of-calls": (_chain("+", "f(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)"), [250, 500, 750, 1000]),
    "plus-of-big-calls": (_chain("+", "f(%s)" % ", ".join(["1"] * 100)), [50, 100, 200, 300]),
    "plus-in-f-string": (lambda n: 'x = f"{' + " + ".join(["a"] * n) + '}"\n', [1000, 2000, 4000]),
    "plus-statements": (lambda n: "".join(f"x{i} = " + " + ".join(["a"] * 200) + "\n" for i in range(n)),
                        [100, 300, 1000]),
    "and": (_chain("and"), [3000, 10000, 30000]),
    "compare": (_chain("<"), [3000, 10000, 30000]),
    "method": (lambda n: "x = y" + ".a()" * n + "\n", [250, 500, 750, 1000, 2000]),
    "method-with-args": (lambda n: "x = y" + ".a(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)" * n + "\n",
                         [100, 200, 300, 400]),
    "attribute": (lambda n: "x = y" + ".a" * n + "\n", [1000, 2000, 3000]),
    "call": (lambda n: "x = y" + "()" * n + "\n", [500, 1000, 1500, 2000]),
    "subscript": (lambda n: "x = y" + "[0]" * n + "\n", [250, 500, 750, 1000, 2000]),
    "subscript-pair": (lambda n: "x = y" + "[0, 1]" * n + "\n", [250, 500, 750, 1000]),
    "conditional": (lambda n: "x = " + " if c else ".join(["a"] * n) + "\n", [500, 1000, 1500, 2000]),
    "power": (_chain("**"), [500, 1000, 1500, 2000]),
    "floats": (lambda n: "x = [" + _floats(n) + "]\n", [10_000, 30_000, 50_000, 100_000, 300_000]),
    "floats-multiline": (lambda n: "x = [\n" + "".join("    %.17g,\n" % (i * 0.1234567) for i in range(n))
                         + "]\n", [10_000, 50_000, 100_000]),
    "ints": (lambda n: "x = [" + ", ".join(["1"] * n) + "]\n", [10_000, 30_000, 100_000]),
    "rows": (lambda n: "x = [" + ", ".join(["[1.5, 2.5, 3.5, 4.5]"] * n) + "]\n", [3_000, 6_000, 10_000]),
    "dict": (lambda n: "x = {" + ", ".join(f"'k{i}': {i}" for i in range(n)) + "}\n", [10_000, 20_000, 40_000]),
    "arguments": (lambda n: "f(" + ", ".join(["a"] * n) + ")\n", [10_000, 30_000, 40_000]),
    "nested-lists": (lambda n: "x = " + "[" * n + "1" + "]" * n + "\n", [100, 150, 199]),
    "nested-calls": (lambda n: "x = " + "f(" * n + "1" + ")" * n + "\n", [100, 150, 199]),
    "nested-conditionals": (lambda n: "x = " + "(a if c else " * n + "a" + ")" * n + "\n", [100, 150, 199]),
    "nested-dicts": (lambda n: "x = " + "{1: " * n + "1" + "}" * n + "\n", [100, 150, 199]),
    "list-at-depth-3": (lambda n: "x = " + "[" * 3 + "1, " * n + "]" * 3 + "\n", [10_000, 30_000]),
    "list-at-depth-10": (lambda n: "x = " + "[" * 10 + "1, " * n + "]" * 10 + "\n", [5_000, 10_000, 30_000]),
    "list-at-depth-50": (lambda n: "x = " + "[" * 50 + "1, " * n + "]" * 50 + "\n", [1_000, 3_000, 10_000]),
    "call-at-depth-50": (lambda n: "x = " + "f(" * 50 + "1, " * n + ")" * 50 + "\n", [1_000, 2_000, 5_000]),
    "list-at-depth-100": (lambda n: "x = " + "[" * 100 + "1, " * n + "]" * 100 + "\n", [500, 1_000, 2_000]),
    "cubes": (lambda n: "x = [" + ", ".join(["[[1, 2], [3, 4]]"] * n) + "]\n", [3_000, 6_000, 10_000]),
    "nested-statements": (lambda n: "".join("x = " + "[" * 150 + "1" + "]" * 150 + "\n" for _ in range(n)),
                          [10, 20, 50]),
    "list-statements": (lambda n: "".join(f"x{i} = [" + _floats(100) + "]\n" for i in range(n)),
                        [100, 500, 1000]),
}

MANY_STATEMENTS = {"plus-statements", "list-statements", "nested-statements"}  # the file budget applies

_CHILD = r"""
import json, resource, sys, threading, time
source = open(sys.argv[1], encoding="utf-8").read()
import libcst
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sys.setrecursionlimit(20_000)
threading.stack_size(512 * 1024 * 1024)
out = {}
def run():
    start = time.process_time()
    try:
        libcst.parse_module(source)
        out["ok"] = True
    except Exception as error:
        out["ok"] = type(error).__name__
    out["seconds"] = time.process_time() - start
thread = threading.Thread(target=run)
thread.start()
thread.join()
out["mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(json.dumps(out))
"""


def parse_in_subprocess(source: str, timeout: float) -> dict:
    """libcst's CPU time and peak-RSS growth on ``source``; {"timeout": True} when killed."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, encoding="utf-8") as handle:
        handle.write(source)
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, handle.name], capture_output=True,
                              text=True, timeout=timeout)
        return json.loads(done.stdout) if done.stdout else {"ok": done.stderr.strip()[-200:]}
    except subprocess.TimeoutExpired:
        return {"timeout": True}
    finally:
        os.unlink(handle.name)


def predicted(source: str):
    """The guard's estimate for the costliest statement: (seconds, MB)."""
    result = token_scan.scan(source)
    worst = (result.tokens * token_scan.SECONDS_PER_TOKEN, result.tokens * token_scan.MB_PER_TOKEN)
    for s in result.statements:
        seconds = s.seconds + s.tokens * token_scan.SECONDS_PER_TOKEN
        worst = max(worst, (seconds, s.megabytes + s.tokens * token_scan.MB_PER_TOKEN))
    if len(result.statements) <= 1:
        return worst
    return result.seconds(), result.tokens * token_scan.MB_PER_TOKEN + result.megabytes()  # parsed whole


def largest_accepted(make, sizes):
    """The largest n the guard accepts (bisection; the scan is cheap), or None."""
    refused = [n for n in sizes if guard.refusal(make(n))]
    if not refused:
        return None
    low, high = 1, min(refused)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if guard.refusal(make(middle)) else (middle, high)
    return low


def shapes(args):
    header = f"{'shape':<20} {'n':>8} {'KB':>7} {'scan ms':>8}  verdict "
    if args.parse or args.fit:
        header += f"  {'model s':>8} {'model MB':>8}   {'libcst s':>8} {'MB':>6}"
    print(header)
    worst = {True: (0.0, ""), False: (0.0, "")}  # the slowest accepted statement / file
    heaviest = (0.0, "")  # the most memory of an accepted statement
    for name, (make, sizes) in SHAPES.items():
        if args.only and name not in args.only:
            continue
        edge = largest_accepted(make, sizes) if args.parse else None
        for n in sorted(set(sizes) | ({edge} if edge else set())):
            source = make(n)
            start = time.perf_counter()
            reason = guard.refusal(source)
            scan_ms = (time.perf_counter() - start) * 1e3
            verdict = "refused " if reason else ("edge    " if n == edge else "accepted")
            line = f"{name:<20} {n:>8} {len(source) / 1e3:>7.0f} {scan_ms:>8.1f}  {verdict}"
            if args.fit or (args.parse and not reason):
                seconds, megabytes = predicted(source)
                parsed = parse_in_subprocess(source, args.timeout)
                timed_out = parsed.get("timeout")
                measured = ">%g" % args.timeout if timed_out else "%.3f" % parsed["seconds"]
                line += f"  {seconds:>8.3f} {megabytes:>8.0f}   {measured:>8} {parsed.get('mb', 0):>6.0f}"
                if not reason:
                    label, one = f"{name} n={n}", name not in MANY_STATEMENTS
                    worst[one] = max(worst[one], (float("inf") if timed_out else parsed["seconds"], label))
                    if one:
                        heaviest = max(heaviest, (parsed.get("mb", float("inf")), label))
            print(line, flush=True)
    if args.parse or args.fit:
        print(f"accepted one-statement inputs: slowest {worst[True][1]}, {worst[True][0]:.2f} s "
              f"(budget {guard.STATEMENT_SECONDS:g} s); most memory {heaviest[1]}, {heaviest[0]:.0f} MB "
              f"(budget {guard.STATEMENT_MB:g} MB)")
        print(f"accepted many-statement files: slowest {worst[False][1]}, {worst[False][0]:.2f} s "
              f"(budget {guard.FILE_SECONDS:g} s; parsed whole here, by pieces in the linter)")


def corpus(args):
    files = sorted(pathlib.Path(args.corpus).rglob("*.py"))
    refused, scan_seconds, total_bytes = [], 0.0, 0
    for path in files:
        source = path.read_text(encoding="utf-8", errors="surrogateescape")
        total_bytes += len(source)
        start = time.perf_counter()
        reason = guard.refusal(source)
        scan_seconds += time.perf_counter() - start
        if reason:
            refused.append((path, reason))
    print(f"{len(files)} files, {total_bytes / 1e6:.1f} MB: {len(refused)} refused; "
          f"scan {scan_seconds:.2f} s in all")
    for path, reason in refused:
        print(f"  {path.relative_to(args.corpus)}: {reason}")
    sample = random.Random(0).sample(files, min(args.sample, len(files)))
    sample += sorted(files, key=lambda p: p.stat().st_size)[-5:]  # and the largest
    import libcst  # noqa: PLC0415  (only here: the scan above ran without it)
    scanned = parsed = 0.0
    ratios = []
    for path in sample:  # CPU time, the best of 3 scans and of 2 parses
        source = path.read_text(encoding="utf-8")
        scan = min(_cpu(guard.refusal, source) for _ in range(3))
        parse = min(_cpu(libcst.parse_module, source) for _ in range(2))
        scanned, parsed = scanned + scan, parsed + parse
        ratios.append((scan / parse, path.stat().st_size))
    ratios = sorted(ratio for ratio, size in ratios if size >= 1_000)
    print(f"sample of {len(sample)} files: scan {scanned:.2f} s, libcst.parse_module {parsed:.2f} s "
          f"({100 * scanned / parsed:.1f}%); per file of 1 KB or more: median "
          f"{100 * ratios[len(ratios) // 2]:.1f}%, 90th percentile {100 * ratios[len(ratios) * 9 // 10]:.1f}%, "
          f"max {100 * ratios[-1]:.1f}%")


def _cpu(function, source):
    start = time.process_time()
    function(source)
    return time.process_time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parse", action="store_true", help="parse the accepted inputs with libcst")
    parser.add_argument("--fit", action="store_true", help="parse every input, show the model")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds before a parse is killed")
    parser.add_argument("--only", nargs="*", help="only these shapes")
    parser.add_argument("--corpus", default=str(CORPUS), help="directory of real code")
    parser.add_argument("--no-corpus", action="store_true", help="skip the corpus")
    parser.add_argument("--sample", type=int, default=200, help="corpus files parsed for the time ratio")
    args = parser.parse_args()
    shapes(args)
    if not args.no_corpus and pathlib.Path(args.corpus).is_dir():
        print()
        corpus(args)


if __name__ == "__main__":
    main()
