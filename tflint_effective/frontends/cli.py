"""``tflint-effective check|fix|rules|explain``.

Exit codes: 0 clean, 1 findings remain or ``fix`` changed (with ``--diff``: would
change) a file, 2 a configuration or usage error, or a file that could not be read
or parsed (reported; the other files are still processed).

``run_check`` and ``run_fix`` call one function per file (``one_file.check_file`` /
``fix_file``), spread over ``--jobs`` processes, and served from the cache when
the file has not changed.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from .. import __version__
from ..registry import all_rules, rule_by_code
from . import parallel
from .cache import Cache
from .config import Config, ConfigError, codes, discover, load, severity
from .documents import SUFFIX as NOTEBOOK
from .files import SUFFIXES, iter_python_files
from .one_file import FileResult, Options, check_file, fix_file, unreadable
from .output import FORMATS, Finding, Run, colour, render
from .output.summary import Progress, plural, statistics, statistics_text, summary_line

# libcst and the rules load only where a file is analysed or a rule looked up (engine.lint):
# a run served from the cache starts in half the time without them.

CLEAN, FINDINGS, ERROR = 0, 1, 2


def _codes(text: str) -> Tuple[str, ...]:
    try:
        return codes([c for c in text.split(",")], "")
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error).lstrip(": ")) from None


def _severity(text: str) -> str:
    try:
        return severity(text, "")
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error).lstrip(": ")) from None


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a number of processes (1 or more), got {text!r}")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tflint-effective",
        description="Find (and fix) the TensorFlow mistakes the Effective TensorFlow guide warns about.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add_common(sub):
        sub.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                         help="files (.py, .pyi, .ipynb) or directories (default: .); - reads standard input")
        group = sub.add_argument_group("selection (each replaces the same key of the configuration)")
        group.add_argument("--select", type=_codes, metavar="CODES",
                           help="comma-separated codes or prefixes to report (default: TFE)")
        group.add_argument("--extend-select", type=_codes, metavar="CODES", help="added to --select")
        group.add_argument("--ignore", type=_codes, metavar="CODES",
                           help="comma-separated codes or prefixes to leave out")
        group.add_argument("--exclude", action="append", metavar="GLOB",
                           help="skip files and directories matching GLOB (repeatable)")
        group.add_argument("--severity", type=_severity, metavar="LEVEL",
                           help="minimum severity to report: info, warning or error")
        group.add_argument("--config", metavar="FILE",
                           help="read this pyproject.toml / setup.cfg / tox.ini instead of searching")
        group.add_argument("--isolated", action="store_true", help="read no configuration file")
        sub.add_argument("--stdin-filename", default="-", metavar="NAME",
                         help="the name to report (and configure) standard input as")
        sub.add_argument("--format", choices=FORMATS, default="text",
                         help="text (path:line:col: CODE message), grouped, json, sarif or github")
        sub.add_argument("--output", metavar="FILE", help="write the report to FILE")
        sub.add_argument("--statistics", action="store_true",
                         help="print how many findings each code has instead of the findings")
        sub.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                         help="colour the text report (auto: on a terminal unless NO_COLOR is set)")
        sub.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
        sub.add_argument("-q", "--quiet", action="store_true", help="no summary line, no progress")
        speed = sub.add_argument_group("speed")
        speed.add_argument("-j", "--jobs", type=_jobs, default=parallel.default_jobs(), metavar="N",
                           help="worker processes (default: the number of CPUs, %(default)s here)")
        speed.add_argument("--no-cache", action="store_true",
                           help="neither read nor write the cache of results of unchanged files")
        speed.add_argument("--no-prefilter", action="store_true",
                           help="analyse files that import no TensorFlow too (same findings, slower)")

    check = commands.add_parser("check", help="report findings")
    add_common(check)
    check.add_argument("--show-suppressed", action="store_true",
                       help="also list findings silenced by # noqa or # tflint-effective: disable=")

    fix = commands.add_parser("fix", help="apply the safe fixes, report the rest")
    add_common(fix)
    fix.add_argument("--diff", action="store_true", help="print a unified diff; write nothing")
    fix.add_argument("--unsafe-fixes", action="store_true",
                     help="also apply fixes that may change behaviour")

    commands.add_parser("rules", help="list the rules")
    explain = commands.add_parser("explain", help="explain one rule")
    explain.add_argument("code")
    return parser



# -- running over many files -----------------------------------------------------------
def _configuration(args) -> Config:
    if args.isolated:
        config = Config()
    elif args.config:
        config = load(Path(args.config))
        if config is None:
            raise ConfigError(f"{args.config}: no [tool.tflint-effective] / [tflint-effective] section")
    else:
        first = args.stdin_filename if args.paths == ["-"] and args.stdin_filename != "-" else args.paths[0]
        config = discover(Path("." if first == "-" else first))
    return config.override(select=args.select, extend_select=args.extend_select, ignore=args.ignore,
                           exclude=tuple(args.exclude) if args.exclude else None, severity=args.severity)


def _targets(args, config: Config) -> List[str]:
    if args.paths == ["-"]:
        return ["-"]
    return [str(p) for p in iter_python_files(args.paths, config.exclude, (*SUFFIXES, NOTEBOOK))]


def _options(args, config: Config) -> Options:
    return Options(config=config, stdin_filename=args.stdin_filename,
                   unsafe_fixes=getattr(args, "unsafe_fixes", False), diff=getattr(args, "diff", False),
                   show_suppressed=getattr(args, "show_suppressed", False),
                   fix_details=args.format in ("json", "sarif") and not args.statistics,
                   prefilter=not args.no_prefilter,
                   roots=_roots(args.paths))


def _roots(paths: Sequence[str]) -> Tuple[str, ...]:
    """The current directory, the directories named and those of the files named."""
    folders = {p if os.path.isdir(p) else os.path.dirname(p) or "." for p in (".", *paths) if p != "-"}
    return tuple(sorted(os.path.realpath(folder) for folder in folders))


def _each(args, per_file) -> Tuple[List[FileResult], Options]:
    """``per_file`` over every target, in ``--jobs`` processes; results in target order.

    ``check`` results of unchanged files come from the cache (see cache.py).
    """
    config = _configuration(args)
    options = _options(args, config)
    targets = _targets(args, config)
    progress = Progress(len(targets), sys.stderr, active=not args.quiet)
    results: List[Optional[FileResult]] = [None] * len(targets)
    cache = None if args.no_cache or per_file is not check_file else Cache(_settings(options))
    keys: List[Optional[str]] = [None] * len(targets)
    pending = []
    for index, path in enumerate(targets):
        if cache is not None and path != "-":
            keys[index] = _cache_key(cache, path)
            entry = None if keys[index] is None else cache.load(keys[index])
            if entry is not None:
                results[index] = _from_entry(entry)
                progress.step(path)
                continue
        pending.append(index)

    def done(position: int, result: FileResult) -> None:
        index = pending[position]
        results[index] = result
        if keys[index] is not None and not result.error:
            cache.store(keys[index], dataclasses.asdict(result))
        progress.step(targets[index])

    def failed(path: str, error: BaseException) -> FileResult:
        return unreadable(path, f"internal error: the worker process checking this file stopped "
                                 f"({type(error).__name__}); run with --jobs 1 to see more")

    jobs = 1 if targets == ["-"] else args.jobs
    try:
        parallel.run(per_file, [targets[i] for i in pending], options, jobs, done, failed)
    finally:
        progress.close()
    return results, options


def _settings(options: Options) -> str:
    """What besides a file's name and bytes decides its check result (for the cache)."""
    fields = {k: v for k, v in vars(options).items() if k != "roots"}  # roots: only for writing
    return repr(sorted(fields.items()))


