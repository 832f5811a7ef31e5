"""``tflint-effective check|fix|rules|explain``.

Exit codes: 0 clean (or everything fixed), 1 findings remain or ``fix`` changed
(or with ``--diff`` would change) a file, 2 usage error or a file that could
not be read or parsed (reported; the other files are still processed).
"""
from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from . import __version__
from .engine import PARSE_ERROR, Diagnostic, FixError, all_rules, fix_source, lint_source, rule_by_code
from .files import SourceError, iter_python_files, read_source, write_atomic
from .rule import MODE_NAMES, MODES

CLEAN, FINDINGS, ERROR = 0, 1, 2


def _codes(text: str) -> List[str]:
    return [c.strip().upper() for c in text.split(",") if c.strip()]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tflint-effective",
        description="Find (and fix) the TensorFlow mistakes the Effective TensorFlow guide warns about.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add_selection(sub):
        sub.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                         help="files or directories (default: .); - reads standard input")
        sub.add_argument("--select", type=_codes, default=None, metavar="CODES",
                         help="comma-separated codes or prefixes to report (default: TFE)")
        sub.add_argument("--ignore", type=_codes, default=None, metavar="CODES",
                         help="comma-separated codes or prefixes to leave out")
        sub.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                         help="skip files and directories matching GLOB (repeatable)")
        sub.add_argument("--stdin-filename", default="-", metavar="NAME",
                         help="the name to report for standard input")

    check = commands.add_parser("check", help="report findings")
    add_selection(check)
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")

    fix = commands.add_parser("fix", help="apply the safe fixes, report the rest")
    add_selection(fix)
    fix.add_argument("--diff", action="store_true", help="print a unified diff; write nothing")
    fix.add_argument("--unsafe-fixes", action="store_true",
                     help="also apply fixes that may change behaviour")

    commands.add_parser("rules", help="list the rules")
    explain = commands.add_parser("explain", help="explain one rule")
    explain.add_argument("code")
    return parser


def format_text(d: Diagnostic) -> str:
    return f"{d.path}:{d.line}:{d.col + 1}: {d.code} {d.message}"


def _read(path: str, args) -> tuple:
    """(display name, Source) for a path or ``-``."""
    if path == "-":
        from .files import decode

        return args.stdin_filename, decode(sys.stdin.buffer.read(), args.stdin_filename)
    return path, read_source(Path(path))


def _targets(args) -> List[str]:
    if args.paths == ["-"]:
        return ["-"]
    return [str(p) for p in iter_python_files(args.paths, args.exclude)]


def _unreadable(path: str, error: Exception) -> Diagnostic:
    message = str(error)
    prefix = f"{path}: "
    return Diagnostic(path, 1, 0, PARSE_ERROR, message[len(prefix):] if message.startswith(prefix) else message,
                      "error", 1, 0)


def run_check(args, out) -> int:
    status = CLEAN
    for path in _targets(args):
        try:
            name, source = _read(path, args)
            diagnostics = lint_source(source.text, name, args.select, args.ignore)
        except SourceError as error:
            diagnostics = [_unreadable(path, error)]
        for d in diagnostics:
            print(format_text(d), file=out)
            status = max(status, ERROR if d.code == PARSE_ERROR else FINDINGS)
    if status == FINDINGS and args.exit_zero:
        return CLEAN
    return status


def run_fix(args, out) -> int:
    status = CLEAN
    fixed_total = changed_files = hidden = 0
    for path in _targets(args):
        try:
            name, source = _read(path, args)
            result = fix_source(source.text, name, args.select, args.ignore, args.unsafe_fixes)
        except (SourceError, FixError) as error:
            print(format_text(_unreadable(path, error)), file=out)
            status = ERROR
            continue
        hidden += result.hidden_unsafe
        changed = result.source != source.text
        if changed:
            changed_files += 1
            fixed_total += result.applied
            status = max(status, FINDINGS)
            if args.diff:
                out.writelines(difflib.unified_diff(
                    source.text.splitlines(keepends=True), result.source.splitlines(keepends=True),
                    f"a/{name}", f"b/{name}"))
            elif path == "-":
                out.write(result.source)
            else:
                write_atomic(Path(path), result.source, source.encoding)
        for d in result.diagnostics:
            print(format_text(d), file=out)
            status = max(status, ERROR if d.code == PARSE_ERROR else FINDINGS)
    verb = "Would fix" if args.diff else "Fixed"
    print(f"{verb} {fixed_total} finding(s) in {changed_files} file(s).", file=sys.stderr)
    if hidden:
        print(f"{hidden} more fix(es) available with --unsafe-fixes.", file=sys.stderr)
    return status


def run_rules(out) -> int:
    print(f"{'code':<7} {'name':<32} {'severity':<8} {'fix':<12} summary", file=out)
    for rule in all_rules():
        print(f"{rule.CODE:<7} {rule.name():<32} {rule.default_severity():<8} "
              f"{rule.FIX_SAFETY:<12} {rule.summary()}", file=out)
    return CLEAN


def explain_text(rule) -> str:
    modes = ", ".join(f"{MODE_NAMES[m]}: {rule.severity_in(m) or 'off'}" for m in MODES)
    parts = [f"{rule.CODE} {rule.name()}: {rule.MESSAGE}", "", rule.doc(), "",
             f"Severity by execution mode: {modes}.", f"Fix: {rule.FIX_SAFETY}.", "",
             "Bad:", _indent(rule.BAD), "", "Good:", _indent(rule.GOOD)]
    return "\n".join(parts)


def _indent(code: str) -> str:
    import textwrap

    return textwrap.indent(textwrap.dedent(code).strip("\n"), "    ")


def run_explain(args, out) -> int:
    rule = rule_by_code(args.code)
    if rule is None:
        print(f"tflint-effective: unknown rule code {args.code!r} "
              f"(known: {', '.join(r.CODE for r in all_rules())})", file=sys.stderr)
        return ERROR
    print(explain_text(rule), file=out)
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
    except FileNotFoundError as error:
        print(f"tflint-effective: {error}", file=sys.stderr)
        return ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
