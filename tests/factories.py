"""Hand-built domain objects for the tests: builders that take what varies and default the
rest, and one small case (`record`, `case`, `decision`) for the store tests.

The report tests build a richer case from the same builders (report/report_fixtures.py).
"""

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

# -- builders ---------------------------------------------------------------------------------


def span(record: Record, source_id: str, needle: str) -> SpanText:
    """The span of the first `needle` in the document."""
    start = record.document(source_id).text.index(needle)
    return record.span_text(source_id, start, start + len(needle))


def evidence(
    record: Record,
    evidence_id: str,
    source_id: str,
    locator: str,
    extract: str,
    tag: str,
    *,
    status: AlignmentStatus = AlignmentStatus.EXACT,
    comment: str = "",
    score: float | None = None,
    flags: tuple[str, ...] = (),
    needle: str | None = None,
    line_id: str | None = None,
) -> VerifiedEvidence:
    """An evidence line and its alignment: aligned to `needle` (the extract by default)
    unless FAILED; `score` defaults to 100 when aligned, 0 when FAILED."""
    line = EvidenceLine(
        source_id=source_id, locator=locator, extract_text=extract, tag=tag, comment=comment
    )
    if status == AlignmentStatus.FAILED:
        alignment = Alignment(status=status, score=score or 0.0, flags=flags)
    else:
        found = span(record, source_id, needle or extract)
        alignment = Alignment(
            status=status,
            source_id=source_id,
            start=found.start,
            end=found.end,
            score=100.0 if score is None else score,
            flags=flags,
        )
    return VerifiedEvidence(
        evidence_id=evidence_id, line=line, alignment=alignment, line_id=line_id
    )


def item(
    section: BriefSection,
    rank: int,
    text: str,
    cites: tuple[str, ...] = (),
    gate_ids: tuple[str, ...] = (),
) -> BriefItem:
    """A brief bullet, its id made from section and rank ('top_risks.1')."""
    return BriefItem(
        item_id=f"{section.value}.{rank}",
        section=section,
        rank=rank,
        text=text,
        cites=cites,
        gate_ids=gate_ids,
    )


def gate(
    gate_id: str,
    specialty: str = "",
    *evidence: SpanText,
    title: str = "",
    status: GateStatus = GateStatus.TRIGGERED,
    detail: str = "",
) -> GateHit:
    """A major gate, triggered unless `status` says otherwise."""
    return GateHit(
        gate_id=gate_id,
        title=title,
        severity=Severity.MAJOR,
        status=status,
        specialty=specialty,
        evidence=evidence,
        detail=detail,
    )


def trace(inputs: dict[str, Any], formula: str, result: float) -> Trace:
    return Trace(inputs=inputs, formula=formula, result=result)


def subscore(
    name: str,
    weight: float,
    value: float,
    trace: Trace,
    raw: float | None = None,
    cap: float | None = None,
    **extra: object,
) -> SubScore:
    """A sub-score; its raw value is `value` unless a cap lowered it from `raw`."""
    return SubScore(
        name=name,
        weight=weight,
        value=value,
        raw_value=value if raw is None else raw,
        cap=cap,
        trace=trace,
        extra=dict(extra),
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
    """An accept (or, with `override`, an override) of a sub-score; `extra` sets any field."""
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


# -- the store tests' case ----------------------------------------------------------------------


def record(name: str = "patient-a.txt", text: str = CLINIC_TEXT) -> Record:
    return Record(name=name, documents=(SourceDocument(source_id="doc1", kind="txt", text=text),))


def _brief(agent: str, rec: Record) -> Brief:
    return Brief(
        agent=agent,
        items=(
            item(BriefSection.TOP_RISKS, 1, "Hyperkalaemia", ("E1",), gate_ids=("hyperkalaemia",)),
        ),
        evidence=(
            evidence(rec, "E1", "doc1", "L2", "K+ 6.3", "lab", line_id="L2"),
            evidence(
                rec,
                "E2",
                "doc1",
                "L9",
                "K+ 3.6",
                "lab",
                status=AlignmentStatus.FAILED,
                flags=("number_mismatch",),
            ),
        ),
        model_sha256="m" * 64,
        prompt_sha256=f"p-{agent}",
    )


def _scorecard(specialist: str, overall: float, grade: str, review: bool) -> Scorecard:
    coverage = trace({"matched": 1, "total": 2}, "matched / total", 0.5)
    return Scorecard(
        specialist=specialist,
        subscores=(subscore("coverage", 0.3, 0.5, coverage),),
        overall=overall,
        overall_trace=trace({"coverage": 0.5}, "100 * sum", overall),
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
            gate("hyperkalaemia", "renal", span(rec, "doc1", "K+ 6.3"), detail="K+ 6.3 >= 6.0"),
            gate("bleomycin_exposure", "oncology"),
            gate("hypoxaemia", status=GateStatus.NEGATED),
        ),
        scorecards=(
            _scorecard("cardiology", 82.0, "Medium", False),
            _scorecard("renal", 55.5, grade, True),
        ),
        config_version="scoring-v1",
        timings={"anaesthetist": 1.5, "cardiology": 2.25},
        judges=1,
    )
