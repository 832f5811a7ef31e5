"""tflint-effective versus flake8, ruff and Fixit on real TensorFlow code, side by side.

The corpus is the sources of six TensorFlow-heavy packages (``scripts/corpus.py``
downloads the pinned wheels with pip once).  A fixed-seed sample of it is copied
to a temporary directory and every tool checks that directory, each as a fresh
process, ``--repeat`` times in interleaved order; the table shows medians of
wall-clock seconds, files per second and ratios from this one run.  CPU seconds
(the tool's processes and their workers) are shown too: on a busy machine they
move less than wall time.  Peak memory is the sum of the resident sizes of the
tool's process tree, sampled every 50 ms in one more run of each command after
the timed ones: the sampler takes CPU time, which on two cores would slow the
two-worker runs more than the others.

flake8 runs with its default checks only (our flake8 plugin filtered out), and
once more with the plugin to see what it adds.  ruff and Fixit are measured
when installed (``--ruff`` / ``--fixit`` name other executables); Fixit runs
once, it is slow.

    python benchmarks/bench_lint.py                  # 1,000 files, seed 8, 3 repeats
    python benchmarks/bench_lint.py --files 0        # the whole corpus
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
sys.path.insert(0, str(ROOT))
# flake8 with every plugin but ours: its "default checks" (pycodestyle, pyflakes, mccabe).
FLAKE8_WITHOUT_US = (
    "import sys, flake8.plugins.finder as finder\n"
    "found = finder._find_importlib_plugins\n"
    "finder._find_importlib_plugins = lambda: (p for p in found() if p.package != 'tflint-effective')\n"
    "from flake8.main.cli import main\n"
    "sys.exit(main())\n"
)


def _corpus_module():
    spec = importlib.util.spec_from_file_location("corpus", ROOT / "scripts" / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sample(count: int, seed: int):
    """(package, path) pairs: ``count`` files drawn with ``random.Random(seed)`` (0: all)."""
    corpus = _corpus_module()
    root = corpus.fetch()
    files = list(corpus.python_files(root))
    chosen = files if not count or count >= len(files) else sorted(random.Random(seed).sample(files, count))
    return root, chosen


def describe(root: Path, chosen) -> str:
    texts = [path.read_bytes() for _, path in chosen]
    size = sum(map(len, texts))
    without = [t for t in texts if b"tensorflow" not in t]
    from tflint_effective.engine.prefilter import can_skip

    skipped = [t for t in texts if can_skip(t.decode("utf-8", "replace"))]
    packages = sorted({package for package, _ in chosen})
    return (f"{len(chosen)} files, {size / 1e6:.1f} MB from {', '.join(packages)} ({root}); "
            f"{len(without) / len(texts):.0%} never mention tensorflow "
            f"({sum(map(len, without)) / size:.0%} of the bytes); "
            f"{len(skipped) / len(texts):.0%} import no TensorFlow and are skipped by the pre-filter "
            f"({sum(map(len, skipped)) / size:.0%} of the bytes)")


def copy_tree(root: Path, chosen, target: Path) -> None:
    for _, path in chosen:
        destination = target / path.relative_to(root)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and its descendants (Linux /proc; 0 elsewhere)."""
    total, pending = 0, [pid]
    while pending:
        member = pending.pop()
        try:
            with open(f"/proc/{member}/statm") as stream:
                total += int(stream.read().split()[1]) * PAGE
            with open(f"/proc/{member}/task/{member}/children") as stream:
                pending += [int(child) for child in stream.read().split()]
        except (OSError, ValueError):
            continue
    return total


