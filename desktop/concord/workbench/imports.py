"""Importing from the desktop: patient records (files, scans, FHIR bundles or folders; a bad
patient reported and the others still imported), an ASTRID QA set, an EVAL question set."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from concord.astrid.load import load_items
from concord.astrid.store import AstridStore
from concord.errors import ConcordError
from concord.eval.eval_store import EvalStore
from concord.eval.questions import load_question_set
from concord.records.patients import NOT_A_PATIENT, load_patients, plan_patients
from concord.store import Repository


@dataclass(frozen=True)
class ImportedRecord:
    path: str
    record_id: str
    created: bool  # False: the same record was already imported


@dataclass(frozen=True)
class Skipped:
    """A patient that was not imported, or a stray file of an imported patient's folder."""

    path: str
    problem: str  # one line naming the file
    patient: bool  # True: the whole patient was not imported


@dataclass(frozen=True)
class ImportResult:
    imported: tuple[ImportedRecord, ...] = ()
    skipped: tuple[Skipped, ...] = ()

    @property
    def last_record_id(self) -> str | None:
        return self.imported[-1].record_id if self.imported else None

    @property
    def errors(self) -> tuple[str, ...]:
        """The patients not imported, one line each."""
        return tuple(s.problem for s in self.skipped if s.patient)

    @property
    def stray_files(self) -> tuple[str, ...]:
        """Files of imported patients' folders that are not records, one line each."""
        return tuple(s.problem for s in self.skipped if not s.patient)

    def summary(self) -> str:
        """One line: patients imported (new), patients not imported, stray files skipped."""
        new = sum(1 for r in self.imported if r.created)
        parts = [f"Imported {len(self.imported)} patient(s) ({new} new)"]
        if self.errors:
            parts.append(f"{len(self.errors)} not imported")
        if self.stray_files:
            parts.append(f"{len(self.stray_files)} file(s) skipped")
        return ", ".join(parts)


@dataclass(frozen=True)
class ImportStep:
    """Progress of an import: `done` of `total` patients read; `outcome` says what became
    of the last one (empty before the first)."""

    done: int
    total: int
    label: str = ""
    outcome: str = ""


def import_paths(
    repo: Repository,
    paths: list[Path],
    user: str,
    progress: Callable[[ImportStep], None] | None = None,
) -> ImportResult:
    """Import each file, and each patient of a folder (what a patient is: `records.patients`,
    the meaning `concord run --batch` uses too); a bad patient is
    reported (one line naming it) and the others still imported. `progress` hears once
    before the first patient and after each one. The desktop and `concord import` both
    import through here."""
    imported: list[ImportedRecord] = []
    skipped: list[Skipped] = []
    plan = plan_patients(paths)
    if progress is not None and plan:
        progress(ImportStep(0, len(plan)))
    for event in load_patients(plan):
        where = str(event.source.label)
        outcome = ""
        if event.stray:
            skipped.append(Skipped(where, event.problem, patient=False))
            outcome = f"skipped: {NOT_A_PATIENT}"
        elif event.record is None:
            skipped.append(Skipped(where, event.problem, patient=True))
            outcome = f"skipped: {event.problem}"
        else:
            skipped.extend(
                Skipped(str(path), f"{path}: {why}", patient=False)
                for path, why in event.source.skipped
            )
            try:
                record_id, created = repo.save_record(event.record, user)
            except ConcordError as exc:
                skipped.append(Skipped(where, exc.one_line(), patient=True))
                outcome = f"skipped: {exc.one_line()}"
            else:
                imported.append(ImportedRecord(where, record_id, created))
                state = "imported" if created else "already imported"
                outcome = f"{state} {where} -> {record_id}"
        if progress is not None:
            progress(ImportStep(event.index, event.total, event.source.label.name, outcome))
    return ImportResult(tuple(imported), tuple(skipped))


@dataclass(frozen=True)
class QaImport:
    set_id: str
    created: bool
    items: int


def import_qa_file(repo: Repository, path: Path, user: str) -> QaImport:
    items = load_items(path)  # a bad file raises here: nothing is written
    set_id, created = AstridStore(repo).save_set(
        items, name=path.name, source=str(path.resolve()), user=user
    )
    return QaImport(set_id, created, len(items))


@dataclass(frozen=True)
class EvalImport:
    set_id: str
    created: bool
    questions: int


def import_question_file(repo: Repository, path: Path, user: str) -> EvalImport:
    qset = load_question_set(path)  # a bad file raises here: nothing is written
    set_id, created = EvalStore(repo).import_set(qset, str(path.resolve()), user)
    return EvalImport(set_id, created, len(qset.questions))
