"""``tflint-effective check|fix|rules|explain|clean``.

Exit codes: 0 clean, 1 findings remain or ``fix`` changed (with ``--diff``: would
change) a file, 2 a configuration or usage error, or a file that could not be read
or parsed, or an internal error (reported; the other files are still processed;
2 wins over 1), 130 interrupted (Ctrl-C).

``run_check`` and ``run_fix`` call one function per file (``one_file.check_file`` /
``fix_file``), spread over ``--jobs`` processes, and served from the cache when
the file has not changed.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from .. import __version__
from ..registry import all_rules, rule_by_code
from . import parallel
from .config import Config, ConfigError, Resolver, codes, file_size, load, severity, versions
from .documents import SUFFIX as NOTEBOOK
from .discovery import SUFFIXES, iter_python_files
from .one_file import FileResult, Options, check_file, fix_file
from .output import ALIASES, FORMATS, Run, colour, render
from .output.summary import Progress, plural, statistics, statistics_text, summary_line
from .runner import run_files

# libcst and the rules load only where a file is analysed or a rule looked up (engine.lint):
# a run served from the cache starts in half the time without them.

CLEAN, FINDINGS, ERROR = 0, 1, 2


def _checked(validate):
    """An argparse type from a configuration validator: the same checks and messages as the key."""
    def convert(text: str):
        try:
            return validate(text, "")
        except ConfigError as error:
            raise argparse.ArgumentTypeError(str(error).lstrip(": ")) from None
    return convert


_codes = _checked(lambda text, where: codes(text.split(","), where))
_severity, _size, _versions = _checked(severity), _checked(file_size), _checked(versions)


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
                           help="skip files and directories matching GLOB (repeatable; relative "
                                "to the working directory)")
        group.add_argument("--force-exclude", action="store_true",
                           help="apply exclude to paths named on the command line too (pre-commit)")
        group.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false",
                           help="also lint files that .gitignore / .ignore files ignore")
        group.add_argument("--severity", type=_severity, metavar="LEVEL",
                           help="minimum severity to report: info, warning or error")
        group.add_argument("--tensorflow-version", type=_versions, metavar="SPEC",
                           help="TensorFlow versions the code supports, as a requirement says them "
                                "(\">=1.4,<2\"; default: what the closest requirement files declare)")
        group.add_argument("--config", metavar="FILE",
                           help="read this pyproject.toml / setup.cfg / tox.ini instead of searching")
        group.add_argument("--isolated", action="store_true", help="read no configuration file")
        sub.add_argument("--stdin-filename", default="-", metavar="NAME",
                         help="the name to report (and configure) standard input as")
        sub.add_argument("--output-format", "--format", dest="format", choices=(*FORMATS, *ALIASES),
                         default="text", help="text (path:line:col: CODE [severity] message; also "
                         "called concise), full (text with --show-source), grouped, json, sarif or github")
        sub.add_argument("--show-source", action="store_true",
                         help="text format: print each finding's line with carets under the code")
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
                           help="analyse files that import neither TensorFlow nor Keras too (same findings, slower)")
        speed.add_argument("--max-file-size", type=_size, metavar="SIZE",
                           help="files larger than SIZE (bytes, or with kB / MB) get one TFE000 "
                                "instead of an analysis (default: 2 MB; 0: no limit)")

    check = commands.add_parser("check", help="report findings")
    add_common(check)
    check.add_argument("--show-suppressed", action="store_true",
                       help="also list findings silenced by # noqa or # tflint-effective: disable=")
    check.add_argument("--add-noqa", action="store_true",
                       help="add `# noqa: CODE` comments to the lines of the findings (rewrites files)")

    fix = commands.add_parser("fix", help="apply the safe fixes, report the rest")
    add_common(fix)
    fix.add_argument("--diff", action="store_true", help="print a unified diff; write nothing")
    fix.add_argument("--unsafe-fixes", action="store_true",
                     help="also apply fixes that may change behaviour")

    commands.add_parser("rules", help="list the rules")
    commands.add_parser("clean", help="empty the cache of check results")
    commands.add_parser("server", help="run the language server: LSP over stdio (tflint-effective[lsp])")
    explain = commands.add_parser("explain", help="explain one rule")
    explain.add_argument("code")
    return parser



# -- running over many files -----------------------------------------------------------
def _configuration(args) -> Resolver:
    """Each file's configuration: the closest to it (ruff's model), or the one --config names,
    with the command line's keys on top."""
    fixed = None
    if args.isolated:
        fixed = Config()
    elif args.config:
        fixed = load(Path(args.config))
        if fixed is None:
            raise ConfigError(f"{args.config}: no [tool.tflint-effective] / [tflint-effective] section")
    exclude = tuple(args.exclude) if args.exclude else None
    return Resolver(fixed, dict(select=args.select, extend_select=args.extend_select, ignore=args.ignore,
                                exclude=exclude, exclude_root=os.getcwd() if exclude else None,
                                severity=args.severity, max_file_size=args.max_file_size,
                                tensorflow_versions=args.tensorflow_version))


