"""Numbers with their units in free text, for comparing thresholds between briefs."""

from __future__ import annotations

import re

_QUANTITY = re.compile(
    r"(?P<num>\d+(?:[.,]\d+)?)\s*"
    r"(?P<unit>mmol/l|mmhg|mg/dl|g/l|g/dl|x\s*10\^?9/l|×\s*10\^?9/l|/µl|/ul|cm2|cm²|%|mg|mcg|"
    r"ml/min|ml|l/min|bpm|days?|weeks?|months?|hours?|h|kg|units?)?",
    re.IGNORECASE,
)


def quantities(text: str) -> frozenset[tuple[str, str]]:
    """The set of (number, unit) pairs written in `text`, normalised ('6,0' -> '6.0')."""
    found: set[tuple[str, str]] = set()
    for m in _QUANTITY.finditer(text):
        number = m.group("num").replace(",", ".")
        if "." in number:
            number = number.rstrip("0").rstrip(".") or "0"
        unit = re.sub(r"\s+", "", (m.group("unit") or "").lower()).replace("×", "x")
        found.add((number, unit))
    return frozenset(found)
