"""Whitespace normalisation that remembers where every character came from.

`normalize_whitespace` collapses each run of whitespace (spaces, tabs, newlines, form
feeds, no-break spaces ...) to one space and trims the ends. `NormalizedText` does the same
for a document and maps offsets in the normalised text back to the original, so a match
found in normalised text becomes a span of the exact record text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

_TOKEN = re.compile(r"\S+")


def normalize_whitespace(text: str) -> str:
    """Runs of whitespace -> one space; no leading or trailing whitespace."""
    return " ".join(_TOKEN.findall(text))


def fold_case(text: str) -> str:
    """Lower case, character for character (same length, so offsets stay valid)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


@dataclass(frozen=True)
class NormalizedText:
    """`text` is the normalised form of an original string; tokens (maximal non-space
    runs) are identical in both, only the whitespace between them differs."""

    text: str
    norm_starts: tuple[int, ...]
    orig_starts: tuple[int, ...]
    lengths: tuple[int, ...]

    @classmethod
    def of(cls, original: str) -> NormalizedText:
        norm_starts: list[int] = []
        orig_starts: list[int] = []
        lengths: list[int] = []
        position = 0
        for match in _TOKEN.finditer(original):
            length = match.end() - match.start()
            norm_starts.append(position)
            orig_starts.append(match.start())
            lengths.append(length)
            position += length + 1
        text = " ".join(original[s : s + n] for s, n in zip(orig_starts, lengths, strict=True))
        return cls(text, tuple(norm_starts), tuple(orig_starts), tuple(lengths))

    def to_original(self, offset: int) -> int:
        """Original offset of the normalised character at `offset`. A separator space maps
        to the first whitespace character after its token; len(text) maps past the last
        token."""
        if not self.norm_starts:
            return 0
        k = max(bisect_right(self.norm_starts, offset) - 1, 0)
        delta = min(max(offset - self.norm_starts[k], 0), self.lengths[k])
        return self.orig_starts[k] + delta

    def to_normalized(self, offset: int) -> int:
        """Normalised offset of the original character at `offset` (whitespace maps to
        the separator, or the next token when before the first one)."""
        if not self.orig_starts:
            return 0
        k = bisect_right(self.orig_starts, offset) - 1
        if k < 0:
            return 0
        delta = min(offset - self.orig_starts[k], self.lengths[k])
        return min(self.norm_starts[k] + delta, len(self.text))

    def span_to_original(self, start: int, end: int) -> tuple[int, int]:
        """Original (start, end) of normalised text[start:end], after trimming spaces at
        its ends. Guarantees normalize_whitespace(original[s:e]) == text[start:end].strip()."""
        while start < end and self.text[start] == " ":
            start += 1
        while end > start and self.text[end - 1] == " ":
            end -= 1
        if start == end:
            point = self.to_original(start)
            return point, point
        return self.to_original(start), self.to_original(end - 1) + 1
