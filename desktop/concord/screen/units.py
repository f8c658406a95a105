"""Units as written after clinical values: "6.3 mmol/L", "45,000/µL", "0.8 lakh/cumm".

`UnitTable` is loaded from `resources/lexicon/units.json`: each quantity (cell_count,
percent, ...) has a canonical unit and the written forms that convert to it by a factor;
`foreign_units` are units that belong to no quantity a gate reads (mg, days, L/min), so
"K 6 days" or "vitamin K 10 mg" is never read as a potassium. Forms are read as the screen
reads text (`concord.screen.reading`), so "×10⁹/L" and "x10^9/L" are one form.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from concord.screen.reading import fold_text
from concord.screen.resource_file import read_resource_file


class _UnitGroupIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    forms: list[str] = Field(min_length=1, description="Written forms, case-sensitive")
    factor: float = Field(gt=0, description="Multiply a value in this unit by this")
    offset: float = Field(
        default=0.0, description="...then add this (HbA1c: % x 10.929 - 23.5 = mmol/mol)"
    )


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
    offset: float = 0.0

    def to_canonical(self, value: float) -> float:
        return value * self.factor + self.offset if math.isfinite(value) else value


TIME_UNITS = frozenset(
    {"h", "hr", "hrs", "hour", "hours", "min", "mins", "minutes", "days", "day", "d", "am", "pm"}
)


class UnitTable:
    def __init__(self, quantities: dict[str, _QuantityIn], foreign: list[str]) -> None:
        self.canonical = {qid: q.canonical for qid, q in quantities.items()}
        self._forms: dict[str, list[UnitForm]] = {}
        for qid, quantity in quantities.items():
            for group in quantity.units:
                for written in group.forms:
                    form = fold_text(written)
                    unit = UnitForm(form, qid, group.factor, group.offset)
                    known = self._forms.setdefault(form, [])
                    if all(u.quantity != qid for u in known):
                        known.append(unit)
        for written in foreign:
            form = fold_text(written)
            self._forms.setdefault(form, [UnitForm(form, None, 1.0)])
        alternatives = [
            re.escape(f) + ("(?![A-Za-z0-9])" if f[-1].isalnum() else "")
            for f in sorted(self._forms, key=len, reverse=True)
        ]
        self._unit_re = re.compile(r"[ \t]?(?:" + "|".join(alternatives) + ")")

    @classmethod
    def load(cls, path: Path) -> UnitTable:
        parsed = read_resource_file(path, _UnitsFileIn, "units file")
        return cls(parsed.quantities, parsed.foreign_units)

    def unit_at(
        self, text: str, pos: int, prefer: str | None = None
    ) -> tuple[UnitForm | None, int]:
        """The unit written at `pos` (after at most one space: two or more start another
        table cell) and where it ends. A form that several quantities write ("%": a
        percentage, an HbA1c; "mg/dL": creatinine, glucose) is read as `prefer`'s where it
        is one of them."""
        match = self._unit_re.match(text, pos)
        if match is None:
            return None, pos
        return self._choose(self._forms[match.group().strip()], prefer), match.end()

    def is_unit(self, text: str, prefer: str | None = None) -> UnitForm | None:
        """The unit that `text` is, whole (a table cell "mmol/L"), or None."""
        found = self._forms.get(text.strip())
        return self._choose(found, prefer) if found else None

    def forms_of(self, quantity: str) -> list[UnitForm]:
        """Every written form of a quantity's units."""
        return [f for forms in self._forms.values() for f in forms if f.quantity == quantity]

    @staticmethod
    def _choose(forms: list[UnitForm], prefer: str | None) -> UnitForm:
        return next((f for f in forms if f.quantity == prefer), forms[0])
