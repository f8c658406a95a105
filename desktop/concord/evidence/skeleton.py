"""Text with every number (and the unit after it) replaced by one placeholder character,
and every other digit (inside labels such as SpO2) by a digit placeholder.

Used only to explain a failed alignment: "K+ 4.1 mg/dL" and "K+ 6.3 mmol/L" share
the skeleton "k+ <placeholder>", so the aligner can point at the record's value and flag
number_mismatch.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass

from concord.evidence.numbers import is_unit

PLACEHOLDER = "\x01"
"""Stands for one number with its unit; a control character, so no real text matches it."""
_NUMERIC_RUN = re.compile(
    r"(?<![^\W\d_])[-+−]?\d(?:[\d.,]*\d)?"
    r"(?P<unit>\s?(?:%|[a-zµμ°²³⁹×*^/][\wµμ°²³⁹×*^/.]*[\wµμ°²³⁹%]|[a-z%]))?"
)


DIGIT_PLACEHOLDER = "\x02"
"""Stands for one digit inside a word (SpO2, HbA1c): same length, so offsets still map."""
_DIGIT = re.compile(r"\d")


def _mask_label_digits(text: str) -> str:
    return _DIGIT.sub(DIGIT_PLACEHOLDER, text)


def _run_end(match: re.Match[str]) -> int:
    """End of the number, with its unit only when that is a known unit."""
    unit = match.group("unit")
    return match.end() if unit and is_unit(unit) else match.start("unit") if unit else match.end()


@dataclass(frozen=True)
class Skeleton:
    """`text` plus, for each of its characters, the [start, end) it stands for in the
    source string."""

    text: str
    starts: array[int]
    ends: array[int]

    @classmethod
    def of(cls, source: str) -> Skeleton:
        parts: list[str] = []
        starts: array[int] = array("l")
        ends: array[int] = array("l")
        position = 0
        for match in _NUMERIC_RUN.finditer(source):
            if match.start() < position:
                continue
            end = _run_end(match)
            parts.append(_mask_label_digits(source[position : match.start()]))
            starts.extend(range(position, match.start()))
            ends.extend(range(position + 1, match.start() + 1))
            parts.append(PLACEHOLDER)
            starts.append(match.start())
            ends.append(end)
            position = end
        parts.append(_mask_label_digits(source[position:]))
        starts.extend(range(position, len(source)))
        ends.extend(range(position + 1, len(source) + 1))
        return cls("".join(parts), starts, ends)

    def to_source(self, start: int, end: int) -> tuple[int, int]:
        """Source [start, end) covered by skeleton text[start:end] (end > start)."""
        return self.starts[start], self.ends[end - 1]
