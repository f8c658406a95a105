"""FHIR R4 import: bundles as EHRs export them become one document per resource, with coded
facts whose spans point at the rendered text; every bad bundle is one InputError line."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from concord.domain.coded import FactKind
from concord.domain.record import Record, Span
from concord.errors import InputError
from concord.records import load_record
from tests.records import fhir_bundles as fb

FHIR = Path(__file__).resolve().parent.parent / "fixtures" / "records" / "fhir"


def _quoted(record: Record, span: Span) -> str:
    return record.document(span.source_id).text[span.start : span.end]


def _write(tmp_path: Path, data: dict[str, Any], name: str = "bundle.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _fact(record: Record, resource: str) -> Any:
    return next(f for f in record.coded if f.resource == resource)


def test_committed_fixtures_are_what_the_builder_writes() -> None:
    for name, build in fb.BUNDLES.items():
        assert json.loads((FHIR / f"{name}.json").read_text()) == build()


@pytest.mark.parametrize("name", ["halloran", "pell", "ashcroft"])
def test_every_fact_span_is_in_its_resource_text(name: str) -> None:
    record = load_record(FHIR / f"{name}.json")
    assert record.coded
    for fact in record.coded:
        for span in fact.spans():
            doc = record.document(span.source_id)
            assert span.source_id.split("#")[0] == fact.resource
            assert 0 <= span.start < span.end <= len(doc.text)
            assert doc.text[span.start : span.end].strip() == doc.text[span.start : span.end]


def test_observation_renders_name_and_value_on_one_line() -> None:
    record = load_record(FHIR / "halloran.json")
    doc = record.document("Observation/k-new")
    assert doc.kind == "fhir"
    assert doc.text.splitlines()[0] == "Potassium 6.4 mmol/L (reference 3.5-5.3) H"
    fact = _fact(record, "Observation/k-new")
    assert fact.kind is FactKind.OBSERVATION
    assert ("http://loinc.org", "2823-3") in {(c.system, c.code) for c in fact.codes}
    assert fact.quantity is not None and fact.quantity.value == 6.4
    assert fact.quantity.unit == "mmol/L"
    assert _quoted(record, fact.quantity.span) == "6.4 mmol/L"
    assert _quoted(record, fact.span) == "Potassium"
    assert fact.effective is not None and fact.effective.isoformat() == "2027-02-19"


def test_record_name_operation_and_letter() -> None:
    record = load_record(FHIR / "halloran.json")
    assert record.name == "Peter HALLORAN (FHIR)"
    assert record.operation == "Left radiocephalic AV fistula"
    letter = record.document("DocumentReference/renal-letter")
    assert letter.text == fb.RENAL_LETTER  # the attachment exactly, not a rendering
    assert "Renal clinic letter" in letter.title
    planned = record.document("Procedure/avf").text
    assert "Planned surgery date: 2027-02-24" in planned


def test_regimen_medication_carries_its_ingredients() -> None:
    record = load_record(fb.DEMO_FILE)
    fact = _fact(record, "MedicationStatement/chemo")
    assert fact.kind is FactKind.MEDICATION
    assert fact.name == "ABVD"
    assert "bleomycin" in fact.related_names
    assert ("http://www.nlm.nih.gov/research/umls/rxnorm", "1622") in {
        (c.system, c.code) for c in fact.related
    }
    assert fact.related_span is not None
    assert "bleomycin" in _quoted(record, fact.related_span)


def test_procedure_device_and_condition_facts() -> None:
    pell = load_record(FHIR / "pell.json")
    device = next(
        f for f in pell.coded if f.kind is FactKind.DEVICE and f.resource == "Procedure/pci"
    )
    assert device.effective is not None and device.effective.isoformat() == "2026-10-20"
    assert "Drug-eluting" in _quoted(pell, device.span)
    okafor = load_record(fb.DEMO_FILE)
    pneumonia = _fact(okafor, "Condition/cap")
    assert pneumonia.clinical_status == "active" and pneumonia.status == "confirmed"
    assert pneumonia.onset is not None and pneumonia.onset.isoformat() == "2027-03-01"


def test_spo2_keeps_its_inspired_oxygen_component() -> None:
    record = load_record(FHIR / "ashcroft.json")
    fact = _fact(record, "Observation/sats")
    (component,) = fact.components
    assert ("http://loinc.org", "3150-0") in {(c.system, c.code) for c in component.codes}
    assert component.quantity is not None and component.quantity.value == 21
    assert _quoted(record, component.span) == "FiO2"


def test_text_pdf_letter_and_searchset_outcome_skipped() -> None:
    pell = load_record(FHIR / "pell.json")
    letter = pell.document("DocumentReference/cardiology-letter")
    assert letter.kind == "pdf" and "drug-eluting stent" in letter.text
    ashcroft = load_record(FHIR / "ashcroft.json")
    assert not any("OperationOutcome" in d.source_id for d in ashcroft.documents)


def test_scanned_letter_in_a_bundle_is_read_by_ocr() -> None:
    record = load_record(fb.DEMO_FILE)
    letter = record.document("DocumentReference/oncology-letter")
    assert letter.kind == "ocr" and letter.ocr is not None
    assert "bleomycin" in letter.text and "ABVD" in letter.text
    assert letter.ocr.pages and letter.ocr.pages[0].media_type == "image/jpeg"


def test_single_resource_imports() -> None:
    bundle = fb.halloran()
    observation = next(e["resource"] for e in bundle["entry"] if e["resource"]["id"] == "k-new")
    observation = {k: v for k, v in observation.items() if k != "subject"}
    path = Path("single.json")
    record = _load_dict(observation, path)
    assert [d.source_id for d in record.documents] == ["Observation/k-new"]


def _load_dict(data: dict[str, Any], path: Path) -> Record:
    from concord.records.fhir.load import record_from_fhir

    return record_from_fhir(data, path)


# -- bad input -------------------------------------------------------------------------


def _entry(bundle: dict[str, Any], rid: str) -> dict[str, Any]:
    return next(e["resource"] for e in bundle["entry"] if e["resource"].get("id") == rid)


def test_r5_resource_is_named_as_r5(tmp_path: Path) -> None:
    bundle = fb.halloran()
    statement = _entry(bundle, "ramipril")
    statement["medication"] = {"concept": statement.pop("medicationCodeableConcept")}
    statement["status"] = "recorded"
    with pytest.raises(
        InputError, match=r"bundle\.json: .*MedicationStatement/ramipril is FHIR R5, not R4"
    ):
        load_record(_write(tmp_path, bundle))


def test_failed_validation_names_resource_and_field(tmp_path: Path) -> None:
    bundle = fb.halloran()
    _entry(bundle, "k-new")["valueQuantity"]["value"] = "six point four"
    with pytest.raises(
        InputError, match=r"Observation/k-new fails FHIR R4 validation: valueQuantity"
    ):
        load_record(_write(tmp_path, bundle))


def test_unresolved_reference(tmp_path: Path) -> None:
    bundle = fb.pell()
    bundle["entry"] = [e for e in bundle["entry"] if e["resource"]["resourceType"] != "Device"]
    with pytest.raises(
        InputError, match=r"Procedure/pci: focalDevice reference .* does not resolve"
    ):
        load_record(_write(tmp_path, bundle))


def test_resource_about_another_patient(tmp_path: Path) -> None:
    bundle = fb.halloran()
    _entry(bundle, "plt")["subject"] = {"reference": "Patient/someone-else"}
    with pytest.raises(
        InputError, match=r"Observation/plt: subject .* is not the bundle's patient"
    ):
        load_record(_write(tmp_path, bundle))


def test_two_patients_in_one_bundle(tmp_path: Path) -> None:
    bundle = fb.halloran()
    other = copy.deepcopy(bundle["entry"][0])
    other["resource"]["id"] = "other"
    other["fullUrl"] = "urn:uuid:00000000-0000-0000-0000-000000000001"
    bundle["entry"].append(other)
    with pytest.raises(InputError, match="bundle holds 2 patients"):
        load_record(_write(tmp_path, bundle))


def test_unit_that_is_not_ucum(tmp_path: Path) -> None:
    bundle = fb.halloran()
    _entry(bundle, "k-new")["valueQuantity"]["code"] = "mmol/litre"
    with pytest.raises(InputError, match=r"Observation/k-new: 'mmol/litre' is not a UCUM unit"):
        load_record(_write(tmp_path, bundle))


def test_history_bundle_refused(tmp_path: Path) -> None:
    bundle = fb.halloran()
    bundle["type"] = "history"
    with pytest.raises(InputError, match="Bundle type 'history' cannot be imported"):
        load_record(_write(tmp_path, bundle))


def test_attachment_pointing_at_a_server(tmp_path: Path) -> None:
    bundle = fb.halloran()
    attachment = _entry(bundle, "renal-letter")["content"][0]["attachment"]
    attachment.pop("data")
    attachment["url"] = "https://ehr.example.org/Binary/123"
    with pytest.raises(InputError, match="is not in the bundle"):
        load_record(_write(tmp_path, bundle))


def test_attachment_as_a_binary_in_the_bundle(tmp_path: Path) -> None:
    bundle = fb.halloran()
    attachment = _entry(bundle, "renal-letter")["content"][0]["attachment"]
    data = attachment.pop("data")
    attachment["url"] = "urn:uuid:9f1c2a4e-0000-4000-8000-000000000042"
    bundle["entry"].append(
        {
            "fullUrl": attachment["url"],
            "resource": {
                "resourceType": "Binary",
                "id": "b1",
                "contentType": "text/plain",
                "data": data,
            },
        }
    )
    record = load_record(_write(tmp_path, bundle))
    assert record.document("DocumentReference/renal-letter").text == fb.RENAL_LETTER


def test_encrypted_pdf_attachment(tmp_path: Path) -> None:
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(fb.text_pdf(["K+ 6.3 mmol/L"]))).pages:
        writer.add_page(page)
    writer.encrypt("secret")
    out = io.BytesIO()
    writer.write(out)
    bundle = fb.halloran()
    attachment = _entry(bundle, "renal-letter")["content"][0]["attachment"]
    attachment["contentType"] = "application/pdf"
    attachment["data"] = base64.b64encode(out.getvalue()).decode()
    with pytest.raises(InputError, match="PDF is password-protected"):
        load_record(_write(tmp_path, bundle))


def test_nothing_half_imported_from_a_bad_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One line naming the file and the resource; the good bundle is not imported either."""
    import sqlite3

    from concord import paths
    from concord.cli import main

    bundle = fb.halloran()
    _entry(bundle, "k-new")["valueQuantity"]["code"] = "mmol/litre"
    bad = _write(tmp_path, bundle, "bad.json")
    assert main(["import", str(FHIR / "pell.json"), str(bad)]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "bad.json" in line and "Observation/k-new" in line and "UCUM" in line
    db = paths.database_path()
    if db.exists():
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 0
