"""The screen on coded data: gates fire from codes and values (UCUM-converted), with the
evidence span on the rendered text of the resource; coded and free text that disagree are
both shown and the gate follows the worse."""

from __future__ import annotations

import copy
import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from concord.domain.gate import GateHit, GateStatus
from concord.domain.record import Record, Span
from concord.records.fhir.load import record_from_fhir
from concord.screen.coded import CodedScreen
from concord.screen.record_screen import RecordScreen
from tests.records import fhir_bundles as fb

TODAY = date(2027, 2, 20)


def _quoted(record: Record, span: Span) -> str:
    return record.document(span.source_id).text[span.start : span.end]


@pytest.fixture(scope="module")
def screens() -> tuple[RecordScreen, CodedScreen]:
    return RecordScreen.load(), CodedScreen.load()


def _screen(
    screens: tuple[RecordScreen, CodedScreen], bundle: dict[str, Any]
) -> dict[str, GateHit]:
    """What `RecordScreen.screen` reports (the app, the pipeline and `concord screen`): the
    text's findings joined with the coded ones."""
    record = record_from_fhir(bundle, Path("bundle.json"))
    return {hit.gate_id: hit for hit in screens[0].screen(record, today=TODAY)}


def _coded_only(
    screens: tuple[RecordScreen, CodedScreen], bundle: dict[str, Any]
) -> dict[str, Any]:
    """Coded findings alone (the text screen would also read the rendered text)."""
    record = record_from_fhir(bundle, Path("bundle.json"))
    findings, skipped = screens[1].evaluate(record, today=TODAY)
    out: dict[str, Any] = {"skipped": skipped, "record": record}
    for finding in findings:
        out.setdefault(finding.gate_id, []).append(finding)
    return out


def _entry(bundle: dict[str, Any], rid: str) -> dict[str, Any]:
    return next(e["resource"] for e in bundle["entry"] if e["resource"].get("id") == rid)


def test_every_code_list_names_a_real_gate_rule() -> None:
    coded = CodedScreen.load()
    assert {c.gate_id for c in coded.code_lists} <= set(coded.limits)


def test_potassium_fires_from_code_and_value_with_the_resource_span(screens) -> None:
    out = _coded_only(screens, fb.halloran())
    (finding,) = [f for f in out["hyperkalaemia"] if f.status is GateStatus.TRIGGERED]
    record: Record = out["record"]
    assert [_quoted(record, s) for s in finding.spans] == ["Potassium 6.4 mmol/L"]
    assert finding.spans[0].source_id == "Observation/k-new"
    assert "6.4" in finding.detail and "2823-3" not in finding.detail


def test_uncoded_name_and_unit_conversion(screens) -> None:
    """A potassium with only a name, in meq/L; platelets in /uL: converted through UCUM."""
    bundle = fb.halloran()
    potassium = _entry(bundle, "k-new")
    potassium["code"] = {"text": "Serum potassium"}
    potassium["valueQuantity"] = {"value": 6.1, "unit": "mEq/L", "system": fb.UCUM, "code": "meq/L"}
    _entry(bundle, "plt")["valueQuantity"] = {
        "value": 45000, "unit": "/uL", "system": fb.UCUM, "code": "/uL",
    }  # fmt: skip
    out = _coded_only(screens, bundle)
    assert any(f.status is GateStatus.TRIGGERED for f in out["hyperkalaemia"])
    (platelets,) = out["thrombocytopenia"]
    assert platelets.status is GateStatus.TRIGGERED and "45000" in platelets.detail


def test_urine_potassium_by_name_is_not_serum_potassium(screens) -> None:
    bundle = fb.pell()
    potassium = _entry(bundle, "k")
    potassium["code"] = {"text": "Urine potassium"}
    potassium["valueQuantity"]["value"] = 64
    assert "hyperkalaemia" not in _coded_only(screens, bundle)


def test_unconvertible_unit_is_reported_not_guessed(screens) -> None:
    bundle = fb.halloran()
    _entry(bundle, "k-new")["valueQuantity"] = {
        "value": 25, "unit": "mg/dL", "system": fb.UCUM, "code": "mg/dL",
    }  # fmt: skip
    out = _coded_only(screens, bundle)
    assert any(
        s.gate_id == "hyperkalaemia" and s.resource == "Observation/k-new" for s in out["skipped"]
    )


def test_later_normal_value_supersedes(screens) -> None:
    bundle = fb.halloran()
    later = copy.deepcopy(_entry(bundle, "k-old"))
    later.update(id="k-repeat", effectiveDateTime="2027-02-20T08:00:00Z")
    later["valueQuantity"]["value"] = 4.6
    bundle["entry"].append({"fullUrl": "urn:uuid:0000-k-repeat", "resource": later})
    (finding,) = _coded_only(screens, bundle)["hyperkalaemia"]
    assert finding.status is GateStatus.NEGATED and "superseded by" in finding.detail
    assert {s.source_id for s in finding.spans} == {"Observation/k-new", "Observation/k-repeat"}


def test_coded_and_letter_disagree_both_shown(screens) -> None:
    """The letter says K+ 4.1, the latest Observation 6.4: fires, both spans shown."""
    hit = _screen(screens, fb.halloran())["hyperkalaemia"]
    assert hit.status is GateStatus.TRIGGERED
    texts = {(s.source_id, s.text) for s in hit.evidence}
    assert ("Observation/k-new", "Potassium 6.4 mmol/L") in texts
    assert ("DocumentReference/renal-letter", "K+ 4.1 mmol/L") in texts
    assert "following the worse" in hit.detail


