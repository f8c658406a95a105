"""Coded facts from validated FHIR resources: the codes, values (with their UCUM units),
statuses and dates the record screen reads, each pointing at the rendered text of its
resource (the anchors the renderer recorded)."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from concord.domain.coded import UCUM, CodedFact, Coding, Component, FactKind, Quantity
from concord.domain.span import Span
from concord.errors import InputError
from concord.records.fhir.parse import Resources
from concord.records.fhir.render import Rendered, device_name, medication_concept
from concord.records.fhir.text import codings, concept_name, day_of
from concord.records.ucum import UcumError, parse_ucum


class _Spans:
    def __init__(self, source_id: str, rendered: Rendered) -> None:
        self.source_id = source_id
        self.anchors = rendered.anchors
        self.text = rendered.text

    def text_of(self, name: str) -> str:
        where = self.anchors.get(name)
        return self.text[where[0] : where[1]] if where else ""

    def get(self, name: str) -> Span | None:
        where = self.anchors.get(name)
        return Span(source_id=self.source_id, start=where[0], end=where[1]) if where else None

    def first(self, *names: str) -> Span:
        for name in names:
            span = self.get(name)
            if span is not None:
                return span
        return Span(source_id=self.source_id, start=0, end=0)


MAX_MAGNITUDE = 1e12
"""No measured clinical value is larger (counts per litre are written 10*9/L); a value that
is, or is not finite (1e308, a 4001-digit integer read as inf), is refused."""
MAX_SIGNIFICANT_DIGITS = 20
"""More digits than any instrument reports: refused, not rounded."""
SIGNED_UNITS = frozenset({"Cel", "[degF]", "deg", "rad", "1", "%", "dB", "[pH]"})
"""UCUM units whose values may be below zero (temperatures, angles, ratios, changes)."""
SIGNED_CONCEPT = re.compile(
    r"\b(?:base\s+(?:excess|deficit)|change|difference|delta|deviation|balance|axis|"
    r"z[\s-]?score|sds|standard\s+deviation|t[\s-]?score|shift|offset)\b",
    re.IGNORECASE,
)
"""Concepts that are signed whatever their unit (a base excess in mmol/L, a change in %)."""


def plausible_value(value: Any, unit: str, concept: str, where: str, subject: Path | str) -> float:
    """The value as a float, or InputError (one line naming the file and the resource) when
    no measurement can be it: not finite, too large, more digits than any instrument gives,
    or below zero for a quantity that cannot be (a concentration, a count, a mass...)."""
    shown = str(value)
    if len(shown) > 40:
        shown = f"{shown[:12]}… ({len(shown)} characters)"
    try:
        digits = len(value.normalize().as_tuple().digits) if isinstance(value, Decimal) else 0
        number = float(value)
    except (OverflowError, ValueError, ArithmeticError):
        number, digits = math.inf, 0
    name = concept or "value"
    problem = ""
    if not math.isfinite(number) or abs(number) > MAX_MAGNITUDE:
        problem = f"is not a plausible measurement (over {MAX_MAGNITUDE:g} or not finite)"
    elif digits > MAX_SIGNIFICANT_DIGITS:
        problem = f"has {digits} significant digits (no instrument reports that many)"
    elif number < 0 and unit not in SIGNED_UNITS and not SIGNED_CONCEPT.search(concept):
        problem = f"is below zero, which a {name} in {unit or 'these units'} cannot be"
    if problem:
        raise InputError(
            f"{where}: {name} {shown} {unit}".rstrip() + f" {problem}", subject=subject
        )
    return number


def _quantity(
    holder: Any, span: Span | None, where: str, subject: Path | str, concept: str = ""
) -> Quantity | None:
    quantity = getattr(holder, "valueQuantity", None)
    if quantity is None or quantity.value is None or span is None:
        return None
    unit = quantity.code or quantity.unit or ""
    if quantity.system == UCUM or (quantity.system is None and quantity.code):
        try:
            parse_ucum(quantity.code or "")
        except UcumError as exc:
            raise InputError(f"{where}: {exc}", subject=subject) from exc
    value = plausible_value(quantity.value, unit, concept, where, subject)
    return Quantity(value=value, unit=unit, comparator=quantity.comparator or "", span=span)


def observation_facts(
    observation: Any, spans: _Spans, local_id: str, subject: Path | str
) -> list[CodedFact]:
    components = []
    for index, component in enumerate(observation.component or ()):
        name_span = spans.get(f"component.{index}.name")
        if name_span is None:
            continue
        components.append(
            Component(
                codes=codings(component.code),
                name=concept_name(component.code),
                quantity=_quantity(
                    component,
                    spans.get(f"component.{index}.value"),
                    local_id,
                    subject,
                    concept_name(component.code),
                ),
                concept=codings(component.valueCodeableConcept),
                span=name_span,
            )
        )
    effective = (
        observation.effectiveDateTime
        or observation.effectiveInstant
        or (observation.effectivePeriod.start if observation.effectivePeriod else None)
        or observation.issued
    )
    return [
        CodedFact(
            kind=FactKind.OBSERVATION,
            resource=local_id,
            codes=codings(observation.code) + codings(observation.valueCodeableConcept),
            name=concept_name(observation.code),
            span=spans.first("name"),
            quantity=_quantity(
                observation, spans.get("value"), local_id, subject, concept_name(observation.code)
            ),
            components=tuple(components),
            status=observation.status or "",
            effective=day_of(effective),
        )
    ]


def condition_facts(condition: Any, spans: _Spans, local_id: str) -> list[CodedFact]:
    clinical = codings(condition.clinicalStatus)
    verification = codings(condition.verificationStatus)
    onset = condition.onsetDateTime or (
        condition.onsetPeriod.start if condition.onsetPeriod else None
    )
    abated = condition.abatementDateTime or (
        condition.abatementPeriod.end if condition.abatementPeriod else None
    )
    return [
        CodedFact(
            kind=FactKind.CONDITION,
            resource=local_id,
            codes=codings(condition.code),
            name=concept_name(condition.code),
            span=spans.first("name"),
            status=verification[0].code if verification else "",
            clinical_status=clinical[0].code if clinical else "",
            effective=day_of(condition.recordedDate),
            onset=day_of(onset),
            abatement=day_of(abated),
        )
    ]


def medication_facts(
    resource: Any, spans: _Spans, local_id: str, resources: Resources
) -> list[CodedFact]:
    concept, medication = medication_concept(resource, resources)
    related: list[Coding] = []
    names: list[str] = []
    for ingredient in getattr(medication, "ingredient", None) or ():
        item = ingredient.itemCodeableConcept
        if item is None and ingredient.itemReference is not None:
            item = getattr(
                resources.resolve(ingredient.itemReference.reference or "", medication),
                "code",
                None,
            )
        related.extend(codings(item))
        if concept_name(item):
            names.append(concept_name(item))
    period = getattr(resource, "effectivePeriod", None)
    effective = (
        getattr(resource, "effectiveDateTime", None)
        or (period.end or period.start if period else None)
        or getattr(resource, "authoredOn", None)
    )
    return [
        CodedFact(
            kind=FactKind.MEDICATION,
            resource=local_id,
            codes=codings(concept),
            name=concept_name(concept, spans.text_of("name")),
            span=spans.first("name"),
            status=resource.status or "",
            effective=day_of(effective),
            related=tuple(related),
            related_names=tuple(names),
            related_span=spans.get("ingredients"),
        )
    ]


def procedure_facts(
    procedure: Any, spans: _Spans, local_id: str, resources: Resources
) -> list[CodedFact]:
    performed = procedure.performedDateTime or (
        (procedure.performedPeriod.start or procedure.performedPeriod.end)
        if procedure.performedPeriod
        else None
    )
    facts = [
        CodedFact(
            kind=FactKind.PROCEDURE,
            resource=local_id,
            codes=codings(procedure.code),
            name=concept_name(procedure.code),
            span=spans.first("name"),
            status=procedure.status or "",
            effective=day_of(performed),
        )
    ]
    devices = [d.manipulated for d in procedure.focalDevice or ()] + list(
        procedure.usedReference or ()
    )
    for index, reference in enumerate(devices):
        target = resources.resolve(reference.reference or "", procedure)
        span = spans.get(f"device.{index}")
        if target is None or span is None or target.get_resource_type() != "Device":
            continue
        facts.append(
            CodedFact(
                kind=FactKind.DEVICE,
                resource=local_id,
                codes=codings(target.type),
                name=device_name(target),
                span=span,
                status=procedure.status or "",
                effective=day_of(performed),
            )
        )
    return facts


def device_facts(device: Any, spans: _Spans, local_id: str) -> list[CodedFact]:
    return [
        CodedFact(
            kind=FactKind.DEVICE,
            resource=local_id,
            codes=codings(device.type),
            name=device_name(device),
            span=spans.first("name"),
            status=device.status or "",
        )
    ]


def allergy_facts(allergy: Any, spans: _Spans, local_id: str) -> list[CodedFact]:
    clinical = codings(allergy.clinicalStatus)
    verification = codings(allergy.verificationStatus)
    return [
        CodedFact(
            kind=FactKind.ALLERGY,
            resource=local_id,
            codes=codings(allergy.code),
            name=concept_name(allergy.code),
            span=spans.first("name"),
            status=verification[0].code if verification else "",
            clinical_status=clinical[0].code if clinical else "",
            effective=day_of(allergy.recordedDate),
        )
    ]


def facts_for(
    resource_type: str,
    resource: Any,
    source_id: str,
    rendered: Rendered,
    resources: Resources,
    subject: Path | str,
) -> list[CodedFact]:
    spans = _Spans(source_id, rendered)
    if resource_type == "Observation":
        return observation_facts(resource, spans, source_id, subject)
    if resource_type == "Condition":
        return condition_facts(resource, spans, source_id)
    if resource_type in ("MedicationStatement", "MedicationRequest", "MedicationAdministration"):
        return medication_facts(resource, spans, source_id, resources)
    if resource_type == "Procedure":
        return procedure_facts(resource, spans, source_id, resources)
    if resource_type == "Device":
        return device_facts(resource, spans, source_id)
    if resource_type == "AllergyIntolerance":
        return allergy_facts(resource, spans, source_id)
    return []
