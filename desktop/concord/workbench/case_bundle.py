"""Everything the case page shows, read in the database thread: the record, its latest
case (or, not run yet, the record screen's result), the case status and the decisions."""

from __future__ import annotations

from dataclasses import dataclass

from concord.domain import Case, CaseMode, CaseStatus, Decision, GateHit, Record
from concord.pipeline import NO_OPERATION
from concord.records.patient_name import display_name
from concord.site import site_note
from concord.store import Repository
from concord.store.clock import case_clock_steps
from concord.workbench.red_flags import SHARED
from concord.workbench.run_failure import failure_text


@dataclass(frozen=True)
class CaseBundle:
    """A record and its latest case; `case` is None for a record not run yet."""

    record: Record
    case: Case | None
    status: CaseStatus
    decisions: tuple[Decision, ...] = ()
    gates: tuple[GateHit, ...] = ()
    note: str = ""
    signed_by: str | None = None  # who signed its latest signature, if any

    @property
    def name(self) -> str:
        return display_name(self.record)


def screen_record(record: Record) -> tuple[tuple[GateHit, ...], str]:
    """Record-screen gates for a record without a case, and a note; never raises."""
    gates = SHARED.gates(record)
    return gates, SHARED.problem if not gates else ""


def record_bundle(repo: Repository, record_id: str) -> CaseBundle:
    """The record's latest case if it has one, else the record with its screen result."""
    for summary in repo.list_records():
        if summary.record_id == record_id and summary.latest_case_id:
            return case_bundle(repo, summary.latest_case_id)
    record = repo.get_record(record_id)
    gates, note = screen_record(record)
    return CaseBundle(record=record, case=None, status=CaseStatus.NOT_RUN, gates=gates, note=note)


def case_bundle(repo: Repository, case_id: str) -> CaseBundle:
    case = repo.get_case(case_id)
    signature = repo.latest_signature(case_id)
    return CaseBundle(
        record=repo.get_record(case.record_id),
        case=case,
        status=repo.case_status(case_id),
        decisions=tuple(repo.decisions(case_id=case_id)),
        gates=case.gates,
        note=" ".join(
            n
            for n in (
                failure_text(case),
                site_note(repo, case) if case.mode in _MARKED else "",
                clock_note(repo, case_id),
            )
            if n
        ),
        signed_by=signature.user if signature is not None else None,
    )


def clock_note(repo: Repository, case_id: str) -> str:
    """A warning for the case header when a clock ran backwards among the case's rows
    (order is the chain's; the times shown may be wrong), '' otherwise."""
    steps = case_clock_steps(repo.db, case_id)
    if not steps:
        return ""
    first = steps[0]
    more = f" (and {len(steps) - 1} more)" if len(steps) > 1 else ""
    return (
        f"Clock warning: {first.action} by {first.user} is stamped {first.at[:19]}Z, "
        f"before the entry it follows in the audit trail{more}. The order shown is the audit "
        "trail's; the times may be wrong."
    )


_MARKED = (CaseMode.DEMONSTRATION, CaseMode.SILENT)
"""Modes the case page states in its banner (site validation)."""


def operation_text(case: Case) -> str:
    """The planned operation and where it came from: "Laparoscopic cholecystectomy (from the
    record)", or, when no agent named one, "none named (the surgeon agent failed)"."""
    source = case.operation_source.strip()
    if not case.operation or case.operation == NO_OPERATION:
        why = source.split(":", 1)[-1].strip() if source else ""
        return f"none named ({why})" if why else "none named"
    if source in ("record", "surgeon agent"):
        return f"{case.operation} (from the {source})"
    return f"{case.operation} ({source})" if source else case.operation
