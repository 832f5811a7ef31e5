"""The long fuzz run: tests/test_fuzz.py's checks on many more, random programs.

Rounds of random (not derandomized) examples from each strategy of
tests/test_fuzz.py: TensorFlow-flavoured programs, variations of every rule's
fixture, and hypothesmith's valid Python.  A failing program is shrunk by
hypothesis and printed; the run goes on until the time is up.

    python scripts/fuzz.py --minutes 30
    python scripts/fuzz.py --minutes 5 --strategy tensorflow

Prints how many programs were tried per strategy; exits 1 if any failed.
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from hypothesis import HealthCheck, given, settings  # noqa: E402

import test_fuzz  # noqa: E402

STRATEGIES = {
    "tensorflow": test_fuzz.TF_PROGRAMS,
    "fixtures": test_fuzz.st.sampled_from(sorted(test_fuzz.RULE_OF_FIXTURE)).flatmap(
        test_fuzz.fixture_variations).filter(test_fuzz._valid),
    "python": test_fuzz.PYTHON_PROGRAMS,
}


def fuzz_round(strategy, examples: int, tried: collections.Counter, name: str) -> None:
    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=True)
    @given(strategy)
    def check(source):
        tried[name] += 1
        test_fuzz.check_program(source)

    check()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--strategy", choices=sorted(STRATEGIES), action="append",
                        help="only these strategies (repeatable; default: all)")
    parser.add_argument("--round", type=int, default=200, help="examples per round and strategy")
    args = parser.parse_args(argv)
    names = args.strategy or list(STRATEGIES)
    deadline = time.monotonic() + args.minutes * 60
    tried, failures = collections.Counter(), collections.Counter()
    rounds = 0
    while time.monotonic() < deadline:
        for name in names:
            try:
                fuzz_round(STRATEGIES[name], args.round, tried, name)
            except Exception:  # hypothesis re-raises the shrunk failure
                failures[name] += 1
                print(f"--- failure in strategy {name!r}:\n{traceback.format_exc()}", flush=True)
        rounds += 1
        print(f"round {rounds}: tried " + ", ".join(f"{n} {tried[n]}" for n in names), flush=True)
    total = sum(tried.values())
    print(f"programs tried: {total} ({', '.join(f'{n} {tried[n]}' for n in names)}); "
          f"failures: {sum(failures.values())}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
