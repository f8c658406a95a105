"""Each FHIR resource as readable text: the concept and its value on the first line (as a
clinician writes "Potassium 6.4 mmol/L"), then status and dates, then the codes, then notes.

A renderer returns the text and the anchors (named spans) the coded facts point at:
"name", "value", "component.N.name", "component.N.value", "ingredients", "device.N".
Patient text is data: it is collapsed to one line where it is a field, never interpreted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from concord.records.fhir.parse import Entry, Resources
from concord.records.fhir.text import (
    TextBuilder,
    code_line,
    concept_name,
    number,
    one_line,
    period_text,
    quantity_unit,
    reference_text,
    when,
)

PLANNED_PROCEDURE_STATUSES = frozenset({"preparation"})


@dataclass(frozen=True)
class Rendered:
    title: str
    text: str
    anchors: dict[str, tuple[int, int]]


Renderer = Callable[[Any, Resources], Rendered]


def _notes(out: TextBuilder, resource: Any) -> None:
    for note in getattr(resource, "note", None) or ():
        if note.text:
            out.line(f"Note: {one_line(note.text)}")


def _codes(out: TextBuilder, concept: Any, label: str = "Codes") -> None:
    codes = code_line(concept)
    if codes:
        out.line(f"{label}: {codes}")


def _joined(*parts: str) -> str:
    return ", ".join(p for p in parts if p)


# -- values ----------------------------------------------------------------------------


def _value(out: TextBuilder, holder: Any, anchor: str) -> str:
    """Writes an Observation (or component) value; returns how it was written."""
    quantity = getattr(holder, "valueQuantity", None)
    if quantity is not None and quantity.value is not None:
        comparator = quantity.comparator or ""
        unit = quantity_unit(quantity)
        written = f"{comparator}{number(quantity.value)}" + (f" {unit}" if unit else "")
        out.add(written, anchor)
        return written
    for field_name in ("valueCodeableConcept",):
        concept = getattr(holder, field_name, None)
        if concept is not None:
            written = concept_name(concept)
            out.add(written, anchor)
            return written
    for field_name in ("valueString", "valueInteger", "valueBoolean", "valueTime"):
        value = getattr(holder, field_name, None)
        if value is not None:
            written = one_line(str(value).lower() if isinstance(value, bool) else str(value))
            out.add(written, anchor)
            return written
    value_range = getattr(holder, "valueRange", None)
    if value_range is not None:
        low, high = value_range.low, value_range.high
        unit = quantity_unit(high or low)
        written = (
            f"{number(low.value) if low and low.value is not None else ''}-"
            f"{number(high.value) if high and high.value is not None else ''}"
            + (f" {unit}" if unit else "")
        )
        out.add(written, anchor)
        return written
    ratio = getattr(holder, "valueRatio", None)
    if ratio is not None and ratio.numerator is not None and ratio.denominator is not None:
        written = f"{number(ratio.numerator.value)}:{number(ratio.denominator.value)}"
        out.add(written, anchor)
        return written
    absent = getattr(holder, "dataAbsentReason", None)
    if absent is not None:
        written = f"(no value: {concept_name(absent)})"
        out.add(written)
        return written
    return ""


def _flags(holder: Any) -> str:
    flags = []
    for concept in getattr(holder, "interpretation", None) or ():
        for coding in concept.coding or ():
            if coding.code and coding.code not in ("N",):
                flags.append(coding.code)
    return " ".join(dict.fromkeys(flags))


def _reference_range(observation: Any) -> str:
    for item in observation.referenceRange or ():
        if item.text:
            return f"(reference {one_line(item.text)})"
        low = number(item.low.value) if item.low and item.low.value is not None else ""
        high = number(item.high.value) if item.high and item.high.value is not None else ""
        if low and high:
            return f"(reference {low}-{high})"
        if high:
            return f"(reference <{high})"
        if low:
            return f"(reference >{low})"
    return ""


def observation_line(out: TextBuilder, observation: Any, prefix: str = "") -> None:
    """The first line of an Observation: name, value, unit, reference range, flags."""
    name = concept_name(observation.code, "Observation")
    out.add(name, f"{prefix}name")
    out.add(" ")
    _value(out, observation, f"{prefix}value")
    reference = _reference_range(observation)
    if reference:
        out.add(f" {reference}")
    flags = _flags(observation)
    if flags:
        out.add(f" {flags}")
    out.newline()


# -- resources ---------------------------------------------------------------------------


def render_observation(observation: Any, resources: Resources) -> Rendered:
    out = TextBuilder()
    observation_line(out, observation)
    for index, component in enumerate(observation.component or ()):
        out.add("  ")
        out.add(concept_name(component.code, "component"), f"component.{index}.name")
        out.add(" ")
        _value(out, component, f"component.{index}.value")
        flags = _flags(component)
        if flags:
            out.add(f" {flags}")
        out.newline()
    categories = ", ".join(concept_name(c) for c in observation.category or ())
    effective = when(observation.effectiveDateTime or observation.effectiveInstant) or period_text(
        observation.effectivePeriod
    )
    out.line(
        _joined(
            "Observation" + (f" ({categories})" if categories else ""),
            observation.status,
            effective,
        )
    )
    for member in observation.hasMember or ():
        target = resources.resolve(member.reference or "", observation)
        if target is not None:
            out.add("  ")
            observation_line(out, target)
    if observation.method is not None:
        out.line(f"Method: {concept_name(observation.method)}")
    _codes(out, observation.code)
    _notes(out, observation)
    return Rendered(
        _title(concept_name(observation.code, "Observation"), effective), out.text, out.anchors
    )


def render_condition(condition: Any, resources: Resources) -> Rendered:
    out = TextBuilder()
    name = concept_name(condition.code, "Condition")
    out.add(name, "name")
    status = _joined(
        concept_name(condition.clinicalStatus), concept_name(condition.verificationStatus)
    )
    if status:
        out.add(f" - {status}", "status")
    out.newline()
    onset = (
        when(condition.onsetDateTime)
        or period_text(condition.onsetPeriod)
        or one_line(condition.onsetString)
    )
    abated = (
        when(condition.abatementDateTime)
        or period_text(condition.abatementPeriod)
        or one_line(condition.abatementString)
    )
    categories = ", ".join(concept_name(c) for c in condition.category or ())
    out.line(
        _joined(
            "Condition" + (f" ({categories})" if categories else ""),
            f"severity {concept_name(condition.severity)}" if condition.severity else "",
            f"onset {onset}" if onset else "",
            f"abated {abated}" if abated else "",
            f"recorded {when(condition.recordedDate)}" if condition.recordedDate else "",
        )
    )
    _codes(out, condition.code)
    _notes(out, condition)
    return Rendered(_title(f"Condition: {name}", onset), out.text, out.anchors)


def medication_concept(resource: Any, resources: Resources) -> tuple[Any, Any | None]:
    """(the medication's CodeableConcept, the Medication resource if referenced)."""
    if resource.medicationCodeableConcept is not None:
        return resource.medicationCodeableConcept, None
    reference = resource.medicationReference
    target = resources.resolve(reference.reference or "", resource) if reference else None
    return (target.code if target is not None else None), target


def _dosage_text(resource: Any) -> str:
    dosages = getattr(resource, "dosage", None) or getattr(resource, "dosageInstruction", None)
    if dosages is None:
        return ""
    if not isinstance(dosages, list):  # MedicationAdministration.dosage is one element
        text = one_line(dosages.text)
        dose = getattr(dosages, "dose", None)
        if not text and dose is not None and dose.value is not None:
            text = f"{number(dose.value)} {quantity_unit(dose)}"
        return text
    return "; ".join(one_line(d.text) for d in dosages if d.text)


def render_medication_use(resource: Any, resources: Resources) -> Rendered:
    """MedicationStatement, MedicationRequest and MedicationAdministration."""
    concept, medication = medication_concept(resource, resources)
    fallback = reference_text(resource.medicationReference) if resource.medicationReference else ""
    name = concept_name(concept, fallback or "medication")
    out = TextBuilder()
    out.add(name, "name")
    dosage = _dosage_text(resource)
    if dosage:
        out.add(f" - {dosage}")
    out.newline()
    rtype = resource.get_resource_type()
    effective = (
        when(getattr(resource, "effectiveDateTime", None))
        or period_text(getattr(resource, "effectivePeriod", None))
        or when(getattr(resource, "authoredOn", None))
    )
    intent = getattr(resource, "intent", None) or ""
    out.line(_joined(rtype, resource.status, intent if intent != "order" else "", effective))
    if medication is not None and medication.ingredient:
        names = []
        for ingredient in medication.ingredient:
            item = ingredient.itemCodeableConcept
            if item is None and ingredient.itemReference is not None:
                target = resources.resolve(ingredient.itemReference.reference or "", medication)
                item = getattr(target, "code", None)
            names.append(concept_name(item, reference_text(ingredient.itemReference)))
        out.add("Ingredients: ")
        out.add(", ".join(n for n in names if n), "ingredients")
        out.newline()
    for reason in getattr(resource, "reasonCode", None) or ():
        out.line(f"Reason: {concept_name(reason)}")
    _codes(out, concept)
    _notes(out, resource)
    return Rendered(_title(name, effective), out.text, out.anchors)


def render_procedure(procedure: Any, resources: Resources) -> Rendered:
    out = TextBuilder()
    name = concept_name(procedure.code, "Procedure")
    performed = (
        when(procedure.performedDateTime)
        or period_text(procedure.performedPeriod)
        or one_line(procedure.performedString)
    )
    planned = procedure.status in PLANNED_PROCEDURE_STATUSES
    out.add(name, "name")
    out.add(f" - {_joined('planned' if planned else procedure.status, performed)}")
    out.newline()
    if planned and performed:
        out.line(f"Planned surgery date: {performed[:10]}")
    for site in procedure.bodySite or ():
        out.line(f"Site: {concept_name(site)}")
    devices = [d.manipulated for d in procedure.focalDevice or ()] + list(
        procedure.usedReference or ()
    )
    for index, reference in enumerate(devices):
        target = resources.resolve(reference.reference or "", procedure)
        if target is None:
            continue
        out.add("Device: ")
        out.add(device_name(target) or reference_text(reference), f"device.{index}")
        out.newline()
    for code in procedure.usedCode or ():
        out.line(f"Used: {concept_name(code)}")
    if procedure.outcome is not None:
        out.line(f"Outcome: {concept_name(procedure.outcome)}")
    _codes(out, procedure.code)
    _notes(out, procedure)
    return Rendered(_title(f"Procedure: {name}", performed), out.text, out.anchors)


def device_name(device: Any) -> str:
    """A Device's name: its type as text, then the manufacturer's name."""
    names = [one_line(n.name) for n in getattr(device, "deviceName", None) or () if n.name]
    type_name = concept_name(getattr(device, "type", None))
    if type_name and names:
        return f"{type_name} ({names[0]})"
    return type_name or (names[0] if names else "")


def render_device(device: Any, resources: Resources) -> Rendered:
    out = TextBuilder()
    out.add("Device: ")
    out.add(device_name(device) or "device", "name")
    out.newline()
    out.line(
        _joined(
            "Device",
            device.status,
            f"manufactured {when(device.manufactureDate)}" if device.manufactureDate else "",
        )
    )
    _codes(out, device.type)
    _notes(out, device)
    return Rendered(f"Device: {device_name(device)}", out.text, out.anchors)


def render_allergy(allergy: Any, resources: Resources) -> Rendered:
    out = TextBuilder()
    out.add("Allergy: ")
    name = concept_name(allergy.code, "allergy")
    out.add(name, "name")
    reactions = []
    for reaction in allergy.reaction or ():
        shown = ", ".join(concept_name(m) for m in reaction.manifestation or ())
        if reaction.severity:
            shown += f" ({reaction.severity})"
        reactions.append(shown or one_line(reaction.description))
    if reactions:
        out.add(f" - {'; '.join(reactions)}")
    out.newline()
    out.line(
        _joined(
            "AllergyIntolerance",
            concept_name(allergy.clinicalStatus),
            concept_name(allergy.verificationStatus),
            f"criticality {allergy.criticality}" if allergy.criticality else "",
            f"recorded {when(allergy.recordedDate)}" if allergy.recordedDate else "",
        )
    )
    _codes(out, allergy.code)
    _notes(out, allergy)
    return Rendered(f"Allergy: {name}", out.text, out.anchors)


def render_report(report: Any, resources: Resources) -> Rendered:
    out = TextBuilder()
    name = concept_name(report.code, "Report")
    effective = when(report.effectiveDateTime) or period_text(report.effectivePeriod)
    out.add(name, "name")
    out.add(f" - {_joined(report.status, effective)}")
    out.newline()
    if report.conclusion:
        out.line(f"Conclusion: {one_line(report.conclusion)}")
    for concept in report.conclusionCode or ():
        out.line(f"Conclusion code: {concept_name(concept)} [{code_line(concept)}]")
    for reference in report.result or ():
        target = resources.resolve(reference.reference or "", report)
        if target is not None:
            out.add("Result: ")
            observation_line(out, target)
    _codes(out, report.code)
    return Rendered(_title(name, effective), out.text, out.anchors)


def render_encounter(encounter: Any, resources: Resources) -> Rendered:
    out = TextBuilder()
    kind = (
        one_line(encounter.class_fhir.display or encounter.class_fhir.code)
        if encounter.class_fhir
        else ""
    )
    types = ", ".join(concept_name(t) for t in encounter.type or ())
    period = period_text(encounter.period)
    out.add("Encounter: ")
    out.add(_joined(types, kind) or "encounter", "name")
    out.add(f" - {_joined(encounter.status, period)}")
    out.newline()
    for reason in encounter.reasonCode or ():
        out.line(f"Reason: {concept_name(reason)}")
    hospitalization = encounter.hospitalization
    if hospitalization is not None and hospitalization.dischargeDisposition is not None:
        out.line(f"Discharged to: {concept_name(hospitalization.dischargeDisposition)}")
    return Rendered(_title(f"Encounter: {_joined(types, kind)}", period), out.text, out.anchors)


def patient_name(patient: Any) -> str:
    for name in patient.name or ():
        if name.text:
            return one_line(name.text)
        parts = [*(name.prefix or ()), *(name.given or ()), (name.family or "").upper()]
        shown = " ".join(one_line(p) for p in parts if p)
        if shown:
            return shown
    return ""


def render_patient(patient: Any, resources: Resources) -> Rendered:
    out = TextBuilder()
    name = patient_name(patient) or "(no name)"
    out.line(f"Patient: {name}", "name")
    out.line(
        _joined(
            f"born {when(patient.birthDate)}" if patient.birthDate else "",
            f"sex {patient.gender}" if patient.gender else "",
            "deceased" if patient.deceasedBoolean or patient.deceasedDateTime else "",
        )
    )
    for identifier in patient.identifier or ():
        if identifier.value:
            label = concept_name(identifier.type) or one_line(identifier.system)
            out.line(f"Identifier: {label} {one_line(identifier.value)}".replace("  ", " "))
    return Rendered(f"Patient: {name}", out.text, out.anchors)


class _Narrative(HTMLParser):
    """The text of a resource's XHTML narrative; block elements become line breaks."""

    _BLOCKS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "table"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._BLOCKS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def narrative_text(resource: Any) -> str:
    narrative = getattr(resource, "text", None)
    div = getattr(narrative, "div", None)
    return xhtml_text(str(div)) if div else ""


def xhtml_text(markup: str) -> str:
    """The readable text of XHTML (tags dropped, blocks as lines); nothing is executed."""
    parser = _Narrative()
    parser.feed(markup)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).split("\n")]
    return "\n".join(line for line in lines if line)


