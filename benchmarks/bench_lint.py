"""tflint-effective's CPU cost against flake8's, on real TensorFlow code and on single files.

The corpus is the sources of the packages pinned in ``scripts/corpus.py`` (their
versions are printed with the results; ``pip download`` fetches the wheels once,
into ``~/.cache/tflint-effective-corpus``).  A fixed-seed sample of it is copied
to a temporary directory.  Every command runs as a fresh process; the figures
are CPU seconds (user + system, of the process and every worker it waited for),
medians of ``--repeat`` (at least 5; at least 20 for the single files) rounds in
which the commands of a comparison run one after the other (interleaved pairs), in
reverse order every other round, so slow phases of a shared machine hit both sides
alike.  flake8 runs with its default checks only (pycodestyle, pyflakes, mccabe: our
plugin filtered out) unless the plugin is what is measured.

Figures (the targets of issue 21 in brackets):
1. ``check`` of the corpus, one process, no cache / ``flake8 -j1``      (<= 0.5x)
2. ``check`` of one small TensorFlow file / flake8 on it                (<= 1.5x)
3. ``check`` of one file without TensorFlow / flake8 on it              (<= 1.2x)
4. what the plugin adds to ``flake8 -j1`` on the corpus, with an empty
   cache and with the cache a previous run filled                       (<= 50%, <= 10%)
5. peak RSS of the largest single process of ``check --jobs 2``         (<= 300 MB)
6. ``--jobs 2`` wall-time speed-up over one process, measured only while
   the load average is below 0.5 (the benchmark waits up to ``--settle``
   seconds for it before each pair; "not measurable" otherwise)         (>= 1.8x)

    python benchmarks/bench_lint.py                    # 1,000 files, seed 8, 5 rounds
    python benchmarks/bench_lint.py --files 200 --repeat 5 --settle 0   # a quick look
    python benchmarks/bench_lint.py --only-plugin --corpus DIR  # figure 4 on another folder's sources
    python benchmarks/bench_lint.py --only-jobs --settle 600    # figure 6, waiting longer for a quiet machine
    python benchmarks/bench_lint.py --only-start-up            # figures 2 and 3 (20 rounds)
"""
from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
# Figures 2 and 3 are a few clock ticks (10 ms) each: they take at least this many rounds.
SINGLE_FILE_ROUNDS = 20
PYTHON = sys.executable
TFE = [PYTHON, "-m", "tflint_effective", "check", "--isolated", "-q", "--exit-zero"]
sys.path.insert(0, str(ROOT))
# flake8 with every plugin but ours: its "default checks" (pycodestyle, pyflakes, mccabe).
FLAKE8_WITHOUT_US = (
    "import sys, flake8.plugins.finder as finder\n"
    "found = finder._find_importlib_plugins\n"
    "finder._find_importlib_plugins = lambda: (p for p in found() if p.package != 'tflint-effective')\n"
    "from flake8.main.cli import main\n"
    "sys.exit(main())\n"
)
# Runs a command and prints the peak RSS of the largest process of its tree (Linux:
# ru_maxrss of RUSAGE_CHILDREN is the largest of every descendant waited for).
PEAK_RSS = ("import resource, subprocess, sys\n"
            "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
SMALL_TF = '''"""A small model file."""
import tensorflow as tf


def loss(labels, logits):
    probabilities = tf.nn.softmax(logits)
    return -tf.reduce_sum(labels * tf.math.log(probabilities))


class Model(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(10)

    def call(self, x):
        return self.dense(tf.squeeze(x))
'''
NO_TF = '''"""A small module without TensorFlow."""
import collections
import os


def count_words(path):
    counts = collections.Counter()
    with open(path, encoding="utf-8") as stream:
        for line in stream:
            counts.update(line.split())
    return counts


def biggest(folder, n=10):
    sizes = [(entry.stat().st_size, entry.name) for entry in os.scandir(folder) if entry.is_file()]
    return sorted(sizes, reverse=True)[:n]
'''


def _corpus_module():
    spec = importlib.util.spec_from_file_location("corpus", ROOT / "scripts" / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Folder:
    """A folder of sources standing for the pinned corpus (``--corpus``)."""

    def __init__(self, root: Path):
        self.root = root
        self.PACKAGES = {str(root): "(folder)"}

    def fetch(self) -> Path:
        return self.root

    def python_files(self, root: Path):
        return [(None, path) for path in sorted(root.rglob("*.py")) if path.is_file()]


def sample(count: int, seed: int, folder: Optional[Path] = None):
    """(corpus module, root, [(package, path)]): ``count`` files drawn with ``random.Random(seed)``
    from the pinned corpus, or from ``folder``."""
    corpus = _Folder(folder) if folder else _corpus_module()
    root = corpus.fetch()
    files = list(corpus.python_files(root))
    chosen = files if not count or count >= len(files) else sorted(random.Random(seed).sample(files, count))
    return corpus, root, chosen


def describe(corpus, chosen) -> str:
    texts = [path.read_bytes() for _, path in chosen]
    size = sum(map(len, texts))
    from tflint_effective.engine.prefilter import can_skip

    skipped = [t for t in texts if can_skip(t.decode("utf-8", "replace"))]
    packages = ", ".join(f"{name}=={version}" for name, version in corpus.PACKAGES.items())
    return (f"corpus: {packages}\n"
            f"sample: {len(chosen)} files, {size / 1e6:.1f} MB; "
            f"{len(skipped) / len(texts):.0%} import no TensorFlow and are skipped by the pre-filter "
            f"({sum(map(len, skipped)) / size:.0%} of the bytes)")


def copy_tree(root: Path, chosen, target: Path) -> None:
    for _, path in chosen:
        destination = target / path.relative_to(root)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)


def run(command, env) -> tuple:
    """(wall seconds, CPU seconds of the process and the children it waited for)."""
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    after = os.times()
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(map(str, command))} failed ({done.returncode}):\n{done.stderr.decode()[-2000:]}")
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def peak_rss(command, env) -> int:
    """Bytes: the peak RSS of the largest single process of ``command``'s tree."""
    done = subprocess.run([PYTHON, "-c", PEAK_RSS, *command], capture_output=True, text=True, env=env, cwd=ROOT)
    return int(done.stdout.split()[-1]) * 1024


