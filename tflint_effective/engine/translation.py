"""A text made from a source by edits that keep lines one-to-one, and the way back from its
positions to the source's (``python2.translate`` and ``python2.expand_tabs`` make them)."""
from __future__ import annotations

import bisect
from typing import NamedTuple


class Segment(NamedTuple):
    """A run of a translated line and where it came from."""
    new_col: int  # where the segment starts in the translated line
    line: int  # 1-based, in the original
    col: int
    copied: bool  # copied text maps column by column; new text maps to its anchor


class Translation:
    """Text libcst can read in place of a source, with the way back to original positions."""

    def __init__(self, text: str, segments: dict[int, list[Segment]]):
        self.text = text
        self._segments = segments
        self._starts = {line: [s.new_col for s in segs] for line, segs in segments.items()}

    def original(self, line: int, col: int) -> tuple[int, int]:
        """The original (1-based line, 0-based col) of a position in ``text``: the same
        character for copied text, the start of the original token for rewritten text."""
        segments = self._segments.get(line)
        if not segments:
            return line, col
        index = bisect.bisect_right(self._starts[line], col) - 1
        if index < 0:
            return line, col
        segment = segments[index]
        return segment.line, segment.col + (col - segment.new_col if segment.copied else 0)

    def __repr__(self) -> str:
        return f"Translation({self.text!r})"
