"""Values with units, as written in clinical text: "6.3 mmol/L", "45,000/µL", "25-30%".

`UnitTable` is loaded from `resources/lexicon/units.json`: each quantity (cell_count,
percent, ...) has a canonical unit and the written forms that convert to it by a factor;
`foreign_units` are units that belong to no lab value the screen reads (mg, days, L/min),
so "K 6 days" or "vitamin K 10 mg" is never read as a potassium.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from concord.screen.resource_file import read_resource_file

NUMBER = r"\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?"
_NUMBER_AT = re.compile(rf"(?<![A-Za-z0-9.,/])(?P<a>{NUMBER})")
_RANGE_TAIL = re.compile(rf"\s*%?\s*(?:-|–|—|to)\s*(?P<b>{NUMBER})")
_SERIES_LINK = re.compile(rf"\s*(?:,|->|→|=>|>>|then|rising to|falling to)\s*(?P<n>{NUMBER})")
_QUALIFIER_BEFORE = re.compile(
    r"(?P<q><=|>=|≤|≥|<|>|less than|below|under|greater than|more than|above|over|"
    r"at least|at most|up to|~|≈|approx\.?|approximately|about|around|c\.)\s*$",
    re.IGNORECASE,
)
_LOWER_BOUND = {">", ">=", "≥", "greater than", "more than", "above", "over", "at least"}
_UPPER_BOUND = {"<", "<=", "≤", "less than", "below", "under", "at most", "up to"}


class _UnitGroupIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    forms: list[str] = Field(min_length=1, description="Written forms, case-sensitive")
    factor: float = Field(gt=0, description="Multiply a value in this unit by this")


class _QuantityIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    canonical: str = Field(description="Unit the gate thresholds are written in")
    units: list[_UnitGroupIn]


class _UnitsFileIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: str
    description: str = ""
    quantities: dict[str, _QuantityIn]
    foreign_units: list[str] = Field(default=[], description="Units no gate value uses")


@dataclass(frozen=True)
class UnitForm:
    form: str
    quantity: str | None  # None: a foreign unit
    factor: float


@dataclass(frozen=True)
class Reading:
    """A value read after a mention: bounds in canonical units and where it was written."""

    low: float  # smallest value consistent with the text (may be -inf for "<30")
    high: float  # largest value consistent with the text (may be +inf for ">55")
    written: str  # e.g. "25-30%"
    start: int
    end: int


class UnitTable:
    def __init__(self, quantities: dict[str, _QuantityIn], foreign: list[str]) -> None:
        self.canonical = {qid: q.canonical for qid, q in quantities.items()}
        self._forms: dict[str, UnitForm] = {}
        for qid, quantity in quantities.items():
            for group in quantity.units:
                for form in group.forms:
                    self._forms[form] = UnitForm(form, qid, group.factor)
        for form in foreign:
            self._forms.setdefault(form, UnitForm(form, None, 1.0))
        alternatives = [
            re.escape(f) + ("(?![A-Za-z0-9])" if f[-1].isalnum() else "")
            for f in sorted(self._forms, key=len, reverse=True)
        ]
        self._unit_re = re.compile(r"[ \t]*(?:" + "|".join(alternatives) + ")")

    @classmethod
    def load(cls, path: Path) -> UnitTable:
        parsed = read_resource_file(path, _UnitsFileIn, "units file")
        return cls(parsed.quantities, parsed.foreign_units)

    def unit_at(self, text: str, pos: int) -> tuple[UnitForm | None, int]:
        """The unit written at `pos` (after optional spaces) and where it ends."""
        match = self._unit_re.match(text, pos)
        if match is None:
            return None, pos
        return self._forms[match.group().strip()], match.end()

    def read(
        self,
        text: str,
        pos: int,
        *,
        quantity: str | None,
        bare_large: tuple[float, float] | None,
        gap_before: str,
    ) -> Reading | None:
        """Read the number (range, series) starting at `pos`; None if its unit does not fit.

        `bare_large` is (at_least, factor): a value with no unit at or above `at_least` is
        multiplied by `factor` (a platelet count of 45000 with no unit is 45 x10^9/L).
        """
        first = _NUMBER_AT.match(text, pos)
        if first is None:
            return None
        values = [_to_float(first.group("a"))]
        end = first.end()
        range_match = _RANGE_TAIL.match(text, end)
        if range_match is not None:
            values.append(_to_float(range_match.group("b")))
            end = range_match.end()
        unit, unit_end = self.unit_at(text, end)
        if unit is not None and unit.quantity != quantity:
            return None
        factor = unit.factor if unit is not None else 1.0
        if unit is not None:
            end = unit_end
        while True:  # a series on the same line: "K+ 5.9 -> 6.4", "hs-TnT 14, 38"
            link = _SERIES_LINK.match(text, end)
            if link is None:
                break
            next_unit, next_end = self.unit_at(text, link.end())
            if next_unit is not None and next_unit.quantity != quantity:
                break
            values.append(_to_float(link.group("n")))
            end = next_end if next_unit is not None else link.end()
        if unit is None and bare_large is not None and min(values) >= bare_large[0]:
            factor = bare_large[1]
        scaled = [v * factor for v in values]
        low, high = min(scaled), max(scaled)
        qualifier = _QUALIFIER_BEFORE.search(gap_before)
        if qualifier is not None:
            word = qualifier.group("q").lower()
            if word in _LOWER_BOUND:
                high = math.inf
            elif word in _UPPER_BOUND:
                low = -math.inf
        return Reading(low=low, high=high, written=text[pos:end], start=pos, end=end)

    def values_in_series(self, reading: Reading) -> list[float]:
        """Every number written in a reading, in order (for trend rules)."""
        return [_to_float(m.group("a")) for m in _NUMBER_AT.finditer(reading.written)]


def _to_float(written: str) -> float:
    return float(written.replace(",", ""))


def next_number(text: str, pos: int, end: int) -> re.Match[str] | None:
    """The next free-standing number in text[pos:end] (not part of "O2" or "10^9")."""
    return _NUMBER_AT.search(text, pos, end)