def rounds(commands: dict, repeat: int, before_each=None) -> dict:
    """name -> [(wall, cpu)]: the commands run one after the other, ``repeat`` times, in reverse
    order every other round (so a machine getting slower or faster favours none of them)."""
    results = {name: [] for name in commands}
    for number in range(repeat):
        for name, (command, env) in (reversed if number % 2 else iter)(list(commands.items())):
            if before_each is not None:
                before_each(name)
            results[name].append(run(command, env))
    return results


def cpu(results, name) -> float:
    return statistics.median(cpu_seconds for _, cpu_seconds in results[name])


def ratios(results, name, base) -> list:
    """``name``'s CPU time over ``base``'s, round by round."""
    return [a[1] / b[1] for a, b in zip(results[name], results[base])]


def paired(results, name, base) -> float:
    """The median over rounds of ``name``'s CPU time over ``base``'s in the same round."""
    return statistics.median(ratios(results, name, base))


def each(results, name, base) -> str:
    return ", ".join(f"{ratio - 1:+.0%}" for ratio in ratios(results, name, base))


def plugin_rounds(flake8, plugin, cache_dir: Path, env, repeat: int) -> str:
    """Figure 4: flake8 -j1 alone, then with the plugin and an empty cache, then warm."""
    results = rounds({
        "flake8 -j1": (flake8, env),
        "flake8 + plugin, empty cache": (plugin, env),
        "flake8 + plugin, warm cache": (plugin, env),
    }, repeat, before_each=lambda name: name.endswith("empty cache") and shutil.rmtree(
        cache_dir, ignore_errors=True))
    cold = paired(results, "flake8 + plugin, empty cache", "flake8 -j1") - 1
    warm = paired(results, "flake8 + plugin, warm cache", "flake8 -j1") - 1
    return "\n".join([table(results), "",
                      f"4. the plugin adds {cold:+.1%} to flake8 -j1's CPU with an empty cache (target <= 50%), "
                      f"{warm:+.1%} with a warm one (target <= 10%): medians of {repeat} paired rounds "
                      f"(empty: {each(results, 'flake8 + plugin, empty cache', 'flake8 -j1')}; "
                      f"warm: {each(results, 'flake8 + plugin, warm cache', 'flake8 -j1')})"])


