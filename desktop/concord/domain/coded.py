"""Coded data carried on a record (from FHIR resources): what the record screen reads
directly, beside the text. Every fact points at the rendered text of its resource, so a
gate fired by a code has a span like any other evidence."""

from __future__ import annotations

from datetime import date
from enum import StrEnum

from pydantic import Field

from concord.domain._base import Frozen
from concord.domain.span import Span

LOINC = "http://loinc.org"
SNOMED = "http://snomed.info/sct"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
ATC = "http://www.whocc.no/atc"
UCUM = "http://unitsofmeasure.org"
ICD10 = "http://hl7.org/fhir/sid/icd-10"


class FactKind(StrEnum):
    OBSERVATION = "observation"
    PROCEDURE = "procedure"
    DEVICE = "device"
    MEDICATION = "medication"
    CONDITION = "condition"
    ALLERGY = "allergy"


class Coding(Frozen):
    system: str = Field(description="Code system URI, e.g. http://loinc.org")
    code: str
    display: str = ""


class Quantity(Frozen):
    value: float
    unit: str = Field(description="UCUM code (or the unit as written when not UCUM)")
    comparator: str = Field(default="", description="'<', '<=', '>=', '>' or ''")
    span: Span = Field(description="Where the value is written in the rendered text")


class Component(Frozen):
    """A part of an Observation (blood pressure parts, the inspired oxygen of an SpO2)."""

    codes: tuple[Coding, ...]
    name: str
    quantity: Quantity | None = None
    concept: tuple[Coding, ...] = Field(default=(), description="A coded value")
    span: Span


class CodedFact(Frozen):
    kind: FactKind
    resource: str = Field(description="Resource type and id, e.g. 'Observation/k-1'")
    codes: tuple[Coding, ...] = Field(description="Every coding of the concept")
    name: str = Field(description="The concept as a person reads it (text or display)")
    span: Span = Field(description="The rendered line that names the concept")
    quantity: Quantity | None = None
    components: tuple[Component, ...] = ()
    status: str = Field(default="", description="FHIR status (final, active, completed...)")
    clinical_status: str = Field(default="", description="Conditions: active, resolved...")
    effective: date | None = Field(default=None, description="When it was measured/done")
    onset: date | None = Field(default=None, description="Conditions: onset date")
    abatement: date | None = Field(default=None, description="Conditions: when it resolved")
    related: tuple[Coding, ...] = Field(
        default=(), description="Codes of what the fact is about (a regimen's ingredients)"
    )
    related_names: tuple[str, ...] = Field(
        default=(), description="Names of the ingredients, as written"
    )
    related_span: Span | None = Field(default=None, description="Where the ingredients are")

    def spans(self) -> tuple[Span, ...]:
        out = [self.span]
        if self.related_span is not None:
            out.append(self.related_span)
        if self.quantity is not None:
            out.append(self.quantity.span)
        for component in self.components:
            out.append(component.span)
            if component.quantity is not None:
                out.append(component.quantity.span)
        return tuple(out)
