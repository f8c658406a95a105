"""Lab rows read without their flag column.

A lab table prints an abnormal result's flag in a column of its own between the result and
its units ("Potassium   5.4   H   mmol/L   3.5-5.3"); a person quoting the row often leaves
the flag out ("Potassium 5.4 mmol/L"). Leaving a flag out changes no word, number or unit
of the quote, so such a quote is the record's words. A flag cell is a flag word standing in
a column of its own (after a column gap) right after a number; `FlaglessView` is a
document's tokens with those cells left out, searchable like the tokens themselves.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence

from concord.evidence.canonical import GAP, SEPARATOR, TokenText

LAB_FLAGS = frozenset({"h", "l", "hh", "ll", "hi", "lo", "high", "low"})
"""Flags a lab prints beside a result that lies outside its reference range."""


def _is_flag_cell(tt: TokenText, index: int) -> bool:
    return (
        index > 0
        and bool(tt.flags[index] & GAP)
        and any(c.isdigit() for c in tt.token(index - 1))
        and not (index + 1 < len(tt) and tt.glued(index + 1))
    )


class FlaglessView:
    """The tokens of `tt` without its flag cells: `find` gives token ranges of `tt`."""

    def __init__(self, tt: TokenText, skipped: Sequence[int]) -> None:
        self._skipped = frozenset(skipped)
        self.kept = array("q", (k for k in range(len(tt)) if k not in self._skipped))
        tokens = tt.tokens()
        self._joined = SEPARATOR + SEPARATOR.join(tokens[k] for k in self.kept) + SEPARATOR
        self._offsets = array("q")
        offset = 1
        for k in self.kept:
            self._offsets.append(offset)
            offset += len(tokens[k]) + 1

    @classmethod
    def of(cls, tt: TokenText, positions: Mapping[str, Sequence[int]]) -> FlaglessView | None:
        """The view of `tt` (`positions`: each token's indices), None without flag cells."""
        skipped = sorted(
            k for flag in LAB_FLAGS for k in positions.get(flag, ()) if _is_flag_cell(tt, k)
        )
        return cls(tt, skipped) if skipped else None

    def find(self, needle: Sequence[str], limit: int) -> Iterator[tuple[int, int]]:
        """Token ranges [start, end) of `tt` whose tokens, flag cells aside, are `needle`
        and which leave out at least one flag cell; the first `limit` ones."""
        if not needle:
            return
        key = SEPARATOR + SEPARATOR.join(needle) + SEPARATOR
        at, found = self._joined.find(key), 0
        while at >= 0 and found < limit:
            first = bisect_left(self._offsets, at + 1)
            start, end = self.kept[first], self.kept[first + len(needle) - 1] + 1
            if any(k in self._skipped for k in range(start, end)):
                found += 1
                yield start, end
            at = self._joined.find(key, at + 1)
