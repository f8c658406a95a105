"""Reading FHIR JSON: a Bundle or a single resource, each resource validated with the
`fhir.resources` models, and the references between them resolved.

Which models: `fhir.resources` 8 (pydantic v2) models FHIR R5 by default and R4B (4.3.0) in
its ``R4B`` subpackage; no current release models R4 (4.0.1) itself (6.x did, on pydantic
v1, which Concord cannot mix in). R4B changed the medicinal-product and evidence resources;
the clinical resources Concord reads (Patient, Condition, Observation, Medication*,
Procedure, AllergyIntolerance, DiagnosticReport, DocumentReference, Encounter, Device) are
the same as in R4, so R4 exports validate against the R4B models. A resource that fails
them but validates as R5 or STU3 is refused as "not FHIR R4", naming the version.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from concord.errors import InputError
from concord.records.validation import summarise_validation_error

BUNDLE_TYPES = frozenset({"collection", "document", "searchset", "transaction", "batch"})
MAX_RESOURCES = 20_000
_ID = re.compile(r"^[A-Za-z0-9\-.]{1,64}$")


@dataclass(frozen=True)
class Entry:
    """One resource of the input: its validated model, where it came from, its ids."""

    resource: Any  # a fhir.resources R4B model
    resource_type: str
    local_id: str  # "Observation/k1" (or "Observation/entry-3" when it has no id)
    full_url: str = ""


@dataclass
class Resources:
    """Every resource of one input, with reference resolution."""

    entries: list[Entry]
    subject: Path | str
    _index: dict[str, Entry] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for entry in self.entries:
            keys = {entry.local_id}
            if entry.full_url:
                keys.add(entry.full_url)
                tail = type_id_tail(entry.full_url)
                if tail:
                    keys.add(tail)
            for key in keys:
                if key in self._index and self._index[key] is not entry:
                    raise InputError(f"resource {key} appears twice", subject=self.subject)
                self._index[key] = entry

    def resolve(self, reference: str, within: Any = None) -> Any | None:
        """The resource a reference names: '#id' in `within`'s contained resources, a
        fullUrl ('urn:uuid:...', an absolute URL) or 'Type/id' in this input."""
        if reference.startswith("#"):
            for contained in getattr(within, "contained", None) or ():
                if getattr(contained, "id", None) == reference[1:]:
                    return contained
            return None
        found = self._index.get(reference) or self._index.get(type_id_tail(reference) or "")
        return found.resource if found else None

    def of_type(self, resource_type: str) -> Iterator[Entry]:
        return (e for e in self.entries if e.resource_type == resource_type)


def type_id_tail(url: str) -> str | None:
    """'http://x/fhir/Observation/1/_history/2' -> 'Observation/1'."""
    parts = [p for p in url.split("/") if p]
    if "_history" in parts:
        parts = parts[: parts.index("_history")]
    if len(parts) >= 2 and parts[-2][:1].isupper() and _ID.match(parts[-1]):
        return f"{parts[-2]}/{parts[-1]}"
    return None


def is_fhir(data: Any) -> bool:
    """True for JSON that declares a FHIR resource type (a Bundle or a single resource)."""
    return isinstance(data, dict) and isinstance(data.get("resourceType"), str)


def read_resources(data: dict[str, Any], subject: Path | str) -> Resources:
    """Validate a Bundle or a single resource. InputError (naming the file and the resource)
    for anything that is not valid FHIR R4."""
    if data.get("resourceType") != "Bundle":
        model = _validate(data, subject, where="")
        entry = Entry(model, data["resourceType"], _local_id(data, 1))
        return Resources([entry], subject)
    bundle_type = data.get("type")
    if bundle_type not in BUNDLE_TYPES:
        shown = bundle_type if isinstance(bundle_type, str) else "missing"
        expected = ", ".join(sorted(BUNDLE_TYPES))
        raise InputError(
            f"Bundle type {shown!r} cannot be imported (expected {expected})", subject=subject
        )
    raw_entries = data.get("entry") or []
    if not isinstance(raw_entries, list):
        raise InputError("Bundle.entry is not a list", subject=subject)
    if len(raw_entries) > MAX_RESOURCES:
        raise InputError(f"Bundle has over {MAX_RESOURCES:,} entries", subject=subject)
    entries: list[Entry] = []
    for index, raw in enumerate(raw_entries):
        if not isinstance(raw, dict):
            raise InputError(f"Bundle.entry[{index}] is not an object", subject=subject)
        search = raw.get("search")
        if isinstance(search, dict) and search.get("mode") == "outcome":
            continue  # a searchset's OperationOutcome: about the search, not the patient
        resource = raw.get("resource")
        if resource is None:
            request = raw.get("request")
            if isinstance(request, dict) and request.get("method") in ("DELETE", "GET", "HEAD"):
                continue  # a transaction/batch request that carries no resource
            raise InputError(f"Bundle.entry[{index}] has no resource", subject=subject)
        if not is_fhir(resource):
            raise InputError(f"Bundle.entry[{index}].resource has no resourceType", subject=subject)
        if resource["resourceType"] == "Bundle":
            raise InputError(f"Bundle.entry[{index}] is a nested Bundle", subject=subject)
        model = _validate(resource, subject, where=f"Bundle.entry[{index}] ")
        full_url = raw["fullUrl"] if isinstance(raw.get("fullUrl"), str) else ""
        entries.append(
            Entry(model, resource["resourceType"], _local_id(resource, index + 1), full_url)
        )
    if not entries:
        raise InputError("Bundle has no resources", subject=subject)
    return Resources(entries, subject)


def _local_id(resource: dict[str, Any], position: int) -> str:
    rid = resource.get("id")
    suffix = rid if isinstance(rid, str) and rid else f"entry-{position}"
    return f"{resource['resourceType']}/{suffix}"


def _validate(resource: dict[str, Any], subject: Path | str, where: str) -> Any:
    from fhir.resources.R4B import get_fhir_model_class

    rtype = resource["resourceType"]
    name = f"{rtype}/{resource['id']}" if isinstance(resource.get("id"), str) else rtype
    try:
        model_class = get_fhir_model_class(rtype)
    except (ValueError, KeyError):
        other = _other_version(resource)
        version = f" (it is FHIR {other})" if other else ""
        raise InputError(
            f"{where}{rtype} is not a FHIR R4 resource type{version}", subject=subject
        ) from None
    try:
        return model_class.model_validate(resource)
    except ValidationError as exc:
        other = _other_version(resource)
        if other:
            raise InputError(
                f"{where}{name} is FHIR {other}, not R4 ({summarise_validation_error(exc)})",
                subject=subject,
            ) from exc
        raise InputError(
            f"{where}{name} fails FHIR R4 validation: {summarise_validation_error(exc)}",
            subject=subject,
        ) from exc
    except (ValueError, TypeError) as exc:  # model validators raising plain errors
        detail = " ".join(str(exc).split())[:160]
        raise InputError(
            f"{where}{name} fails FHIR R4 validation: {detail}", subject=subject
        ) from exc


def _other_version(resource: dict[str, Any]) -> str | None:
    """'R5' or 'STU3' when the resource validates as that version instead."""
    from importlib import import_module

    for label, package in (("R5", "fhir.resources"), ("STU3", "fhir.resources.STU3")):
        try:
            module = import_module(package)
            model_class = module.get_fhir_model_class(resource["resourceType"])
            model_class.model_validate(resource)
        except Exception:
            continue
        return label
    return None
