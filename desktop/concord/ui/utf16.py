"""Python string offsets <-> Qt text positions. Qt counts positions in UTF-16 code units, so
each character outside the Basic Multilingual Plane (an emoji, some CJK) takes two."""

from __future__ import annotations

from bisect import bisect_right


class Utf16Map:
    """Positions in one text: `qt(index)` for a Python index, `py(position)` back."""

    def __init__(self, text: str) -> None:
        self._astral = [i for i, ch in enumerate(text) if ord(ch) > 0xFFFF]

    def qt(self, index: int) -> int:
        """Python string index -> Qt (UTF-16) position."""
        return index + bisect_right(self._astral, index - 1) if self._astral else index

    def py(self, position: int) -> int:
        """Qt (UTF-16) position -> Python string index: the last index whose Qt position is
        not after `position` (inside an astral character: that character)."""
        if not self._astral:
            return position
        lo, hi = 0, position  # qt(i) >= i, so the answer is at most `position`
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.qt(mid) <= position:
                lo = mid
            else:
                hi = mid - 1
        return lo