def render_narrative(resource: Any, resources: Resources) -> Rendered | None:
    """Any other resource: its narrative, if it has one."""
    text = narrative_text(resource)
    if not text:
        return None
    rtype = resource.get_resource_type()
    out = TextBuilder()
    out.line(f"{rtype} (narrative):")
    for line in text.split("\n"):
        out.line(line)
    return Rendered(f"{rtype}", out.text, out.anchors)


_FIRST_DATE = re.compile(r"\d{4}(?:-\d{2}){0,2}")


def _title(name: str, when_text: str) -> str:
    dated = _FIRST_DATE.search(when_text)
    title = f"{name} {dated.group()}" if dated else name
    return re.sub(r"\s+", " ", title).strip()[:120]


RENDERERS: dict[str, Renderer] = {
    "Patient": render_patient,
    "Encounter": render_encounter,
    "Condition": render_condition,
    "AllergyIntolerance": render_allergy,
    "MedicationStatement": render_medication_use,
    "MedicationRequest": render_medication_use,
    "MedicationAdministration": render_medication_use,
    "Procedure": render_procedure,
    "Device": render_device,
    "Observation": render_observation,
    "DiagnosticReport": render_report,
}
"""Resource types rendered as their own document (DocumentReference: see attachments)."""

ORDER = ("Patient", "Encounter", "Condition", "AllergyIntolerance", "MedicationStatement",
         "MedicationRequest", "MedicationAdministration", "Procedure", "Device",
         "Observation", "DiagnosticReport", "DocumentReference")  # fmt: skip


def render(entry: Entry, resources: Resources) -> Rendered | None:
    renderer = RENDERERS.get(entry.resource_type)
    if renderer is None:
        return render_narrative(entry.resource, resources)
    return renderer(entry.resource, resources)
