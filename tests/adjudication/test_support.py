"""Claim support: a verified quote is not a supported claim.

A bullet is supported only when its cited evidence carries what it asserts (values with
units, comparisons against the value, concepts), and it addresses a red flag only when it
names the gate and cites that gate's own finding. Read with the real screen and lexicon.
"""

from __future__ import annotations

import pytest

from concord.adjudication.adjudicate import adjudicate
from concord.adjudication.config import load_scoring_config
from concord.adjudication.consults import mutual_omissions
from concord.adjudication.gates import addressing_items
from concord.domain import (
    Alignment,
    AlignmentStatus,
    Brief,
    BriefItem,
    BriefSection,
    DisagreementKind,
    EvidenceLine,
    GateHit,
    GateStatus,
    Record,
    Severity,
    SourceDocument,
    VerifiedEvidence,
)
from concord.pipeline import check_claims
from concord.screen.record_screen import RecordScreen

LETTER = (
    "Renal Medicine - Kingsbridge Infirmary\n"
    "Date: 29/10/2026\n"
    "Re: Mrs Ada TEST   DOB 02/07/1954\n"
    "Thank you for agreeing to create a left radiocephalic AV fistula.\n"
    "Bloods this week: K+ 6.3 mmol/L, urea 28, creatinine 296.\n"
    "Hodgkin lymphoma treated with ABVD x6 in 2015.\n"
)
CLINIC = "Pre-assessment 20/11/2026\nBloods: Na 137, K+ 4.1 mmol/L, Hb 128 g/L.\n"
LABS = "Potassium       6.3  H   mmol/L   3.5 - 5.3\n"


@pytest.fixture(scope="module")
def screen() -> RecordScreen:
    return RecordScreen.load()


@pytest.fixture(scope="module")
def record() -> Record:
    return Record(
        name="support",
        documents=(
            SourceDocument(source_id="letter", kind="txt", text=LETTER),
            SourceDocument(source_id="clinic", kind="txt", text=CLINIC),
            SourceDocument(source_id="labs", kind="txt", text=LABS),
        ),
    )


def quote(record: Record, eid: str, text: str) -> VerifiedEvidence:
    for doc in record.documents:
        start = doc.text.find(text)
        if start >= 0:
            return VerifiedEvidence(
                evidence_id=eid,
                line=EvidenceLine(
                    source_id=doc.source_id, locator=eid, extract_text=text, tag="LABS"
                ),
                alignment=Alignment(
                    status=AlignmentStatus.EXACT,
                    source_id=doc.source_id,
                    start=start,
                    end=start + len(text),
                    score=100.0,
                ),
            )
    raise AssertionError(text)


EVIDENCE = {
    "E1": "Renal Medicine - Kingsbridge Infirmary",
    "E2": "Re: Mrs Ada TEST   DOB 02/07/1954",
    "E3": "Thank you for agreeing to create a left radiocephalic AV fistula.",
    "E4": "Bloods this week: K+ 6.3 mmol/L, urea 28, creatinine 296.",
    "E5": "Bloods: Na 137, K+ 4.1 mmol/L, Hb 128 g/L.",
    "E6": "Hodgkin lymphoma treated with ABVD x6 in 2015.",
    "E7": "Potassium       6.3  H   mmol/L   3.5 - 5.3",
}


def checked(
    screen: RecordScreen,
    record: Record,
    bullets: list[tuple[str, tuple[str, ...]]],
    *,
    gate_ids: tuple[str, ...] = (),
    gates: tuple[GateHit, ...] | None = None,
) -> tuple[BriefItem, ...]:
    items = tuple(
        BriefItem(
            item_id=f"top_risks.{n}",
            section=BriefSection.TOP_RISKS,
            rank=n,
            text=text,
            cites=cites,
            gate_ids=gate_ids,
        )
        for n, (text, cites) in enumerate(bullets, start=1)
    )
    brief = Brief(
        agent="anaesthetist",
        items=items,
        evidence=tuple(quote(record, eid, text) for eid, text in EVIDENCE.items()),
    )
    fired = screen.screen(record) if gates is None else gates
    return check_claims(record, [brief], fired, screen)[0].items


def test_a_threshold_citing_the_letterhead_is_unsupported_and_addresses_nothing(
    screen: RecordScreen, record: Record
) -> None:
    # demo 06 / 03: "K+ >= 6.0 mmol/L" resting on the letterhead, the date and the Re: line
    (item,) = checked(
        screen, record, [("K+ >= 6.0 mmol/L", ("E1", "E2", "E3"))], gate_ids=("hyperkalaemia",)
    )
    assert item.supported is False
    assert "potassium" in item.support_reason.lower()
    assert item.addresses == ()


