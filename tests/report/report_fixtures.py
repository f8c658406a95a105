"""Hand-built, small but realistic case for the report tests (used by conftest.py).

Two specialists (cardiology, respiratory), triggered and negated gates, a mutual omission,
a FAILED extract, and decisions including an override with a history. Record and brief text
deliberately contain markup-like text (<b>, <img src=x>, &) that must print literally.
"""

from __future__ import annotations

import datetime as dt

from concord.domain import (
    Alignment,
    AlignmentStatus,
    Brief,
    BriefItem,
    BriefSection,
    Case,
    Decision,
    DecisionAction,
    Disagreement,
    DisagreementKind,
    EvidenceLine,
    GateHit,
    GateStatus,
    ItemMatch,
    MatchMethod,
    Record,
    Scorecard,
    Severity,
    SourceDocument,
    SubScore,
    Trace,
    VerifiedEvidence,
)

UTC = dt.UTC
SIGNER = "Dr Anna Müller"
PASSWORD = "correct horse battery"
MODEL_SHA = "9f2c4e1b7a55d0c3e8f61a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d"

CLINIC_LETTER = (
    "Pre-assessment clinic letter 12/03/2025\n"
    "Patient: J. Doe, 67 y. Planned: elective right hemicolectomy.\n"
    "PMH: Hodgkin lymphoma 2019, treated with ABVD <b>x4</b> & radiotherapy.\n"
    "Renal: CKD 3b. Bloods today: K+ 6.3 mmol/L, creatinine 198 µmol/L, Plt 85 x10^9/L.\n"
    "Note from GP: <img src=x> see attached & scanned letter.\n"
    "No history of chest pain. SpO2 95% on room air.\n"
)
ECHO_REPORT = (
    "Transthoracic echo 02/03/2025\n"
    "LVEF 30-35%. AVA 0.9 cm², mean gradient 42 mmHg: severe AS. Moderate MR.\n"
)


def _span(record: Record, source_id: str, needle: str):  # type: ignore[no-untyped-def]
    text = record.document(source_id).text
    start = text.index(needle)
    return record.span_text(source_id, start, start + len(needle))


def _ev(
    record: Record,
    evidence_id: str,
    source_id: str,
    locator: str,
    extract: str,
    tag: str,
    comment: str,
    status: AlignmentStatus,
    score: float = 100.0,
    flags: tuple[str, ...] = (),
    needle: str | None = None,
) -> VerifiedEvidence:
    line = EvidenceLine(
        source_id=source_id, locator=locator, extract_text=extract, tag=tag, comment=comment
    )
    if status == AlignmentStatus.FAILED:
        alignment = Alignment(status=status, score=score, flags=flags)
    else:
        span = _span(record, source_id, needle or extract)
        alignment = Alignment(
            status=status,
            source_id=source_id,
            start=span.start,
            end=span.end,
            score=score,
            flags=flags,
        )
    return VerifiedEvidence(evidence_id=evidence_id, line=line, alignment=alignment)


def _trace(inputs: dict[str, object], formula: str, result: float) -> Trace:
    return Trace(inputs=inputs, formula=formula, result=result)


def _sub(
    name: str,
    weight: float,
    value: float,
    trace: Trace,
    raw: float | None = None,
    cap: float | None = None,
    **extra: object,
) -> SubScore:
    return SubScore(
        name=name,
        weight=weight,
        value=value,
        raw_value=value if raw is None else raw,
        cap=cap,
        trace=trace,
        extra=dict(extra),
    )


def _overall(subs: tuple[SubScore, ...]) -> tuple[float, Trace]:
    total = round(100 * sum(s.weight * s.value for s in subs), 1)
    inputs = {s.name: {"weight": s.weight, "value": s.value} for s in subs}
    return total, _trace(inputs, "100 · Σ weight · sub-score", total)