def _cache_key(cache: Cache, path: str) -> Optional[str]:
    try:
        return cache.key(path, Path(path).read_bytes())
    except OSError:  # reported when the file is checked
        return None


def _from_entry(entry: dict) -> FileResult:
    findings = [Finding(**{**f, "edits": tuple(tuple(e) for e in f["edits"])}) for f in entry.pop("findings")]
    return FileResult(findings=findings, **entry)


def _report(args, results: List[FileResult], stream) -> Run:
    """Write the findings (or statistics) in the chosen format; return the run."""
    run = Run([f for r in results for f in r.findings], sum(not r.missing for r in results),
              getattr(args, "unsafe_fixes", False))
    for result in results:
        for warning in result.warnings:
            print(warning, file=sys.stderr)
    target = open(args.output, "w", encoding="utf-8") if args.output else stream
    try:
        coloured = colour.wanted(target, args.color)
        if args.statistics:
            rows = statistics(run)
            if args.format == "json":
                text = json.dumps(rows, indent=2) + "\n"
            else:
                text = statistics_text(rows)
        else:
            text = render(args.format, run, coloured)
        target.write(text)
    finally:
        if args.output:
            target.close()
    return run


def _status(args, results: List[FileResult], run: Run) -> int:
    if any(r.error for r in results):
        return ERROR
    if (run.reported or any(r.changed for r in results)) and not args.exit_zero:
        return FINDINGS
    return CLEAN


def run_check(args, out) -> int:
    results, _ = _each(args, check_file)
    run = _report(args, results, out)
    if not args.quiet:
        print(summary_line(run), file=sys.stderr)
    return _status(args, results, run)


def run_fix(args, out) -> int:
    results, _ = _each(args, fix_file)
    code_on_stdout = args.diff or args.paths == ["-"]
    for result in results:
        out.write(result.output)
    run = _report(args, results, sys.stderr if code_on_stdout else out)
    if not args.quiet:
        changed = [r for r in results if r.changed]
        verb = "Would fix" if args.diff else "Fixed"
        fixed = sum(r.fixed for r in changed)
        print(f"{verb} {plural(fixed, 'finding')} in {plural(len(changed), 'file')}.", file=sys.stderr)
        if run.reported:
            print(summary_line(run), file=sys.stderr)
    return _status(args, results, run)


def run_rules(out) -> int:
    print(f"{'code':<7} {'name':<32} {'severity':<8} {'fix':<12} summary", file=out)
    for rule in all_rules():
        print(f"{rule.CODE:<7} {rule.name():<32} {rule.default_severity():<8} "
              f"{rule.FIX_SAFETY:<12} {rule.summary()}", file=out)
    return CLEAN


def run_explain(args, out) -> int:
    from .docs import rule_text  # reads every rule module's documentation

    rule = rule_by_code(args.code)
    if rule is None:
        print(f"tflint-effective: unknown rule code {args.code!r} "
              f"(known: {', '.join(r.CODE for r in all_rules())})", file=sys.stderr)
        return ERROR
    out.write(rule_text(rule))
    return CLEAN


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on usage errors, 0 on --help
        return int(exit_.code or 0)
    out = sys.stdout
    try:
        if args.command == "check":
            return run_check(args, out)
        if args.command == "fix":
            return run_fix(args, out)
        if args.command == "rules":
            return run_rules(out)
        return run_explain(args, out)
    except (ConfigError, OSError) as error:  # includes a missing path or --output directory
        print(f"tflint-effective: {error}", file=sys.stderr)
        return ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
