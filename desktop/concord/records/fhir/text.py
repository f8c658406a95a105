"""Small formatting helpers for rendering FHIR data types as text a clinician reads, and a
builder that remembers where each named part of the text is (for coded-fact spans)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from concord.domain.coded import Coding

SYSTEM_NAMES = {
    "http://loinc.org": "LOINC",
    "http://snomed.info/sct": "SNOMED CT",
    "http://www.nlm.nih.gov/research/umls/rxnorm": "RxNorm",
    "http://www.whocc.no/atc": "ATC",
    "http://hl7.org/fhir/sid/icd-10": "ICD-10",
    "http://hl7.org/fhir/sid/icd-10-cm": "ICD-10-CM",
    "http://dmd.nhs.uk": "dm+d",
    "https://dmd.nhs.uk": "dm+d",
    "http://unitsofmeasure.org": "UCUM",
}


class TextBuilder:
    """Appends text and records the (start, end) of named parts."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0
        self.anchors: dict[str, tuple[int, int]] = {}

    def add(self, text: str, anchor: str | None = None) -> None:
        text = " ".join(text.split()) if "\n" in text or "\r" in text else text
        if anchor is not None and text:
            self.anchors[anchor] = (self._length, self._length + len(text))
        self._parts.append(text)
        self._length += len(text)

    def newline(self) -> None:
        self._parts.append("\n")
        self._length += 1

    def line(self, text: str, anchor: str | None = None) -> None:
        self.add(text, anchor)
        self.newline()

    @property
    def text(self) -> str:
        return "".join(self._parts).rstrip("\n") + "\n"


def one_line(text: str | None) -> str:
    """Free text from a resource on one line (newlines and runs of spaces collapsed)."""
    return " ".join((text or "").split())


def codings(concept: Any) -> tuple[Coding, ...]:
    """Every coding of a CodeableConcept (or a Coding) as domain Codings."""
    if concept is None:
        return ()
    items = getattr(concept, "coding", None)
    if items is None and getattr(concept, "code", None) is not None:
        items = [concept]
    return tuple(
        Coding(system=c.system or "", code=c.code, display=one_line(c.display))
        for c in items or ()
        if c.code
    )


def concept_name(concept: Any, fallback: str = "") -> str:
    """CodeableConcept.text, else the first coding's display, else its code."""
    if concept is None:
        return fallback
    text = one_line(getattr(concept, "text", None))
    if text:
        return text
    for coding in getattr(concept, "coding", None) or ():
        if coding.display:
            return one_line(coding.display)
    for coding in getattr(concept, "coding", None) or ():
        if coding.code:
            return coding.code
    return fallback


def code_line(concept: Any) -> str:
    """'LOINC 2823-3 (Potassium [Moles/volume] in Serum or Plasma); SNOMED CT ...'."""
    parts = []
    for coding in codings(concept):
        system = SYSTEM_NAMES.get(coding.system, coding.system or "code")
        shown = f"{system} {coding.code}"
        if coding.display:
            shown += f" ({coding.display})"
        parts.append(shown)
    return "; ".join(parts)


def number(value: Decimal | float | int) -> str:
    """A quantity's value as written in the resource (Decimal keeps its digits)."""
    if isinstance(value, Decimal):
        return format(value, "f")
    return f"{value:g}" if isinstance(value, float) else str(value)


def quantity_unit(quantity: Any) -> str:
    return one_line(quantity.unit or quantity.code or "")


def when(value: Any) -> str:
    """A FHIR date/dateTime/instant as text: '2026-11-20 08:15', '2026-11-20', '2019-08'."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return (
            value.strftime("%Y-%m-%d %H:%M")
            if (value.hour, value.minute) != (0, 0)
            else value.date().isoformat()
        )
    if isinstance(value, date):
        return value.isoformat()
    return one_line(str(value))


def day_of(value: Any) -> date | None:
    """The calendar day of a FHIR date/dateTime (the first day of a partial '2019-08')."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        parts = value[:10].split("-")
        try:
            year = int(parts[0])
            month = int(parts[1]) if len(parts) > 1 else 1
            day = int(parts[2]) if len(parts) > 2 else 1
            return date(year, month, day)
        except (ValueError, IndexError):
            return None
    return None


def period_text(period: Any) -> str:
    if period is None:
        return ""
    start, end = when(period.start), when(period.end)
    if start and end:
        return f"{start} to {end}"
    if start:
        return f"from {start}"
    return f"until {end}" if end else ""


def reference_text(reference: Any) -> str:
    if reference is None:
        return ""
    return one_line(reference.display) or one_line(reference.reference)