def start_up_rounds(flake8, tfe, temp: Path, env, repeat: int) -> dict:
    """Figures 2 and 3, after one run that stores libcst's compiled dataclass code (as the first
    run of an install does, ``engine/startup.py``); and the small file without that code."""
    from tflint_effective.engine.startup import CODE_FILE

    (temp / "small_tf.py").write_text(SMALL_TF)
    (temp / "no_tf.py").write_text(NO_TF)
    small = tfe + ["--no-cache", str(temp / "small_tf.py")]
    run(small, env)
    results = rounds({
        "flake8 small TF file": (flake8 + [str(temp / "small_tf.py")], env),
        "check small TF file": (small, env),
        "flake8 file without TF": (flake8 + [str(temp / "no_tf.py")], env),
        "check file without TF": (tfe + ["--no-cache", str(temp / "no_tf.py")], env),
        "check small TF file, no stored code": (small, env),
    }, repeat, before_each=lambda name: name.endswith("no stored code") and CODE_FILE.unlink(missing_ok=True))
    print("  single-file rounds done", file=sys.stderr)
    return results


def start_up_figures(single) -> list:
    small = paired(single, "check small TF file", "flake8 small TF file")
    cold = paired(single, "check small TF file, no stored code", "flake8 small TF file")
    plain = paired(single, "check file without TF", "flake8 file without TF")
    return [f"2. one small TF file: {small:.2f}x flake8's CPU (target <= 1.5; {cold:.2f}x without the stored "
            f"dataclass code, as on an install's first run)",
            f"3. one file without TF: {plain:.2f}x flake8's CPU (target <= 1.2)"]


def table(*results) -> str:
    lines = ["| command | CPU s (median) | wall s (median) | runs |", "| --- | ---: | ---: | ---: |"]
    for result in results:
        for name, values in result.items():
            lines.append(f"| {name} | {cpu(result, name):.3f} | {statistics.median(w for w, _ in values):.3f} "
                         f"| {len(values)} |")
    return "\n".join(lines)


def settle(limit: float, seconds: float) -> float:
    """Wait (up to ``seconds``) for the 1-minute load average to drop below ``limit``; return it."""
    deadline = time.monotonic() + seconds
    while os.getloadavg()[0] >= limit and time.monotonic() < deadline:
        time.sleep(2)
    return os.getloadavg()[0]