def build_record() -> Record:
    return Record(
        name="J. Doe <b>test</b> & co",
        documents=(
            SourceDocument(
                source_id="clinic_letter",
                title="Clinic letter 12/03",
                kind="txt",
                text=CLINIC_LETTER,
            ),
            SourceDocument(
                source_id="echo_report", title="Echo report 02/03", kind="txt", text=ECHO_REPORT
            ),
        ),
        operation="Elective right hemicolectomy",
    )


def build_case(record: Record) -> Case:
    created = dt.datetime(2025, 3, 14, 9, 30, 5, tzinfo=UTC)

    gates = (
        GateHit(
            gate_id="bleomycin_exposure",
            title="Bleomycin exposure",
            severity=Severity.MAJOR,
            status=GateStatus.TRIGGERED,
            specialty="respiratory",
            evidence=(_span(record, "clinic_letter", "ABVD <b>x4</b> & radiotherapy"),),
            detail="ABVD regimen implies bleomycin",
        ),
        GateHit(
            gate_id="hyperkalaemia",
            title="Hyperkalaemia",
            severity=Severity.MAJOR,
            status=GateStatus.TRIGGERED,
            specialty="renal",
            evidence=(_span(record, "clinic_letter", "K+ 6.3 mmol/L"),),
            detail="K+ 6.3 mmol/L ≥ 6.0",
        ),
        GateHit(
            gate_id="thrombocytopenia",
            title="Thrombocytopenia",
            severity=Severity.MAJOR,
            status=GateStatus.TRIGGERED,
            specialty="haematology",
            evidence=(_span(record, "clinic_letter", "Plt 85 x10^9/L"),),
            detail="platelets 85 ×10^9/L < 100",
        ),
        GateHit(
            gate_id="severe_aortic_stenosis",
            title="Severe aortic stenosis",
            severity=Severity.MAJOR,
            status=GateStatus.TRIGGERED,
            specialty="cardiology",
            evidence=(
                _span(record, "echo_report", "AVA 0.9 cm²"),
                _span(record, "echo_report", "mean gradient 42 mmHg"),
            ),
            detail="AVA 0.9 cm² < 1.0; mean gradient 42 mmHg ≥ 40",
        ),
        GateHit(
            gate_id="low_lvef",
            title="Low LV ejection fraction",
            severity=Severity.MAJOR,
            status=GateStatus.TRIGGERED,
            specialty="cardiology",
            evidence=(_span(record, "echo_report", "LVEF 30-35%"),),
            detail="LVEF 30-35% ≤ 35%",
        ),
        GateHit(
            gate_id="active_ischaemia",
            title="Active ischaemia",
            severity=Severity.MAJOR,
            status=GateStatus.NEGATED,
            specialty="cardiology",
            evidence=(_span(record, "clinic_letter", "No history of chest pain"),),
            detail="negated: 'No history of'",
        ),
    )

    anaesthetist = Brief(
        agent="anaesthetist",
        items=(
            BriefItem(
                item_id="top_risks.1",
                section=BriefSection.TOP_RISKS,
                rank=1,
                text="Severe aortic stenosis (AVA 0.9 cm²): haemodynamic collapse on induction",
                cites=("E1",),
                gate_ids=("severe_aortic_stenosis",),
            ),
            BriefItem(
                item_id="top_risks.2",
                section=BriefSection.TOP_RISKS,
                rank=2,
                text="Hyperkalaemia K+ 6.3 mmol/L — arrhythmia risk",
                cites=("E2",),
                gate_ids=("hyperkalaemia",),
            ),
            BriefItem(
                item_id="actions.1",
                section=BriefSection.ACTIONS,
                rank=1,
                text="Correct potassium to < 5.5 mmol/L before theatre",
                cites=("E2",),
            ),
            BriefItem(
                item_id="triggers.1",
                section=BriefSection.TRIGGERS,
                rank=1,
                text="Delay if K+ ≥ 6.0 mmol/L on the morning of surgery",
                cites=("E2",),
            ),
            BriefItem(
                item_id="monitoring.1",
                section=BriefSection.MONITORING,
                rank=1,
                text="Arterial line before induction; avoid tachycardia",
                cites=(),
            ),
            BriefItem(
                item_id="risk_scores.1",
                section=BriefSection.RISK_SCORES,
                rank=1,
                text="RCRI 3 (creatinine > 177 µmol/L)",
                cites=("E3",),
            ),
        ),
        evidence=(
            _ev(
                record,
                "E1",
                "echo_report",
                "line 2",
                "AVA 0.9 cm²",
                "valve",
                "severe AS by area",
                AlignmentStatus.EXACT,
            ),
            _ev(
                record,
                "E2",
                "clinic_letter",
                "line 4",
                "K+ 6.3 mmol/L",
                "electrolytes",
                "hyperkalaemia",
                AlignmentStatus.EXACT,
            ),
            _ev(
                record,
                "E3",
                "clinic_letter",
                "line 4",
                "creatinine 310 µmol/L",
                "renal",
                "renal impairment",
                AlignmentStatus.FAILED,
                score=78.0,
                flags=("number_mismatch",),
            ),
        ),
        consult=("cardiology", "respiratory"),
        model_sha256=MODEL_SHA,
        prompt_sha256="ab" * 32,
    )

    cardiology = Brief(
        agent="cardiology",
        items=(
            BriefItem(
                item_id="top_risks.1",
                section=BriefSection.TOP_RISKS,
                rank=1,
                text="Severe AS with <b>low-flow</b> pattern & LVEF 30-35%",
                cites=("E1", "E2"),
                gate_ids=("severe_aortic_stenosis", "low_lvef"),
            ),
            BriefItem(
                item_id="top_risks.2",
                section=BriefSection.TOP_RISKS,
                rank=2,
                text="Reduced LV systolic function (<img src=x>)",
                cites=("E1",),
                gate_ids=("low_lvef",),
            ),
            BriefItem(
                item_id="actions.1",
                section=BriefSection.ACTIONS,
                rank=1,
                text="Heart-team review for TAVI before elective surgery",
                cites=("E2",),
            ),
            BriefItem(
                item_id="triggers.1",
                section=BriefSection.TRIGGERS,
                rank=1,
                text="Delay if mean gradient ≥ 40 mmHg with symptoms",
                cites=("E2",),
            ),
            BriefItem(
                item_id="monitoring.1",
                section=BriefSection.MONITORING,
                rank=1,
                text="Invasive BP monitoring; maintain sinus rhythm",
                cites=("E3",),
            ),
        ),
        evidence=(
            _ev(
                record,
                "E1",
                "echo_report",
                "line 2",
                "LVEF 30–35%",
                "lv_function",
                "reduced EF",
                AlignmentStatus.FUZZY,
                score=91.5,
                needle="LVEF 30-35%",
            ),
            _ev(
                record,
                "E2",
                "echo_report",
                "line 2",
                "AVA 0.9 cm², mean gradient 42 mmHg",
                "valve",
                "severe AS",
                AlignmentStatus.EXACT,
            ),
            _ev(
                record,
                "E3",
                "echo_report",
                "line 2",
                "LVEF 45%",
                "lv_function",
                "EF mildly reduced",
                AlignmentStatus.FAILED,
                score=80.0,
                flags=("number_mismatch",),
            ),
        ),
        model_sha256=MODEL_SHA,
    )

    respiratory = Brief(
        agent="respiratory",
        items=(
            BriefItem(
                item_id="top_risks.1",
                section=BriefSection.TOP_RISKS,
                rank=1,
                text="Borderline oxygenation (SpO2 95% on air)",
                cites=("E1",),
            ),
            BriefItem(
                item_id="actions.1",
                section=BriefSection.ACTIONS,
                rank=1,
                text="Spirometry if time allows",
                cites=(),
            ),
        ),
        evidence=(
            _ev(
                record,
                "E1",
                "clinic_letter",
                "line 6",
                "SpO2 95% on room air",
                "oxygenation",
                "",
                AlignmentStatus.EXACT,
            ),
        ),
        model_sha256=MODEL_SHA,
    )

    cardio_subs = (
        _sub(
            "coverage",
            0.30,
            0.5,
            _trace(
                {
                    "matched": 2,
                    "specialist_items": 4,
                    "matched_items": ["top_risks.1", "triggers.1"],
                },
                "matched / specialist_items",
                0.5,
            ),
            jaccard=0.33,
        ),
        _sub(
            "critical_items",
            0.30,
            1.0,
            _trace({"addressed": 2, "triggered": 2}, "addressed / triggered gates", 1.0),
        ),
        _sub(
            "correctness",
            0.20,
            0.75,
            _trace(
                {"unsupported": 1, "contradicted": 0, "vague": 1, "claims": 6},
                "1 − (unsupported + 2·contradicted + 0.5·vague) / claims",
                0.75,
            ),
        ),
        _sub("prioritisation", 0.10, 0.8, _trace({"kendall_tau": 0.6}, "(tau + 1) / 2", 0.8)),
        _sub(
            "actionability",
            0.10,
            0.5,
            _trace(
                {"same_threshold": 0, "concept_only": 1, "specialist_actions": 1},
                "(1·same_threshold + 0.5·concept_only) / specialist_actions",
                0.5,
            ),
        ),
    )
    cardio_overall, cardio_trace = _overall(cardio_subs)
    cardio_card = Scorecard(
        specialist="cardiology",
        subscores=cardio_subs,
        overall=cardio_overall,
        overall_trace=cardio_trace,
        grade="Medium",
        capped=False,
        human_review=False,
        disagreements=(
            Disagreement(
                disagreement_id="D1",
                kind=DisagreementKind.MISS,
                severity=Severity.MODERATE,
                description="Anaesthetist brief does not mention reduced LV function",
                items=("top_risks.2",),
                gate_id="low_lvef",
                spans=(_span(record, "echo_report", "LVEF 30-35%"),),
            ),
            Disagreement(
                disagreement_id="D2",
                kind=DisagreementKind.UNVERIFIED_EVIDENCE,
                severity=Severity.MINOR,
                description="Extract 'LVEF 45%' not found in the record",
                items=("monitoring.1",),
            ),
        ),
        matches=(
            ItemMatch(
                specialist_item="top_risks.1",
                anaesthetist_item="top_risks.1",
                method=MatchMethod.LEXICON,
                score=100.0,
                concepts=("aortic stenosis",),
            ),
            ItemMatch(
                specialist_item="triggers.1",
                anaesthetist_item="top_risks.1",
                method=MatchMethod.LLM,
                score=100.0,
            ),
        ),
        config_version="scoring-2025.03",
    )

    resp_subs = (
        _sub(
            "coverage",
            0.30,
            0.0,
            _trace({"matched": 0, "specialist_items": 2}, "matched / specialist_items", 0.0),
            jaccard=0.0,
        ),
        _sub(
            "critical_items",
            0.30,
            0.0,
            _trace(
                {"addressed": 0, "triggered": 1, "major_misses": 1},
                "addressed / triggered gates, capped at 0.40 for one major miss",
                0.0,
            ),
            raw=0.0,
            cap=0.40,
        ),
        _sub(
            "correctness",
            0.20,
            1.0,
            _trace(
                {"unsupported": 0, "contradicted": 0, "vague": 0, "claims": 2},
                "1 − (unsupported + 2·contradicted + 0.5·vague) / claims",
                1.0,
            ),
        ),
        _sub(
            "prioritisation",
            0.10,
            0.5,
            _trace({"matched_pairs": 0}, "no matched items: neutral 0.5", 0.5),
        ),
        _sub(
            "actionability",
            0.10,
            0.0,
            _trace(
                {"same_threshold": 0, "concept_only": 0, "specialist_actions": 1},
                "(1·same_threshold + 0.5·concept_only) / specialist_actions",
                0.0,
            ),
        ),
    )
    resp_overall, resp_trace = _overall(resp_subs)
    resp_card = Scorecard(
        specialist="respiratory",
        subscores=resp_subs,
        overall=resp_overall,
        overall_trace=resp_trace,
        grade="Very Low",
        capped=True,
        human_review=True,
        review_reasons=("missed major gate bleomycin_exposure", "mutual omission"),
        disagreements=(
            Disagreement(
                disagreement_id="D1",
                kind=DisagreementKind.MUTUAL_OMISSION,
                severity=Severity.MAJOR,
                description="Neither brief mentions bleomycin exposure (ABVD)",
                gate_id="bleomycin_exposure",
                spans=(_span(record, "clinic_letter", "ABVD <b>x4</b> & radiotherapy"),),
            ),
            Disagreement(
                disagreement_id="D2",
                kind=DisagreementKind.OVERCALL,
                severity=Severity.MINOR,
                description="Specialist lists borderline SpO2 the anaesthetist omits",
                items=("top_risks.1",),
            ),
        ),
        config_version="scoring-2025.03",
        judge_runs=3,
        judge_spread=4.0,
    )

    return Case(
        case_id="C-20250314-0007",
        record_id=record.record_id,
        created_at=created,
        model_sha256=MODEL_SHA,
        model_name="gemma-3-270m-it-Q4_K_M.gguf",
        operation="Elective right hemicolectomy",
        operation_source="record",
        briefs=(anaesthetist, cardiology, respiratory),
        gates=gates,
        scorecards=(cardio_card, resp_card),
        mutual_omissions=("bleomycin_exposure",),
        config_version="scoring-2025.03",
    )