def _targets(args, configs: Resolver) -> List[str]:
    if args.paths == ["-"]:
        configs.config_for(args.stdin_filename)  # a broken configuration is an error here
        return ["-"]
    found = iter_python_files(args.paths, configs, (*SUFFIXES, NOTEBOOK),
                              force_exclude=args.force_exclude, respect_gitignore=args.respect_gitignore)
    targets = [str(p) for p in found]
    for target in targets:  # here, not in a worker: a broken configuration stops the run
        configs.config_for(target)
    return targets


def _options(args, configs: Resolver) -> Options:
    return Options(configs=configs, stdin_filename=args.stdin_filename,
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
    configs = _configuration(args)
    options = _options(args, configs)
    targets = _targets(args, configs)
    progress = Progress(len(targets), sys.stderr, active=not args.quiet)
    use_cache = per_file is check_file and not args.no_cache and not getattr(args, "add_noqa", False)
    jobs = 1 if targets == ["-"] else args.jobs
    try:
        results = run_files(per_file, targets, options, jobs, _cache() if use_cache else None, progress.step)
    finally:
        progress.close()
    return results, options


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
            text = render(args.format, run, coloured, show_source=args.show_source)
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


def _cache():
    from .cache import Cache  # hashing and housekeeping: not paid by --no-cache and fix

    return Cache()


def run_check(args, out) -> int:
    if args.add_noqa:
        from .add_noqa import add_noqa_file, added_line

        results, _ = _each(args, add_noqa_file)
        for result in results:  # standard input: the commented source
            out.write(result.output)
        run = _report(args, results, sys.stderr if args.paths == ["-"] else out)
        if not args.quiet:
            print(added_line(results), file=sys.stderr)
        return _status(args, results, run)
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


def run_clean(out) -> int:
    from .cache import clean, directory

    folders, size = clean()
    print(f"Removed {folders} cache {'directory' if folders == 1 else 'directories'} ({size / 1e6:.1f} MB) "
          f"from {directory()}.", file=out)
    return CLEAN


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
        if args.command == "clean":
            return run_clean(out)
        if args.command == "server":
            try:
                from .server import serve  # loads pygls: only here
            except ImportError as error:
                print(f"tflint-effective: the language server needs pygls ({error}): "
                      "pip install 'tflint-effective[lsp]'", file=sys.stderr)
                return ERROR
            return serve()
        return run_explain(args, out)
    except (ConfigError, OSError) as error:  # includes a missing path or --output directory
        print(f"tflint-effective: {error}", file=sys.stderr)
        return ERROR
    except KeyboardInterrupt:  # Ctrl-C: one line, 130, no traceback, no partial cache entry
        from ..engine.threads import interrupted

        return interrupted()
    except Exception as error:  # never exit 1 ("findings") on a crash
        import traceback

        traceback.print_exc()
        print(f"tflint-effective: internal error, please report: {type(error).__name__}: {error}",
              file=sys.stderr)
        return ERROR


def run() -> None:
    """The ``tflint-effective`` command: ``main``, then the end of the process without Python's
    teardown, which frees every module and object one by one (a sixth of the CPU time of checking
    one small file). By then the output is written, files were replaced atomically and workers
    were joined; only the standard streams need flushing."""
    status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (``| head``), a closed stream
            pass
    os._exit(status)


if __name__ == "__main__":  # pragma: no cover
    run()
