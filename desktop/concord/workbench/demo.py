"""`concord gui --demo`: import the demo data (records, QA set, question set), so every
page has something to show, and find the first demo record's latest case."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from concord import paths
from concord.errors import ConcordError
from concord.records import load_record
from concord.store import Repository
from concord.workbench.imports import import_qa_file, import_question_file

DEMO_QA_SET = "qa_cataract_followup.jsonl"
DEMO_QUESTION_SET = "eval_questions.jsonl"


def demo_files() -> list[Path]:
    try:
        folder = paths.resources_dir() / "demo"
    except FileNotFoundError:
        return []
    return sorted(folder.glob("*.json"))


@dataclass(frozen=True)
class DemoState:
    record_id: str | None
    case_id: str | None
    note: str = ""
    imported: tuple[str, ...] = ()  # what the demo import added


def import_demo_extras(repo: Repository, user: str) -> tuple[list[str], list[str]]:
    """The other demo records, the demo QA set and the demo question set (all idempotent).
    Returns (added, errors)."""
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
    qa = folder / DEMO_QA_SET
    questions = folder / DEMO_QUESTION_SET
    for path in (qa, questions):
        if not path.exists():
            errors.append(f"{path}: demo file missing")
            continue
        try:
            created = (
                import_qa_file(repo, path, user).created
                if path == qa
                else import_question_file(repo, path, user).created
            )
        except ConcordError as exc:
            errors.append(exc.one_line())
            continue
        if created:
            added.append(path.name)
    return added, errors


def prepare_demo(repo: Repository, user: str) -> DemoState:
    """Import the demo data (idempotent) and find the first demo record's latest case."""
    files = demo_files()
    if not files:
        return DemoState(None, None, "No demo records found in resources/demo/.")
    record_id, created = repo.save_record(load_record(files[0]), user)
    added, errors = import_demo_extras(repo, user)
    latest = None
    for summary in repo.list_records():
        if summary.record_id == record_id:
            latest = summary.latest_case_id
    note = ("Some demo data could not be imported: " + "; ".join(errors)) if errors else ""
    return DemoState(record_id, latest, note, tuple(([files[0].name] if created else []) + added))
