"""Functions the database thread runs for the views (plain Python, no Qt).

Each takes the thread's Repository and returns plain data for the UI thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from concord.accounts.session import Session
from concord.decisions import record_decision
from concord.domain import Case, CaseStatus, Decision, GateHit, GateStatus, Record
from concord.errors import ConcordError
from concord.records import load_record
from concord.records.patients import load_patients, plan_patients
from concord.store import Repository
from concord.store.rows import RecordSummary

_SCREEN: list[object] = []  # the RecordScreen, loaded once in the database thread


@dataclass
class CaseBundle:
    """Everything the case page shows; `case` is None for a record not run yet."""

    record: Record
    case: Case | None
    status: CaseStatus
    decisions: list[Decision] = field(default_factory=list)
    gates: tuple[GateHit, ...] = ()
    note: str = ""


@dataclass
class ImportResult:
    imported: list[tuple[str, str, bool]] = field(default_factory=list)  # path, id, new
    errors: list[str] = field(default_factory=list)


def screen_record(record: Record) -> tuple[tuple[GateHit, ...], str]:
    """Record-screen gates for a record without a case; never raises."""
    try:
        if not _SCREEN:
            from concord.screen.record_screen import RecordScreen

            _SCREEN.append(RecordScreen.load())
        return tuple(_SCREEN[0].screen(record)), ""  # type: ignore[attr-defined]
    except ConcordError as exc:
        return (), f"Record screen unavailable: {exc.one_line()}"
    except Exception as exc:
        return (), f"Record screen unavailable: {type(exc).__name__}: {exc}"


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
    return CaseBundle(
        record=repo.get_record(case.record_id),
        case=case,
        status=repo.case_status(case_id),
        decisions=repo.decisions(case_id=case_id),
        gates=case.gates,
    )


@dataclass
class Worklist:
    rows: list[RecordSummary]
    flags: dict[str, list[str]]  # record id -> titles of the red flags of its latest case


def list_records(repo: Repository) -> Worklist:
    rows = repo.list_records()
    flags: dict[str, list[str]] = {}
    for row in rows:
        if row.latest_case_id and row.triggered_gates:
            case = repo.get_case(row.latest_case_id)
            flags[row.record_id] = [
                g.title or g.gate_id.replace("_", " ")
                for g in case.gates
                if g.status == GateStatus.TRIGGERED
            ]
    return Worklist(rows, flags)


def import_paths(repo: Repository, paths: list[Path], user: str) -> ImportResult:
    """Import each file, and each patient of a dropped folder (records.patients); a bad
    patient is reported and the others still imported."""
    result = ImportResult()
    for event in load_patients(plan_patients(paths)):
        path = event.source.label
        if event.record is None:
            result.errors.append(event.problem)
            continue
        try:
            record_id, created = repo.save_record(event.record, user)
        except ConcordError as exc:
            result.errors.append(exc.one_line())
            continue
        result.imported.append((str(path), record_id, created))
    return result


@dataclass
class DecisionResult:
    decisions: list[Decision]
    status: CaseStatus
    outstanding: int
    became_reviewed: bool
    became: CaseStatus | None = None


def append_decision(
    repo: Repository, case: Case, decision: Decision, session: Session
) -> DecisionResult:
    """Record a decision as the signed-in user (`concord.decisions.record_decision`)."""
    outcome = record_decision(repo, session, decision, case=case)
    status = outcome.status or repo.case_status(case.case_id)
    return DecisionResult(
        repo.decisions(case_id=case.case_id),
        status,
        len(outcome.outstanding),
        outcome.became_reviewed,
        outcome.became,
    )


def demo_files() -> list[Path]:
    from concord import paths

    try:
        folder = paths.resources_dir() / "demo"
    except FileNotFoundError:
        return []
    return sorted(folder.glob("*.json"))


DEMO_QA_SET = "qa_cataract_followup.jsonl"
DEMO_QUESTION_SET = "eval_questions.jsonl"


@dataclass
class DemoState:
    record_id: str | None
    case_id: str | None
    note: str = ""
    imported: list[str] = field(default_factory=list)  # what the demo import added


def import_demo_extras(repo: Repository, user: str) -> tuple[list[str], list[str]]:
    """The other demo records, the demo QA set and the demo question set (all idempotent),
    so that every page of the application has something to show. Returns (added, errors)."""
    from concord import paths
    from concord.ui.eval_loaders import import_question_file
    from concord.ui.qa_loaders import import_qa_file

    added: list[str] = []
    errors: list[str] = []
    for path in demo_files()[1:]:
        try:
            _, created = repo.save_record(load_record(path), user)
        except ConcordError as exc:
            errors.append(exc.one_line())
            continue
        if created:
            added.append(path.name)
    folder = paths.resources_dir() / "demo"
    for name, importer in (
        (DEMO_QA_SET, import_qa_file),
        (DEMO_QUESTION_SET, import_question_file),
    ):
        path = folder / name
        if not path.exists():
            errors.append(f"{path}: demo file missing")
            continue
        try:
            if importer(repo, path, user).created:
                added.append(name)
        except ConcordError as exc:
            errors.append(exc.one_line())
    return added, errors


def prepare_demo(repo: Repository, user: str) -> DemoState:
    """Import the demo data (idempotent) and find the first demo record's latest case."""
    files = demo_files()
    if not files:
        return DemoState(None, None, "No demo records found in resources/demo/.")
    record = load_record(files[0])
    record_id, created = repo.save_record(record, user)
    added, errors = import_demo_extras(repo, user)
    latest = None
    for summary in repo.list_records():
        if summary.record_id == record_id:
            latest = summary.latest_case_id
    note = ("Some demo data could not be imported: " + "; ".join(errors)) if errors else ""
    return DemoState(record_id, latest, note, ([files[0].name] if created else []) + added)


def user_role(repo: Repository, user: str) -> str | None:
    """The user's role in the database, or None when the user is not registered."""
    try:
        return str(repo.get_user(user).role.value)
    except ConcordError:
        return None