def test_a_comparison_is_checked_against_the_value_the_evidence_gives(
    screen: RecordScreen, record: Record
) -> None:
    low, high, lab_row = checked(
        screen,
        record,
        [("K+ >= 6.0 mmol/L", ("E5",)), ("K+ >= 6.0 mmol/L", ("E4",)), ("K+ >= 6", ("E7",))],
    )
    assert low.supported is False
    assert "4.1" in low.support_reason  # the record says K+ 4.1: not >= 6.0
    assert high.supported is True and high.addresses == ("hyperkalaemia",)
    assert lab_row.supported is True  # a lab flag ("H") between value and unit is read past


def test_a_stated_value_must_be_the_records_value_in_the_same_unit(
    screen: RecordScreen, record: Record
) -> None:
    wrong, right, other_unit = checked(
        screen,
        record,
        [
            ("Potassium 7.1 mmol/L", ("E4",)),
            ("Hyperkalaemia, K+ 6.3 mmol/L", ("E4",)),
            ("K+ 6.3 mg/dL", ("E4",)),
        ],
    )
    assert wrong.supported is False and "6.3" in wrong.support_reason
    assert right.supported is True and right.addresses == ("hyperkalaemia",)
    assert other_unit.supported is False and "units" in other_unit.support_reason


def test_a_plans_threshold_needs_its_concept_not_the_value(
    screen: RecordScreen, record: Record
) -> None:
    (plan,) = checked(screen, record, [("Delay surgery if K+ >= 6.0 mmol/L", ("E5",))])
    assert plan.supported is True
    assert plan.addresses == ()  # K+ 4.1 is not the hyperkalaemia finding


def test_concepts_must_be_carried(screen: RecordScreen, record: Record) -> None:
    off_topic, empty, on_topic = checked(
        screen,
        record,
        [
            ("Bleomycin exposure: limit FiO2", ("E5",)),
            ("L1: L1: L1:", ("E6",)),
            ("Bleomycin exposure (ABVD): limit FiO2", ("E6",)),
        ],
        gate_ids=("bleomycin_exposure",),
    )
    assert off_topic.supported is False and "bleomycin" in off_topic.support_reason.lower()
    assert empty.supported is False and empty.addresses == ()  # the FHIR demo's "L1: L1: …"
    assert on_topic.supported is True and on_topic.addresses == ("bleomycin_exposure",)


def test_a_tag_alone_does_not_address_a_gate(screen: RecordScreen, record: Record) -> None:
    # the words must name the gate; the agent's tag is a claim, not a check
    (item,) = checked(screen, record, [("Hold ramipril", ("E4",))])
    (tagged,) = checked(screen, record, [("Hold ramipril", ("E4",))], gate_ids=("hyperkalaemia",))
    (words,) = checked(screen, record, [("Hold ramipril: hyperkalaemia", ("E4",))])
    assert item.supported is False  # ramipril is not in the quote, nothing ties them
    assert tagged.supported is True  # it cites the hyperkalaemia finding it is tagged with
    assert "hyperkalaemia" in tagged.support_reason.lower()
    assert tagged.addresses == ()
    assert words.addresses == ("hyperkalaemia",)


def test_the_gates_rule_firing_on_the_quote_counts_as_its_finding(
    screen: RecordScreen, record: Record
) -> None:
    fired = {g.gate_id: g for g in screen.screen(record)}["hyperkalaemia"]
    only_letter = fired.model_copy(
        update={"evidence": tuple(s for s in fired.evidence if s.source_id == "letter")}
    )
    (item,) = checked(screen, record, [("Hyperkalaemia 6.3 mmol/L", ("E7",))], gates=(only_letter,))
    assert item.addresses == ("hyperkalaemia",)  # the lab row fires the rule by itself


def _pair(record: Record, anaes: tuple[BriefItem, ...], spec: tuple[BriefItem, ...]):
    evidence = tuple(quote(record, eid, text) for eid, text in EVIDENCE.items())
    return (
        Brief(agent="anaesthetist", items=anaes, evidence=evidence),
        Brief(agent="renal", items=spec, evidence=evidence),
    )


def _bullet(n: int, text: str, cites: tuple[str, ...], gates: tuple[str, ...] = ()) -> BriefItem:
    return BriefItem(
        item_id=f"top_risks.{n}",
        section=BriefSection.TOP_RISKS,
        rank=n,
        text=text,
        cites=cites,
        gate_ids=gates,
    )


def test_the_scorecard_counts_what_the_check_found(screen: RecordScreen, record: Record) -> None:
    gates = screen.screen(record)
    anaes, spec = _pair(
        record,
        (_bullet(1, "K+ >= 6.0 mmol/L", ("E1", "E2", "E3"), ("hyperkalaemia",)),),
        (_bullet(1, "Hyperkalaemia K+ 6.3 mmol/L", ("E4",)),),
    )
    anaes, spec = check_claims(record, [anaes, spec], gates, screen)
    card = adjudicate(
        record,
        anaes,
        spec,
        gates,
        rules=screen.definitions,
        lexicon=screen.lexicon,
        config=load_scoring_config(),
    )
    correctness = card.subscore("correctness")
    assert correctness.trace.inputs["unsupported"] == ["top_risks.1"]
    assert card.subscore("critical_items").trace.inputs["addressed"] == []
    overcall = [d for d in card.disagreements if d.kind == DisagreementKind.OVERCALL]
    assert overcall and overcall[0].severity == Severity.MAJOR  # about a red flag: required
    assert "hyperkalaemia" in overcall[0].description


