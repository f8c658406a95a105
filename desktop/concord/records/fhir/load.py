"""A FHIR R4 Bundle (or one resource) as a Record: one document per resource, rendered as
text with the resource type and id as its source_id, plus the coded facts the screen reads.

Checks that make a bundle unusable (one InputError naming the file and the resource, and
nothing imported): more than one Patient; a resource about another patient than the
bundle's, at the top level or contained in another resource (a report's contained
Observation is read as the report's result), and without a Patient resource, resources
about different patients; a reference Concord needs to read a resource (its medication, a
report's results, a procedure's device, an attachment's Binary) that is not in the bundle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from concord.domain.coded import CodedFact
from concord.domain.record import DocumentKind, Record, SourceDocument
from concord.errors import InputError
from concord.records.fhir.attachments import document_reference_documents, presented_form_documents
from concord.records.fhir.facts import facts_for
from concord.records.fhir.parse import Entry, Resources, read_resources, type_id_tail
from concord.records.fhir.render import ORDER, PLANNED_PROCEDURE_STATUSES, patient_name, render
from concord.records.fhir.text import concept_name

REFERENCE_ONLY = frozenset({"Medication", "Binary", "Practitioner", "PractitionerRole",
                            "Organization", "Location", "Specimen", "Substance",
                            "Provenance", "OperationOutcome"})  # fmt: skip
"""Types read through the resources that point at them, not shown on their own."""


def _required_references(entry: Entry) -> list[tuple[str, Any]]:
    """(what, reference) pairs that must resolve for the resource to be read."""
    resource = entry.resource
    out: list[tuple[str, Any]] = []
    medication = getattr(resource, "medicationReference", None)
    if medication is not None:
        out.append(("medication", medication))
    for name in ("result", "hasMember"):
        for reference in getattr(resource, name, None) or ():
            out.append((name, reference))
    if entry.resource_type == "Procedure":
        for device in resource.focalDevice or ():
            out.append(("focalDevice", device.manipulated))
        for reference in resource.usedReference or ():
            out.append(("usedReference", reference))
    if entry.resource_type == "Medication":
        for ingredient in resource.ingredient or ():
            if ingredient.itemReference is not None:
                out.append(("ingredient", ingredient.itemReference))
    return out


def _check(resources: Resources, subject: Path | str) -> Any | None:
    """The bundle's one patient (or None); InputError for anything that makes it unsafe."""
    patients = list(resources.of_type("Patient"))
    if len(patients) > 1:
        ids = ", ".join(p.local_id for p in patients[:4])
        raise InputError(
            f"bundle holds {len(patients)} patients ({ids}); import one patient per bundle",
            subject=subject,
        )
    patient = patients[0].resource if patients else None
    for entry in resources.entries:
        for what, reference in _required_references(entry):
            target = reference.reference if reference is not None else None
            if not target or resources.resolve(target, entry.resource) is None:
                shown = target or (reference.display if reference is not None else "") or "?"
                raise InputError(
                    f"{entry.local_id}: {what} reference {shown!r} does not resolve "
                    "(not in the bundle)",
                    subject=subject,
                )
    about: tuple[str, str] | None = None  # without a Patient: the first subject seen
    for entry in resources.entries:
        held = [(entry.local_id, entry.resource)] + [
            (f"{entry.local_id} contained #{getattr(c, 'id', '?')}", c)
            for c in getattr(entry.resource, "contained", None) or ()
        ]
        for where, resource in held:
            for field_name in ("subject", "patient"):
                reference = getattr(resource, field_name, None)
                target = getattr(reference, "reference", None) if reference is not None else None
                if not target:
                    continue
                if patient is not None:
                    if resources.resolve(target, entry.resource) is not patient:
                        raise InputError(
                            f"{where}: {field_name} {target!r} is not the bundle's patient "
                            f"({patients[0].local_id})",
                            subject=subject,
                        )
                    continue
                key = type_id_tail(target) or target
                if about is None:
                    about = (key, where)
                elif key != about[0]:
                    raise InputError(
                        f"{where}: {field_name} {target!r} is another patient than "
                        f"{about[1]}'s ({about[0]}); import one patient per bundle",
                        subject=subject,
                    )
    return patient


def record_from_fhir(data: dict[str, Any], path: Path) -> Record:
    resources = read_resources(data, path)
    patient = _check(resources, path)
    documents: list[SourceDocument] = []
    facts: list[CodedFact] = []
    operation: str | None = None
    rank = {name: index for index, name in enumerate(ORDER)}
    ordered = sorted(
        (e for e in resources.entries if e.resource_type not in REFERENCE_ONLY),
        key=lambda e: rank.get(e.resource_type, len(ORDER)),
    )
    for entry in ordered:
        if entry.resource_type == "DocumentReference":
            documents.extend(
                document_reference_documents(entry.local_id, entry.resource, resources, path)
            )
            continue
        rendered = render(entry, resources)
        if rendered is None:
            continue  # a resource type Concord does not read, with no narrative
        documents.append(
            SourceDocument(
                source_id=entry.local_id,
                title=rendered.title,
                kind=DocumentKind.FHIR,
                text=rendered.text,
            )
        )
        facts.extend(
            facts_for(
                entry.resource_type, entry.resource, entry.local_id, rendered, resources, path
            )
        )
        if entry.resource_type == "DiagnosticReport":
            documents.extend(
                presented_form_documents(entry.local_id, entry.resource, resources, path)
            )
        if (
            entry.resource_type == "Procedure"
            and entry.resource.status in PLANNED_PROCEDURE_STATUSES
            and operation is None
        ):
            operation = concept_name(entry.resource.code) or None
    if not documents:
        types = ", ".join(sorted({e.resource_type for e in resources.entries}))
        raise InputError(f"no resource Concord can read in the bundle ({types})", subject=path)
    name = patient_name(patient) if patient is not None else ""
    try:
        return Record(
            name=f"{name} (FHIR)" if name else path.name,
            documents=tuple(documents),
            operation=operation,
            coded=tuple(facts),
        )
    except ValueError as exc:
        raise InputError(f"bundle cannot be a record: {exc}", subject=path) from exc
