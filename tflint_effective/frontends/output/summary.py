"""The closing summary line, ``--statistics``, and progress on a terminal's stderr."""
from __future__ import annotations

import time
from collections import Counter
from typing import List


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def counts(run) -> dict:
    reported = run.reported
    return {
        "findings": len(reported),
        "fixable": sum(f.fixable(run.unsafe_fixes) for f in reported),
        "files_with_findings": len({f.path for f in reported}),
        "files_checked": run.files,
    }


def summary_line(run) -> str:
    """``3 findings (2 fixable) in 2 files``; unsafe fixes left out are counted apart."""
    numbers = counts(run)
    if not numbers["findings"]:
        return f"No findings ({plural(run.files, 'file')} checked)."
    fixable = f"{numbers['fixable']} fixable"
    hidden = 0 if run.unsafe_fixes else sum(f.fix_safety == "unsafe" for f in run.reported)
    if hidden:
        fixable += f", {hidden} more with --unsafe-fixes"
    suppressed = len(run.findings) - numbers["findings"]
    tail = f"; {suppressed} suppressed" if suppressed else ""
    return (f"{plural(numbers['findings'], 'finding')} ({fixable}) "
            f"in {plural(numbers['files_with_findings'], 'file')}{tail}")


def statistics(run) -> List[dict]:
    """Per code: count and fixable count, most frequent first."""
    from ...registry import rule_by_code  # only here: a cached run need not load libcst

    totals = Counter(f.code for f in run.reported)
    fixable = Counter(f.code for f in run.reported if f.fixable(run.unsafe_fixes))
    rows = []
    for code, count in sorted(totals.items(), key=lambda item: (-item[1], item[0])):
        rule = rule_by_code(code)
        rows.append({"code": code, "rule": rule.name() if rule else None,
                     "count": count, "fixable": fixable[code]})
    return rows


def statistics_text(rows: List[dict]) -> str:
    width = max((len(str(r["count"])) for r in rows), default=1)
    lines = []
    for row in rows:
        fixable = f"  ({row['fixable']} fixable)" if row["fixable"] else ""
        lines.append(f"{row['count']:>{width}}  {row['code']}  {row['rule'] or ''}{fixable}".rstrip())
    return "".join(line + "\n" for line in lines)


class Progress:
    """``[12/340] path`` on one rewritten stderr line; only on a terminal, only for long runs."""

    def __init__(self, total: int, stream, delay: float = 1.0, clock=time.monotonic, active=True):
        isatty = getattr(stream, "isatty", None)
        self.enabled = active and total > 1 and bool(isatty and isatty())
        self.total, self.stream, self.clock = total, stream, clock
        self.start = self.last = clock()
        self.delay, self.done, self.shown = delay, 0, False

    def step(self, path: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        now = self.clock()
        if now - self.start >= self.delay and (now - self.last >= 0.1 or not self.shown):
            self.stream.write(f"\r\x1b[K[{self.done}/{self.total}] {path}")
            self.stream.flush()
            self.last, self.shown = now, True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