def build_decisions(case: Case) -> list[Decision]:
    at = dt.datetime(2025, 3, 14, 10, 2, 11, tzinfo=UTC)
    shown = {"model": MODEL_SHA[:16], "prompt": "ab" * 8}
    return [
        Decision(
            decision_id="d1",
            case_id=case.case_id,
            target_id="cardiology/overall",
            target_kind="overall",
            action=DecisionAction.ACCEPT,
            original_value=73.0,
            new_value=73.0,
            reason="Agree with the adjudication",
            user=SIGNER,
            at=at,
            shown=shown,
        ),
        Decision(
            decision_id="d2",
            case_id=case.case_id,
            target_id="respiratory/subscore/critical_items",
            target_kind="subscore",
            action=DecisionAction.OVERRIDE,
            original_value=0.0,
            new_value=0.2,
            reason="Bleomycin discussed with oncology by phone",
            user="Dr B. Registrar",
            at=at + dt.timedelta(minutes=3),
            shown=shown,
        ),
        Decision(
            decision_id="d3",
            case_id=case.case_id,
            target_id="respiratory/subscore/critical_items",
            target_kind="subscore",
            action=DecisionAction.OVERRIDE,
            original_value=0.2,
            new_value=0.0,
            reason="Not documented in the brief: score stands at 0 <b>&</b>",
            user=SIGNER,
            at=at + dt.timedelta(minutes=9),
            shown=shown,
        ),
        Decision(
            decision_id="d4",
            case_id=case.case_id,
            target_id="gate/bleomycin_exposure",
            target_kind="gate",
            action=DecisionAction.ACCEPT,
            original_value="triggered",
            new_value="triggered",
            reason="Confirmed in letter <img src=x> & GP notes",
            user=SIGNER,
            at=at + dt.timedelta(minutes=11),
            shown=shown,
        ),
        Decision(
            decision_id="d5",
            case_id=case.case_id,
            target_id="cardiology/disagreement/D1",
            target_kind="disagreement",
            action=DecisionAction.ACCEPT,
            original_value="MISS/moderate",
            new_value="MISS/moderate",
            reason="Genuine miss",
            user=SIGNER,
            at=at + dt.timedelta(minutes=12),
            shown=shown,
        ),
    ]
