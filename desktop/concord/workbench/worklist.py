"""The patient worklist as the database thread reads it: one row per record, with what the
triage needs from its latest case (red flags, what every agent missed, the brief quality,
the required judgements still open)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from concord.domain import Case, DisagreementKind, GateStatus, Severity
from concord.review import outstanding
from concord.store import Repository
from concord.store.rows import RecordSummary
from concord.workbench.patient_name import display_name
from concord.workbench.triage import WorklistRow

_ANAESTHETIST_MISSED = (DisagreementKind.MISS, DisagreementKind.MUTUAL_OMISSION)


@dataclass(frozen=True)
class Worklist:
    rows: tuple[WorklistRow, ...]


def _gate_titles(case: Case) -> dict[str, str]:
    return {g.gate_id: g.title or g.gate_id.replace("_", " ") for g in case.gates}


def missed_major_gates(case: Case) -> tuple[str, ...]:
    """Major gates the anaesthetist brief missed: raised only by a specialist, missed by both
    briefs of a comparison, or missed by every brief of the case."""
    major = {g.gate_id for g in case.gates if g.severity == Severity.MAJOR}
    missed = [
        d.gate_id
        for card in case.scorecards
        for d in card.disagreements
        if d.kind in _ANAESTHETIST_MISSED and d.gate_id in major
    ]
    missed += [g for g in case.mutual_omissions if g in major]
    return tuple(dict.fromkeys(g for g in missed if g))


def worklist_row(
    summary: RecordSummary, name: str, case: Case | None, required_left: int
) -> WorklistRow:
    row = WorklistRow(
        record_id=summary.record_id,
        name=name,
        source_name=summary.name,
        imported_at=summary.imported_at,
        case_id=summary.latest_case_id,
        status=summary.latest_status,
        human_review=summary.human_review,
    )
    if case is None:
        return row
    titles = _gate_titles(case)
    return replace(
        row,
        brief_quality=case.worst_grade,
        quality_capped=any(c.cap_lowered for c in case.scorecards if c.grade == case.worst_grade),
        red_flags=tuple(titles[g.gate_id] for g in case.gates if g.status == GateStatus.TRIGGERED),
        missed_by_every_agent=tuple(titles.get(g, g) for g in case.mutual_omissions),
        missed_major=tuple(titles.get(g, g) for g in missed_major_gates(case)),
        required_left=required_left,
    )


def load_worklist(repo: Repository) -> Worklist:
    rows = []
    for summary in repo.list_records():
        name = display_name(repo.get_record(summary.record_id))
        case = repo.get_case(summary.latest_case_id) if summary.latest_case_id else None
        left = len(outstanding(case, repo.decisions(case_id=case.case_id))) if case else 0
        rows.append(worklist_row(summary, name, case, left))
    return Worklist(tuple(rows))
