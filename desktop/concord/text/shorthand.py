"""Lab shorthand as US notes write it, read with its labels.

A "fishbone" puts a panel's values in fixed places and names none of them:

* a blood count, ``WBC > Hb / Hct < Plt``: "CBC: 6.2 > 12.9/38.4 < 64";
* a basic metabolic panel, ``Na | Cl | BUN / K | HCO3 | Cr < Glucose``:
  "BMP: 134 | 98 | 45 / 6.1 | 22 | 3.4 < 180".

`shorthand_spans` finds each and gives the same values with their labels ("WBC 6.2, Hb 12.9,
Hct 38.4, Plt 64"), for a reader that matches labels; the place of each value is what its
label is, so nothing is guessed. Any other arrangement of numbers is left as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_N = r"(\d{1,4}(?:\.\d{1,2})?)"
_CBC_RE = re.compile(
    rf"(?<![\d.]){_N}\s*>\s*{_N}\s*/\s*{_N}\s*<\s*{_N}(?![\d.])",
)
_BMP_RE = re.compile(
    rf"(?<![\d.]){_N}\s*\|\s*{_N}\s*\|\s*{_N}\s*/\s*{_N}\s*\|\s*{_N}\s*\|\s*{_N}\s*<\s*{_N}(?![\d.])",
)
_CBC_LABELS = ("WBC", "Hb", "Hct", "Plt")
_BMP_LABELS = ("Na", "Cl", "BUN", "K", "HCO3", "Cr", "Glucose")


@dataclass(frozen=True)
class Shorthand:
    """A fishbone at text[start:end] and how it reads with its labels."""

    start: int
    end: int
    labelled: str


def shorthand_spans(text: str) -> list[Shorthand]:
    """Every blood-count and metabolic-panel fishbone in `text`, in order."""
    if "<" not in text:
        return []
    out: list[Shorthand] = []
    for regex, labels in ((_BMP_RE, _BMP_LABELS), (_CBC_RE, _CBC_LABELS)):
        for m in regex.finditer(text):
            if any(s.start < m.end() and m.start() < s.end for s in out):
                continue
            labelled = ", ".join(
                f"{label} {value}" for label, value in zip(labels, m.groups(), strict=True)
            )
            out.append(Shorthand(m.start(), m.end(), labelled))
    return sorted(out, key=lambda s: s.start)