def measure(command, env=None, memory=False):
    """(wall seconds, CPU seconds of the process tree, peak tree RSS bytes (0 unless
    ``memory``), exit status)."""
    before = os.times()
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    peak = [0]
    stop = threading.Event()

    def sample_memory():
        while not stop.wait(0.05):
            peak[0] = max(peak[0], _tree_rss(process.pid))

    sampler = threading.Thread(target=sample_memory, daemon=True)
    if memory:
        sampler.start()
    _, errors = process.communicate()
    wall = time.perf_counter() - start
    stop.set()
    if memory:
        sampler.join()
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if process.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(map(str, command))} failed ({process.returncode}):\n{errors.decode()[-2000:]}")
    return wall, cpu, peak[0], process.returncode


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="files to sample (0: the whole corpus)")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ruff", default=shutil.which("ruff") or shutil.which("ruff", path=Path(PYTHON).parent))
    parser.add_argument("--fixit", default=shutil.which("fixit") or shutil.which("fixit", path=Path(PYTHON).parent))
    args = parser.parse_args(argv)

    root, chosen = sample(args.files, args.seed)
    print(describe(root, chosen))
    print(f"{os.cpu_count()} CPUs; load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="bench-lint-") as temp:
        tree, cache_dir = Path(temp, "corpus"), Path(temp, "cache")
        copy_tree(root, chosen, tree)
        env = {**os.environ, "TFLINT_EFFECTIVE_CACHE_DIR": str(cache_dir)}
        tfe = [PYTHON, "-m", "tflint_effective", "check", "--isolated", "-q", "--exit-zero"]
        flake8 = [PYTHON, "-c", FLAKE8_WITHOUT_US, "--isolated", "--exit-zero"]
        runs = {
            "flake8 default checks, -j1": flake8 + ["-j1", str(tree)],
            "flake8 default checks, -j2": flake8 + ["-j2", str(tree)],
            "flake8 default checks + TFE plugin, -j1": [PYTHON, "-m", "flake8", "--isolated", "--exit-zero",
                                                        "-j1", str(tree)],
            "tflint-effective check, 1 process": tfe + ["--no-cache", "-j1", str(tree)],
            "tflint-effective check, --jobs 2": tfe + ["--no-cache", "-j2", str(tree)],
            "tflint-effective check, no pre-filter, 1 process": tfe + ["--no-cache", "--no-prefilter", "-j1",
                                                                       str(tree)],
        }
        if args.ruff:
            runs["ruff check (default rules)"] = [args.ruff, "check", "--isolated", "--no-cache", "--exit-zero",
                                                  "--quiet", str(tree)]
        times = {name: [] for name in runs}
        cached = {"tflint-effective check, --jobs 2, empty cache": [],
                  "tflint-effective check, --jobs 2, second run (cached)": []}
        peaks = {}
        for round_ in range(args.repeat + 1):  # the last round samples memory
            memory = round_ == args.repeat
            for name, command in runs.items():
                times[name].append(measure(command, env, memory))
            shutil.rmtree(cache_dir, ignore_errors=True)
            for name in cached:
                cached[name].append(measure(tfe + ["-j2", str(tree)], env, memory))
            print(f"  round {round_ + 1}/{args.repeat + 1} done{' (memory)' if memory else ''}, "
                  f"load {os.getloadavg()[0]:.2f}", file=sys.stderr)
        times.update(cached)
        for name, values in times.items():
            peaks[name] = values.pop()[2]
        if args.fixit:
            # Fixit's default rules, in as many processes as there are CPUs, once
            fixit = measure([args.fixit, "lint", str(tree)], env, memory=True)
            times["Fixit default rules (fixit lint, all CPUs)"] = [fixit]
            peaks["Fixit default rules (fixit lint, all CPUs)"] = fixit[2]
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return report(times, peaks, len(chosen))


def report(times, peaks, files: int) -> int:
    median = {name: (*(statistics.median(run[i] for run in values) for i in range(2)), peaks[name])
              for name, values in times.items()}
    base = median["flake8 default checks, -j1"][0]
    print("\n| tool | seconds (median) | CPU s | files/s | vs flake8 -j1 | peak RSS MB | runs |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, (wall, cpu, rss) in median.items():
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {files / wall:.1f} | {wall / base:.2f}x | {rss / 1e6:.0f} "
              f"| {len(times[name])} |")
    one = median["tflint-effective check, 1 process"]
    two = median["tflint-effective check, --jobs 2"]
    plugin = median["flake8 default checks + TFE plugin, -j1"][0] - base
    cold = median["tflint-effective check, --jobs 2, empty cache"][0]
    warm = median["tflint-effective check, --jobs 2, second run (cached)"][0]
    print("\ntargets (ratios of medians from this run)")
    print(f"1. check, 1 process / flake8 -j1: {one[0] / base:.2f}x wall (target <= 0.70), "
          f"{one[1] / median['flake8 default checks, -j1'][1]:.2f}x CPU")
    fixit = median.get("Fixit default rules (fixit lint, all CPUs)")
    if fixit:
        print(f"   Fixit / check, 1 process: {fixit[0] / one[0]:.1f}x (target >= 5)")
    else:
        print("   Fixit: not installed, not measured")
    print(f"2. --jobs 2 speed-up: {one[0] / two[0]:.2f}x (target >= 1.8)")
    print(f"3. second (cached) run / first run: {warm / cold:.1%} (target <= 5%)")
    print(f"4. what the plugin adds to flake8 -j1: {plugin:.2f} s; check, 1 process: {one[0]:.2f} s "
          f"(target: not more)")
    print(f"5. peak RSS with 2 workers (process tree): {two[2] / 1e6:.0f} MB (target < 300)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
