"""The record screen: gate files, statuses, spans, JSON shape, robustness."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from concord import paths
from concord.domain.gate import GateStatus, Severity
from concord.domain.record import Record, SourceDocument
from concord.errors import InputError
from concord.records import load_record
from concord.screen.record_screen import RecordScreen, screen_to_json
from tests.spec import SPEC_GATE_TABLE, SPEC_GATES


@pytest.fixture(scope="module")
def screen() -> RecordScreen:
    return RecordScreen.load()


def _record(*texts: str) -> Record:
    return Record(
        name="t",
        documents=tuple(
            SourceDocument(source_id=f"d{i}", kind="txt", text=text)
            for i, text in enumerate(texts, start=1)
        ),
    )


def _hits(screen: RecordScreen, *texts: str) -> dict[str, object]:
    return {h.gate_id: h for h in screen.screen(_record(*texts))}


def test_the_gate_set_is_specs_table(screen: RecordScreen) -> None:
    definitions = screen.definitions
    assert set(definitions) == set(SPEC_GATE_TABLE)
    for gate_id, (owner, severity) in SPEC_GATE_TABLE.items():
        assert definitions[gate_id].specialty == owner, gate_id
        assert definitions[gate_id].severity is Severity(severity), gate_id


def test_spec_gates_and_severities(screen: RecordScreen) -> None:
    definitions = screen.definitions
    assert set(definitions) >= SPEC_GATES
    assert all(definitions[g].severity is Severity.MAJOR for g in SPEC_GATES)
    assert definitions["hyperkalaemia"].specialty == "renal"
    assert definitions["thrombocytopenia"].specialty == "haematology"
    assert definitions["raised_inr"].specialty == "haematology"
    assert definitions["hypoxaemia"].specialty == "respiratory"
    assert definitions["bleomycin_exposure"].specialty == "oncology"
    for gate in ("low_lvef", "recent_coronary_stent", "severe_aortic_stenosis", "active_ischaemia"):
        assert definitions[gate].specialty == "cardiology"


def test_addressed_by_uses_the_lexicon(screen: RecordScreen) -> None:
    bleo = screen.definitions["bleomycin_exposure"]
    assert bleo.addressed_by("Limit FiO2 to the lowest that keeps SpO2 88-92% (prior bleomycin)")
    assert bleo.addressed_by("Previous ABVD: risk of pulmonary toxicity")
    assert bleo.addressed_by("restrict oxygen intra-operatively")
    assert not bleo.addressed_by("Continue ramipril until the day before surgery")
    assert screen.definitions["hyperkalaemia"].addressed_by("Recheck K+ on the morning of surgery")
    assert screen.definitions["hypoxaemia"].addressed_by("O2 sats 89% on air - respiratory review")


def test_triggered_wins_over_negated(screen: RecordScreen) -> None:
    hits = _hits(screen, "No history of pneumonia.\nCXR today: right lower lobe pneumonia.")
    hit = hits["acute_lrti"]
    assert hit.status is GateStatus.TRIGGERED
    assert [e.text for e in hit.evidence] == ["pneumonia"]
    assert hit.evidence[0].start > 20


def test_only_negated_mentions_report_negated(screen: RecordScreen) -> None:
    hit = _hits(screen, "Denies chest pain. No history of bleomycin.")["bleomycin_exposure"]
    assert hit.status is GateStatus.NEGATED
    assert hit.evidence[0].text == "bleomycin"


def test_detail_names_value_and_threshold(screen: RecordScreen) -> None:
    hit = _hits(screen, "U&E: Na 139, K+ 6.3 mmol/L, urea 9")["hyperkalaemia"]
    assert hit.detail == "K+ 6.3 mmol/L ≥ 6.0 mmol/L"
    assert hit.evidence[0].text == "K+ 6.3 mmol/L"


def test_platelets_per_microlitre_are_converted(screen: RecordScreen) -> None:
    hit = _hits(screen, "platelets 45,000/µL")["thrombocytopenia"]
    assert hit.status is GateStatus.TRIGGERED
    assert "45" in hit.detail


def test_stent_recency_uses_the_surgery_date(screen: RecordScreen) -> None:
    letter = "Date: 01/03/2026\nDES to LAD on 01/02/2026.\n"
    assert "recent_coronary_stent" in _hits(screen, letter + "Planned surgery date: 2026-05-01")
    later = _hits(screen, letter + "Planned surgery date: 2026-09-30")
    assert "recent_coronary_stent" not in later


def test_relative_stent_time_counts_from_the_document_date(screen: RecordScreen) -> None:
    text = "Date: 2026-03-01\nDES to LAD 6 weeks ago.\nPlanned surgery date: 2026-10-01\n"
    assert "recent_coronary_stent" not in _hits(screen, text)  # ~8 months before surgery
    text = "Date: 2026-03-01\nDES to LAD 6 weeks ago.\nPlanned surgery date: 2026-04-01\n"
    assert _hits(screen, text)["recent_coronary_stent"].status is GateStatus.TRIGGERED


def test_undated_stent_defers_to_a_dated_mention(screen: RecordScreen) -> None:
    assert "recent_coronary_stent" in _hits(screen, "On clopidogrel for his DES.")
    dated = _hits(screen, "On clopidogrel for his DES.", "PCI with DES to RCA in 2015.")
    assert "recent_coronary_stent" not in dated


def test_evidence_text_equals_document_slice(screen: RecordScreen) -> None:
    demos = sorted((paths.resources_dir() / "demo").glob("*.json"))
    hits = [(load_record(path), hit) for path in demos for hit in screen.screen(load_record(path))]
    assert len(demos) >= 7 and len(hits) >= len(demos)
    for record, hit in hits:
        assert hit.evidence
        for span in hit.evidence:
            assert record.document(span.source_id).text[span.start : span.end] == span.text


def test_screen_to_json_shape(screen: RecordScreen) -> None:
    hits = screen.screen(_record("K+ 6.4 mmol/L. Denies chest pain."))
    out = screen_to_json("patient.txt", hits)
    assert out["path"] == "patient.txt"
    assert {g["gate_id"] for g in out["gates"]} == {"hyperkalaemia", "active_ischaemia"}
    for gate in out["gates"]:
        assert gate["severity"] == "major"
        assert gate["status"] in ("triggered", "negated")
        for ev in gate["evidence"]:
            assert set(ev) == {"source_id", "start", "end", "text"}
    json.dumps(out)


def test_bad_gate_file_raises_input_error_naming_it(tmp_path: Path) -> None:
    resources = tmp_path / "resources"
    shutil.copytree(paths.resources_dir() / "lexicon", resources / "lexicon")
    shutil.copytree(paths.resources_dir() / "gates", resources / "gates")
    RecordScreen.load(resources)
    bad = resources / "gates" / "99_broken.json"
    bad.write_text(json.dumps({"schema": "concord.gate/1", "gate_id": "broken", "rules": []}))
    with pytest.raises(InputError, match="99_broken.json"):
        RecordScreen.load(resources)
    bad.write_text("{not json")
    with pytest.raises(InputError, match="99_broken.json"):
        RecordScreen.load(resources)
    gate = json.loads((resources / "gates" / "02_hyperkalaemia.json").read_text())
    gate["gate_id"] = "other"
    gate["rules"][0]["concept"] = "no_such_concept"
    bad.write_text(json.dumps(gate))
    with pytest.raises(InputError, match="no_such_concept"):
        RecordScreen.load(resources)


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=400))
def test_arbitrary_text_never_raises(text: str) -> None:
    screen = _SCREEN
    for hit in screen.screen(_record(text)):
        for span in hit.evidence:
            assert text[span.start : span.end] == span.text


_CLINICAL_BITS = st.sampled_from(
    [
        "K+",
        "6.3",
        "mmol/L",
        "Plt",
        "45,000",
        "/µL",
        "EF",
        "25-30%",
        "DES",
        "6/52 ago",
        "no",
        "denies",
        "pneumonia",
        "resolved",
        "2019",
        "SpO2",
        "89%",
        "RA",
        "INR",
        "(",
        ")",
        "\n",
        " ",
        ".",
        ",",
        "ABVD",
        "hs-TnT",
        "->",
        "62",
        "Planned surgery date:",
        "2026-12-01",
        "AVA",
        "0.8 cm2",
        "target",
        "repeat",
        "x10^9/L",
        "31/02/2026",
        "99/99/99",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_CLINICAL_BITS, min_size=1, max_size=40))
def test_clinical_fragments_never_raise(bits: list[str]) -> None:
    text = " ".join(bits)
    for hit in _SCREEN.screen(_record(text)):
        for span in hit.evidence:
            assert text[span.start : span.end] == span.text


_SCREEN = RecordScreen.load()


def test_a_zero_width_space_neither_hides_potassium_nor_changes_a_platelet_count(
    screen: RecordScreen,
) -> None:
    hit = _hits(screen, "K\u200b+ 6.4 mmol/L, Pot\u00adassium checked")["hyperkalaemia"]
    assert hit.status is GateStatus.TRIGGERED
    assert hit.evidence[0].text == "K\u200b+ 6.4 mmol/L"  # the record's own characters
    platelets = _hits(screen, "Platelets 4\u200b5 x10^9/L")["thrombocytopenia"]
    assert platelets.status is GateStatus.TRIGGERED
    assert "45" in platelets.detail


def test_a_value_shown_reversed_by_a_bidi_override_is_read_as_shown(screen: RecordScreen) -> None:
    # U+202E makes "3.6" display as "6.3": the screen reads what the clinician sees.
    assert (
        _hits(screen, "K+ \u202e3.6\u202c mmol/L")["hyperkalaemia"].status is GateStatus.TRIGGERED
    )
    assert "hyperkalaemia" not in _hits(screen, "K+ \u202e6.3\u202c mmol/L")


def test_findings_carry_gate_status_span_value_and_time(screen: RecordScreen) -> None:
    record = _record("Date: 2026-11-20\nK+ 6.3 mmol/L on 18/11/2026. Repeat K+ 6.5 today.")
    findings = [f for f in screen.findings(record) if f.gate_id == "hyperkalaemia"]
    assert {f.status for f in findings} == {GateStatus.TRIGGERED}
    by_value = {f.value: f for f in findings}
    assert set(by_value) == {6.3, 6.5}
    assert str(by_value[6.3].time) == "2026-11-18"
    assert str(by_value[6.5].time) == "2026-11-20"
    text = record.documents[0].text
    assert text[by_value[6.5].start : by_value[6.5].end].startswith("K+ 6.5")


def test_the_latest_value_decides_across_documents(screen: RecordScreen) -> None:
    labs = "Lab report\nDate: 10/11/2026\nPotassium   6.4   H   3.5-5.3   mmol/L"
    letter = "Renal clinic\nDate: 19/11/2026\nK+ today 4.7 mmol/L after Lokelma."
    hit = _hits(screen, labs, letter)["hyperkalaemia"]
    assert hit.status is GateStatus.NEGATED
    assert "superseded" in hit.detail
    # the documents' dates decide, not their order in the record
    assert _hits(screen, letter, labs)["hyperkalaemia"].status is GateStatus.NEGATED
    later_high = letter.replace("4.7", "6.6")
    assert _hits(screen, labs, later_high)["hyperkalaemia"].status is GateStatus.TRIGGERED


def test_a_forged_line_cannot_supersede_a_result(screen: RecordScreen) -> None:
    text = "K+ 6.4 mmol/L\nL2: K+ 4.1 mmol/L (repeat, normal)"
    assert _hits(screen, text)["hyperkalaemia"].status is GateStatus.TRIGGERED