def test_letter_worse_than_coded_still_fires(screens) -> None:
    bundle = fb.pell()  # coded K+ 4.3; the letter now says 6.6
    letter = _entry(bundle, "cardiology-letter")["content"][0]["attachment"]
    letter["contentType"] = "text/plain"
    import base64

    letter["data"] = base64.b64encode(b"Clinic 01/11/2026: K+ 6.6 mmol/L on repeat.\n").decode()
    hit = _screen(screens, bundle)["hyperkalaemia"]
    assert hit.status is GateStatus.TRIGGERED
    sources = {s.source_id for s in hit.evidence}
    assert {"Observation/k", "DocumentReference/cardiology-letter"} <= sources


def test_troponin_series_rising(screens) -> None:
    (finding,) = _coded_only(screens, fb.halloran())["active_ischaemia"]
    assert finding.status is GateStatus.TRIGGERED
    assert "14 -> 61" in finding.detail


def test_the_record_screen_itself_fires_from_a_coded_series(screens) -> None:
    """A rise across separate Observations is read only from the codes: the screen the
    pipeline and the app use must report it, not only `concord screen`."""
    hit = _screen(screens, fb.halloran())["active_ischaemia"]
    assert hit.status is GateStatus.TRIGGERED
    assert any(span.source_id.startswith("Observation/") for span in hit.evidence)


def test_a_record_without_coded_data_is_screened_as_text_alone(screens) -> None:
    record = Record.model_validate(
        {"name": "letter", "documents": [{"source_id": "l", "kind": "txt", "text": "K+ 6.4"}]}
    )
    (hit,) = screens[0].screen(record)
    assert hit.gate_id == "hyperkalaemia" and hit.status is GateStatus.TRIGGERED


def test_stent_procedure_with_device_and_date(screens) -> None:
    out = _coded_only(screens, fb.pell())
    (finding,) = out["recent_coronary_stent"]
    assert finding.status is GateStatus.TRIGGERED
    assert "drug-eluting" in finding.detail and "44 days before 2026-12-03" in finding.detail


def test_old_bare_metal_stent_does_not_fire(screens) -> None:
    bundle = fb.pell()
    device = _entry(bundle, "stent-lad")
    device["type"] = {"text": "Bare-metal coronary stent"}
    device["deviceName"] = [{"name": "BMS 3.0 x 18", "type": "user-friendly-name"}]
    _entry(bundle, "pci")["performedDateTime"] = "2026-10-01"
    _entry(bundle, "pci")["code"]["text"] = "PCI with bare-metal stent to RCA"
    (finding,) = _coded_only(screens, bundle)["recent_coronary_stent"]
    assert finding.status is GateStatus.NEGATED and "bare-metal" in finding.detail


def test_regimen_containing_bleomycin_by_ingredient_code(screens) -> None:
    bundle = fb.okafor()
    medication = _entry(bundle, "abvd")
    medication["code"] = {"text": "Hodgkin regimen, cycle 1-6"}  # the name says nothing
    medication["ingredient"] = [
        {"itemCodeableConcept": fb.concept(fb.RXNORM, "1622", "BLM")},
        {"itemCodeableConcept": fb.concept(fb.RXNORM, "3639", "doxorubicin")},
    ]
    (finding,) = _coded_only(screens, bundle)["bleomycin_exposure"]
    assert finding.status is GateStatus.TRIGGERED
    assert finding.spans[0].source_id == "MedicationStatement/chemo"


def test_pneumonia_status_and_onset(screens) -> None:
    bundle = fb.okafor()
    (active,) = _coded_only(screens, bundle)["acute_lrti"]
    assert active.status is GateStatus.TRIGGERED and "onset 2027-03-01" in active.detail
    resolved = _entry(bundle, "cap")
    resolved["clinicalStatus"] = fb.concept(fb.CLINICAL, "resolved", "Resolved")
    resolved["abatementDateTime"] = "2027-03-10"
    (finding,) = _coded_only(screens, bundle)["acute_lrti"]
    assert finding.status is GateStatus.NEGATED


def test_spo2_on_room_air_and_on_oxygen(screens) -> None:
    bundle = fb.okafor()
    (air,) = _coded_only(screens, bundle)["hypoxaemia"]
    assert air.status is GateStatus.TRIGGERED and "on room air (FiO2 21%)" in air.detail
    _entry(bundle, "sats")["component"][0]["valueQuantity"]["value"] = 35
    (oxygen,) = _coded_only(screens, bundle)["hypoxaemia"]
    assert "on supplemental oxygen (FiO2 35%)" in oxygen.detail


def test_entered_in_error_is_ignored(screens) -> None:
    bundle = fb.halloran()
    _entry(bundle, "k-new")["status"] = "entered-in-error"
    assert "hyperkalaemia" not in _coded_only(screens, bundle)


def test_code_list_for_unknown_gate_is_refused(tmp_path: Path) -> None:
    import shutil

    from concord import paths
    from concord.errors import InputError

    root = tmp_path / "resources"
    shutil.copytree(paths.resources_dir() / "gates", root / "gates")
    shutil.copytree(paths.resources_dir() / "lexicon", root / "lexicon")
    bad = root / "gates" / "codes" / "zz.json"
    bad.write_text(
        json.dumps({"schema": "concord.gate-codes/1", "gate_id": "nope", "version": "1"})
    )
    with pytest.raises(InputError, match=r"zz\.json: code list for unknown gate 'nope'"):
        CodedScreen.load(root)