def jobs_speedup(tfe, tree: Path, env, repeat: int, settle_seconds: float) -> str:
    """Figure 6: wall time of ``check -j1`` over ``check -j2``, each pair started at a load below 0.5."""
    speedups, loads = [], []
    for _ in range(repeat):
        load = settle(0.5, settle_seconds)
        loads.append(load)
        if load >= 0.5:
            continue
        pair = rounds({"one": (tfe + ["--no-cache", "-j1", str(tree)], env),
                       "two": (tfe + ["--no-cache", "-j2", str(tree)], env)}, 1)
        speedups.append(pair["one"][0][0] / pair["two"][0][0])
    print(f"  --jobs 2 pairs done (loads {', '.join(f'{x:.2f}' for x in loads)})", file=sys.stderr)
    if not speedups:
        return f"6. --jobs 2 speed-up: not measurable (load average {min(loads):.2f} or more, not below 0.5)"
    return (f"6. --jobs 2 wall-time speed-up: {statistics.median(speedups):.3f}x (median of {len(speedups)} "
            f"pairs at load < 0.5: {', '.join(f'{x:.3f}' for x in speedups)}; target >= 1.8)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="files to sample (0: the whole corpus)")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5, help="rounds (at least 5)")
    parser.add_argument("--settle", type=float, default=90,
                        help="seconds to wait for the load to drop below 0.5 before each --jobs pair")
    parser.add_argument("--corpus", type=Path, help="sample this folder's .py files instead of the pinned corpus")
    parser.add_argument("--only-jobs", action="store_true", help="measure only figure 6 (the --jobs 2 speed-up)")
    parser.add_argument("--only-plugin", action="store_true",
                        help="measure only figure 4 (the flake8 plugin, empty and warm cache)")
    parser.add_argument("--only-start-up", action="store_true", help="measure only figures 2 and 3 (single files)")
    args = parser.parse_args(argv)
    if args.repeat < 5:
        parser.error("--repeat must be at least 5 (medians of interleaved pairs)")

    # What pip does when it installs the tool: a checkout run with PYTHONDONTWRITEBYTECODE would
    # compile every module of ours from source in every process.
    compileall.compile_dir(ROOT / "tflint_effective", quiet=1)
    if args.only_start_up:
        with tempfile.TemporaryDirectory(prefix="bench-lint-") as temp:
            env = {**os.environ, "TFLINT_EFFECTIVE_CACHE_DIR": str(Path(temp) / "cache")}
            single = start_up_rounds([PYTHON, "-c", FLAKE8_WITHOUT_US, "--isolated", "--exit-zero"], TFE,
                                     Path(temp), env,
                                     max(args.repeat, SINGLE_FILE_ROUNDS))
        print("\n".join([table(single), "", *start_up_figures(single)]))
        return 0
    corpus, root, chosen = sample(args.files, args.seed, args.corpus)
    print(describe(corpus, chosen))
    print(f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}; "
          f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="bench-lint-") as temp:
        temp = Path(temp)
        tree, cache_dir = temp / "corpus", temp / "cache"
        copy_tree(root, chosen, tree)
        env = {**os.environ, "TFLINT_EFFECTIVE_CACHE_DIR": str(cache_dir)}
        tfe, flake8 = TFE, [PYTHON, "-c", FLAKE8_WITHOUT_US, "--isolated", "--exit-zero"]
        plugin = [PYTHON, "-m", "flake8", "--isolated", "--exit-zero", "-j1", str(tree)]
        figures = []
        if args.only_plugin:
            print(plugin_rounds(flake8 + ["-j1", str(tree)], plugin, cache_dir, env, args.repeat))
            return 0

        # 6 first: the others raise the load average for minutes.
        figure6 = jobs_speedup(tfe, tree, env, args.repeat, args.settle)
        if args.only_jobs:
            print(figure6)
            return 0

        corpus_runs = rounds({
            "flake8 -j1": (flake8 + ["-j1", str(tree)], env),
            "check -j1": (tfe + ["--no-cache", "-j1", str(tree)], env),
            "flake8 + plugin, empty cache": (plugin, env),
            "flake8 + plugin, warm cache": (plugin, env),
        }, args.repeat, before_each=lambda name: name.endswith("empty cache") and shutil.rmtree(
            cache_dir, ignore_errors=True))
        print("  corpus rounds done", file=sys.stderr)
        single = start_up_rounds(flake8, tfe, temp, env, max(args.repeat, SINGLE_FILE_ROUNDS))
        rss = peak_rss(tfe + ["--no-cache", "-j2", str(tree)], env)

    base = cpu(corpus_runs, "flake8 -j1")
    print("\n" + table(corpus_runs, single))
    figures.append(f"1. check, 1 process / flake8 -j1 on {len(chosen)} files: "
                   f"{cpu(corpus_runs, 'check -j1') / base:.2f}x CPU (target <= 0.5)")
    figures.extend(start_up_figures(single))
    cold = paired(corpus_runs, "flake8 + plugin, empty cache", "flake8 -j1") - 1
    warm = paired(corpus_runs, "flake8 + plugin, warm cache", "flake8 -j1") - 1
    figures.append(f"4. the plugin adds {cold:+.0%} to flake8 -j1's CPU with an empty cache (target <= 50%), "
                   f"{warm:+.0%} with a warm one (target <= 10%; medians of paired rounds; empty, round by "
                   f"round: {each(corpus_runs, 'flake8 + plugin, empty cache', 'flake8 -j1')})")
    figures.append(f"5. peak RSS of the largest process of check --jobs 2: {rss / 1e6:.0f} MB (target <= 300)")
    figures.append(figure6)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\n".join(["", *figures]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
