"""Small hand-built domain objects for the store tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

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
    SpanText,
    SubScore,
    Trace,
    VerifiedEvidence,
)

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
CLINIC_TEXT = "Pre-op clinic.\nK+ 6.3 mmol/L\nABVD chemotherapy 2019.\n"


def record(name: str = "patient-a.txt", text: str = CLINIC_TEXT) -> Record:
    return Record(name=name, documents=(SourceDocument(source_id="doc1", kind="txt", text=text),))


def _evidence(rec: Record) -> tuple[VerifiedEvidence, ...]:
    start = rec.documents[0].text.index("K+ 6.3")
    return (
        VerifiedEvidence(
            evidence_id="E1",
            line=EvidenceLine(source_id="doc1", locator="L2", extract_text="K+ 6.3", tag="lab"),
            alignment=Alignment(
                status=AlignmentStatus.EXACT,
                source_id="doc1",
                start=start,
                end=start + 6,
                score=100.0,
            ),
            line_id="L2",
        ),
        VerifiedEvidence(
            evidence_id="E2",
            line=EvidenceLine(source_id="doc1", locator="L9", extract_text="K+ 3.6", tag="lab"),
            alignment=Alignment(status=AlignmentStatus.FAILED, flags=("number_mismatch",)),
        ),
    )


def _brief(agent: str, rec: Record) -> Brief:
    item = BriefItem(
        item_id="top_risks.1",
        section=BriefSection.TOP_RISKS,
        rank=1,
        text="Hyperkalaemia",
        cites=("E1",),
        gate_ids=("hyperkalaemia",),
    )
    return Brief(
        agent=agent,
        items=(item,),
        evidence=_evidence(rec),
        model_sha256="m" * 64,
        prompt_sha256=f"p-{agent}",
    )


def _scorecard(specialist: str, overall: float, grade: str, review: bool) -> Scorecard:
    trace = Trace(inputs={"matched": 1, "total": 2}, formula="matched / total", result=0.5)
    return Scorecard(
        specialist=specialist,
        subscores=(SubScore(name="coverage", weight=0.3, value=0.5, raw_value=0.5, trace=trace),),
        overall=overall,
        overall_trace=Trace(inputs={"coverage": 0.5}, formula="100 * sum", result=overall),
        grade=grade,
        capped=False,
        human_review=review,
        disagreements=(
            Disagreement(
                disagreement_id="D1",
                kind=DisagreementKind.MISS,
                severity=Severity.MAJOR,
                description="missed hyperkalaemia",
                gate_id="hyperkalaemia",
                spans=(SpanText(source_id="doc1", start=15, end=21, text="K+ 6.3"),),
            ),
        ),
        matches=(
            ItemMatch(
                specialist_item="top_risks.1",
                anaesthetist_item="top_risks.1",
                method=MatchMethod.LEXICON,
                score=100.0,
                concepts=("potassium",),
            ),
        ),
        config_version="scoring-v1",
    )


def case(rec: Record, case_id: str = "C-1", created_at: datetime = T0, grade: str = "Low") -> Case:
    start = rec.documents[0].text.index("K+ 6.3")
    return Case(
        case_id=case_id,
        record_id=rec.record_id,
        created_at=created_at,
        model_sha256="m" * 64,
        model_name="gemma-3-270m",
        operation="laparoscopic cholecystectomy",
        operation_source="record",
        briefs=(_brief("anaesthetist", rec), _brief("cardiology", rec)),
        gates=(
            GateHit(
                gate_id="hyperkalaemia",
                severity=Severity.MAJOR,
                status=GateStatus.TRIGGERED,
                specialty="renal",
                evidence=(rec.span_text("doc1", start, start + 6),),
                detail="K+ 6.3 >= 6.0",
            ),
            GateHit(
                gate_id="bleomycin_exposure",
                severity=Severity.MAJOR,
                status=GateStatus.TRIGGERED,
                specialty="oncology",
            ),
            GateHit(gate_id="hypoxaemia", severity=Severity.MAJOR, status=GateStatus.NEGATED),
        ),
        scorecards=(
            _scorecard("cardiology", 82.0, "Medium", False),
            _scorecard("renal", 55.5, grade, True),
        ),
        config_version="scoring-v1",
        timings={"anaesthetist": 1.5, "cardiology": 2.25},
        meta={"judges": 1},
    )


def decision(
    decision_id: str = "D-1",
    case_id: str = "C-1",
    target_id: str = "renal/coverage",
    *,
    override: Any = None,
    at: datetime | None = None,
    **extra: Any,
) -> Decision:
    fields: dict[str, Any] = {
        "decision_id": decision_id,
        "case_id": case_id,
        "target_id": target_id,
        "target_kind": "subscore",
        "action": DecisionAction.OVERRIDE if override is not None else DecisionAction.ACCEPT,
        "original_value": 0.5,
        "new_value": override if override is not None else 0.5,
        "reason": "checked against the record",
        "user": "dr.jones",
        "at": at or T0 + timedelta(hours=1),
        "shown": {"model_sha256": "m" * 64, "prompt_sha256": "p-renal", "inputs_sha256": "i"},
        "spans": ({"source_id": "doc1", "start": 15, "end": 21, "text": "K+ 6.3"},),
    }
    fields.update(extra)
    return Decision(**fields)
