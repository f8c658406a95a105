"""Each bundled demo patient triggers exactly the gates it was written for."""

from __future__ import annotations

import json

import pytest

from concord import paths
from concord.records import load_record
from concord.screen.record_screen import RecordScreen

# file -> (gates triggered, gates reported negated)
EXPECTED: dict[str, tuple[set[str], set[str]]] = {
    "01_bleomycin_hodgkin.json": (
        {"bleomycin_exposure"},
        {
            "acute_lrti",
            "active_ischaemia",
            "haemodynamic_instability_or_sepsis",
            "severe_respiratory_disease",
        },
    ),
    "02_recent_des_dapt.json": (
        {"recent_coronary_stent", "p2y12_inhibitor_current", "stable_cardiac_disease"},
        {"active_ischaemia"},
    ),
    "03_ckd_hyperkalaemia.json": (
        {
            "hyperkalaemia",
            "severe_renal_impairment",
            "anaemia",
            "diabetes_high_risk",
            "periop_drug_allergy",
        },
        {
            "active_ischaemia",
            "recent_mi_or_revascularisation",
            "recent_stroke_tia",
            "stable_cardiac_disease",
        },
    ),
    "04_clean_knee_arthroscopy.json": (set(), {"acute_lrti", "active_ischaemia", "recent_vte"}),
    "05_severe_as_low_ef.json": (
        {"severe_aortic_stenosis", "low_lvef", "anticoagulant_current", "stable_cardiac_disease"},
        {"active_ischaemia", "anaemia"},
    ),
    "06_copd_chest_infection.json": (
        {"hypoxaemia", "acute_lrti", "severe_respiratory_disease"},
        {"active_ischaemia", "chronic_steroid"},
    ),
    "07_cirrhosis_platelets_inr.json": (
        {"thrombocytopenia", "raised_inr", "liver_disease_or_alcohol_excess"},
        {"active_ischaemia", "anticoagulant_current"},
    ),
    "08_fhir_bundle_scanned_letter.json": (
        {"bleomycin_exposure", "hypoxaemia", "acute_lrti"},
        set(),
    ),
}
FHIR_DEMOS = {"08_fhir_bundle_scanned_letter.json"}  # a FHIR R4 Bundle, not Concord's JSON
DEMO = paths.resources_dir() / "demo"


@pytest.fixture(scope="module")
def screen() -> RecordScreen:
    return RecordScreen.load()


def test_every_demo_file_has_an_expectation() -> None:
    assert {p.name for p in DEMO.glob("*.json")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_demo_gates(screen: RecordScreen, name: str) -> None:
    triggered, negated = EXPECTED[name]
    hits = screen.screen(load_record(DEMO / name))
    assert {h.gate_id for h in hits if h.status == "triggered"} == triggered
    assert {h.gate_id for h in hits if h.status == "negated"} == negated


@pytest.mark.parametrize("name", sorted(set(EXPECTED) - FHIR_DEMOS))
def test_demo_records_are_well_formed(name: str) -> None:
    raw = json.loads((DEMO / name).read_text(encoding="utf-8"))
    assert set(raw) == {"name", "operation", "documents"}
    words = sum(len(doc["text"].split()) for doc in raw["documents"])
    assert 400 <= words <= 1200, words
    assert len(raw["documents"]) >= 3
    assert "Planned surgery date:" in "".join(doc["text"] for doc in raw["documents"])


def test_some_demo_leaves_the_operation_to_the_surgeon_agent() -> None:
    operations = [
        json.loads(p.read_text())["operation"]
        for p in DEMO.glob("*.json")
        if p.name not in FHIR_DEMOS
    ]
    assert None in operations


def test_bleomycin_case_names_the_regimen_only_in_the_oncology_summary(
    screen: RecordScreen,
) -> None:
    hit = next(
        h
        for h in screen.screen(load_record(DEMO / "01_bleomycin_hodgkin.json"))
        if h.gate_id == "bleomycin_exposure"
    )
    assert {span.source_id for span in hit.evidence} == {"oncology_summary"}
    assert hit.evidence[0].text == "ABVD x6"
