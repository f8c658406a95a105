"""The patient worklist as the database thread reads it: one row per record, with who the
patient is (name, date of birth or record number), the planned operation and surgery date,
the red flags (from the record screen at import, or the latest case's), what every agent
missed, the brief quality and the required judgements still open."""

from __future__ import annotations

from dataclasses import dataclass, replace

from concord.adjudication.judgements import missed_major_gates
from concord.domain import Case, Record
from concord.records.patient_name import date_of_birth, display_name, record_number
from concord.review import outstanding
from concord.screen.dates import surgery_date
from concord.store import Repository
from concord.store.rows import RecordSummary
from concord.workbench.red_flags import SHARED, ImportScreen, red_flags
from concord.workbench.run_failure import failure_text
from concord.workbench.triage import WorklistRow


@dataclass(frozen=True)
class Worklist:
    rows: tuple[WorklistRow, ...]
    note: str = ""  # e.g. why the record screen could not run
    unscreened: tuple[Record, ...] = ()  # records not run yet, left for `screen_rows`


def _gate_titles(case: Case) -> dict[str, str]:
    return {g.gate_id: g.title or g.gate_id.replace("_", " ") for g in case.gates}


def worklist_row(
    summary: RecordSummary,
    record: Record,
    case: Case | None,
    required_left: int,
    screen: ImportScreen | None = SHARED,
) -> WorklistRow:
    """The record's row; a record not run yet is screened here, unless `screen` is None
    (then `screened` is False, unless it was screened before, and `screen_rows` fills it)."""
    row = WorklistRow(
        record_id=summary.record_id,
        name=display_name(record),
        source_name=summary.name,
        imported_at=summary.imported_at,
        case_id=summary.latest_case_id,
        status=summary.latest_status,
        human_review=summary.human_review,
        date_of_birth=date_of_birth(record),
        record_number=record_number(record),
        operation=record.operation or (case.operation if case else None) or None,
        surgery_date=surgery_date([d.text for d in record.documents]),
    )
    if case is None:
        if screen is None:
            known = SHARED.known(record)
            if known is None:
                return replace(row, screened=False)
            return replace(row, red_flags=red_flags(known))
        return replace(row, red_flags=red_flags(screen.gates(record)))
    titles = _gate_titles(case)
    major = set(case.major_gates)
    return replace(
        row,
        brief_quality=case.worst_grade,
        quality_capped=any(c.cap_lowered for c in case.scorecards if c.grade == case.worst_grade),
        red_flags=red_flags(case.gates),
        missed_by_every_agent=tuple(titles.get(g, g) for g in case.mutual_omissions if g in major),
        missed_major=tuple(titles.get(g, g) for g in missed_major_gates(case)),
        required_left=required_left,
        run_problem=failure_text(case) if case.run_failure else "",
    )


def load_worklist(repo: Repository, screen: ImportScreen | None = SHARED) -> Worklist:
    """Every record's row. With `screen` None, records not run yet and not screened before
    are left for `screen_rows` (the desktop screens them in a thread of its own, so the
    list shows at once and the red flags follow)."""
    rows = []
    unscreened = []
    for summary in repo.list_records():
        record = repo.get_record(summary.record_id)
        case = repo.get_case(summary.latest_case_id) if summary.latest_case_id else None
        left = len(outstanding(case, repo.decisions(case_id=case.case_id))) if case else 0
        row = worklist_row(summary, record, case, left, screen)
        rows.append(row)
        if not row.screened:
            unscreened.append(record)
    problem = (screen or SHARED).problem
    return Worklist(tuple(rows), problem, tuple(unscreened))


def screen_rows(worklist: Worklist, screen: ImportScreen = SHARED) -> Worklist:
    """The worklist with its records not run yet screened (no database needed)."""
    flags = {r.record_id: red_flags(screen.gates(r)) for r in worklist.unscreened}
    rows = tuple(
        replace(row, red_flags=flags[row.record_id], screened=True)
        if row.record_id in flags
        else row
        for row in worklist.rows
    )
    return Worklist(rows, screen.problem)