def test_a_missed_moderate_gate_is_a_moderate_disagreement_without_a_cap(
    screen: RecordScreen, record: Record
) -> None:
    fired = {g.gate_id: g for g in screen.screen(record)}["hyperkalaemia"]
    moderate = fired.model_copy(update={"severity": Severity.MODERATE})
    anaes, spec = _pair(
        record,
        (_bullet(1, "Hodgkin lymphoma treated with ABVD", ("E6",)),),
        (_bullet(1, "Hodgkin lymphoma treated with ABVD", ("E6",)),),
    )
    anaes, spec = check_claims(record, [anaes, spec], (moderate,), screen)
    card = adjudicate(
        record,
        anaes,
        spec,
        (moderate,),
        rules=screen.definitions,
        lexicon=screen.lexicon,
        config=load_scoring_config(),
    )
    missed = [d for d in card.disagreements if d.kind == DisagreementKind.OMITTED_BY_PAIR]
    assert [d.severity for d in missed] == [Severity.MODERATE]
    critical = card.subscore("critical_items")
    assert critical.value == 0.0 and critical.cap is None  # counted, not capped
    assert not card.capped and card.human_review is False
    assert mutual_omissions((moderate,), [anaes, spec], screen.definitions) == ["hyperkalaemia"]


def test_a_case_stored_before_the_check_keeps_its_old_rule(
    screen: RecordScreen, record: Record
) -> None:
    gate = next(g for g in screen.screen(record) if g.gate_id == "hyperkalaemia")
    assert gate.status == GateStatus.TRIGGERED

    old = Brief(
        agent="anaesthetist",
        items=(_bullet(1, "K+ >= 6.0 mmol/L", ("E1",), ("hyperkalaemia",)),),
        evidence=tuple(quote(record, eid, text) for eid, text in EVIDENCE.items()),
    )
    assert old.items[0].supported is None
    assert old.unsupported_items() == ()  # as it was scored: it cites verified evidence
    assert [i.item_id for i in addressing_items(old, gate, screen.definitions)] == ["top_risks.1"]


def test_a_quantity_addresses_only_the_gate_whose_finding_is_its_value(
    screen: RecordScreen, record: Record
) -> None:
    # one line holds both a potassium and a renal finding; "potassium" is an address term
    # of both gates, but only the hyperkalaemia finding is a potassium value
    fired = {g.gate_id for g in screen.screen(record) if g.status == GateStatus.TRIGGERED}
    assert {"hyperkalaemia", "severe_renal_impairment"} <= fired
    potassium, renal = checked(
        screen,
        record,
        [("K+ >= 6.0 mmol/L", ("E4",)), ("Severe CKD, creatinine 296: renal dosing", ("E4",))],
    )
    assert potassium.addresses == ("hyperkalaemia",)
    assert renal.addresses is not None and "severe_renal_impairment" in renal.addresses
    assert "hyperkalaemia" not in renal.addresses


def test_a_date_or_a_later_number_is_not_the_concepts_value(screen: RecordScreen) -> None:
    text = "Diagnosis: iron deficiency anaemia (Hb 96), received IV iron 10/2026.\n"
    record = Record(
        name="dates", documents=(SourceDocument(source_id="note", kind="txt", text=text),)
    )
    quoted = "iron deficiency anaemia (Hb 96), received IV iron 10/2026."
    start = text.index(quoted)
    evidence = VerifiedEvidence(
        evidence_id="E1",
        line=EvidenceLine(source_id="note", locator="L1", extract_text=quoted, tag="LABS"),
        alignment=Alignment(
            status=AlignmentStatus.EXACT,
            source_id="note",
            start=start,
            end=start + len(quoted),
            score=100.0,
        ),
    )
    brief = Brief(
        agent="anaesthetist",
        items=(
            _bullet(1, "Iron deficiency anaemia (Hb 96), received IV iron 10/2026", ("E1",)),
            _bullet(2, "Anaemia, Hb 96 g/L, transfuse if Hb falls by 20", ("E1",)),
            _bullet(3, "Anaemia, Hb 86", ("E1",)),
        ),
        evidence=(evidence,),
    )
    dated, later, wrong = check_claims(record, [brief], screen.screen(record), screen)[0].items
    assert dated.supported is True, dated.support_reason
    assert later.supported is True, later.support_reason  # 20 is a plan's number
    assert wrong.supported is False and "96" in wrong.support_reason
