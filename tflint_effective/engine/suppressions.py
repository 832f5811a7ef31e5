"""What the checked source silences itself: ``# noqa`` on a line, or a whole file.

- ``# noqa`` silences every finding reported on its line, ``# noqa: TFE101,TFE102``
  only those codes (prefixes work, as in flake8; same regex as flake8).
- ``# tflint-effective: disable=TFE201,TFE3`` on a line of its own silences those
  codes in the whole file.

Codes in either comment that name no rule are returned by ``unknown_codes`` so the
CLI can warn about a typo instead of silently suppressing nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

NOQA = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
FILE_DISABLE = re.compile(
    r"^[ \t]*#[ \t]*tflint-effective:[ \t]*disable[ \t]*=[ \t]*(?P<codes>[^#\r\n]*)\r?$",
    re.IGNORECASE | re.MULTILINE)
CODE = re.compile(r"[A-Z]+[0-9]+")
NEWLINE = re.compile(r"\r\n|\r|\n")
OURS = "TFE"  # a `# noqa: E501` is flake8's business, not ours to judge

BY_NOQA, BY_FILE = "noqa", "file"


@dataclass(frozen=True)
class Suppressions:
    lines: Dict[int, Optional[FrozenSet[str]]]  # line -> codes its noqa names (None: all)
    file_codes: Tuple[str, ...]  # codes or prefixes disabled for the whole file
    named: Tuple[Tuple[int, str], ...]  # every (line, code) a directive names

    @classmethod
    def parse(cls, source: str) -> "Suppressions":
        lines: Dict[int, Optional[FrozenSet[str]]] = {}
        named: List[Tuple[int, str]] = []
        if "noqa" in source.lower():
            for number, text in enumerate(NEWLINE.split(source), start=1):
                match = NOQA.search(text)
                if match:
                    codes = CODE.findall(match.group("codes").upper()) if match.group("codes") else None
                    lines[number] = frozenset(codes) if codes is not None else None
                    named += [(number, code) for code in codes or ()]
        file_codes: List[str] = []
        if "tflint-effective" in source:
            for match in FILE_DISABLE.finditer(source):
                number = source.count("\n", 0, match.start()) + 1
                codes = CODE.findall(match.group("codes").upper())
                file_codes += codes
                named += [(number, code) for code in codes]
        return cls(lines, tuple(file_codes), tuple(named))

    def reason(self, diagnostic) -> Optional[str]:
        """``"file"`` or ``"noqa"`` when the source silences this finding, else None."""
        if diagnostic.code.startswith(self.file_codes):
            return BY_FILE
        if diagnostic.line in self.lines:
            codes = self.lines[diagnostic.line]
            if codes is None or diagnostic.code.startswith(tuple(codes)):
                return BY_NOQA
        return None

    def split(self, diagnostics: Iterable) -> Tuple[list, List[tuple]]:
        """(kept, [(suppressed diagnostic, reason), ...])."""
        kept, silenced = [], []
        for diagnostic in diagnostics:
            why = self.reason(diagnostic)
            if why is None:
                kept.append(diagnostic)
            else:
                silenced.append((diagnostic, why))
        return kept, silenced

    def kept(self, diagnostics: Iterable) -> list:
        return self.split(diagnostics)[0]

    def unknown_codes(self, known: Sequence[str]) -> List[Tuple[int, str]]:
        """(line, code) for our codes that match no known rule code, even as a prefix."""
        return [(line, code) for line, code in sorted(self.named)
                if code.startswith(OURS) and not any(k.startswith(code) for k in known)]
