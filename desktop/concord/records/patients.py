"""What in the files and folders given is a patient: the one meaning of a folder of records,
for `concord import`, the desktop's import and `concord run --batch` alike.

What is one patient:
* a file given by itself (a FHIR bundle, a letter, a scan) is one record (whoever names it
  chose it);
* a folder given by itself holds patients: each record file directly in it is one patient
  (a bundle per patient), and each sub-folder is one patient whose files (a bundle, scanned
  letters, PDFs...) become the documents of one record;
* a plain-text file lying directly in a folder given whole is a patient only when its text
  says whose record it is (a labelled name, a date of birth or a hospital number,
  `identifies_patient`): a README or notes about the folder are not a patient. It is
  reported as a stray file (`PatientLoaded.stray`), not as a patient that failed;
* any other file directly in the folder (an unsupported type) is reported as not loaded;
  a sub-folder's files of an unsupported type are reported beside its patient (`skipped`);
* hidden files and folders (a name starting with ".") are passed over in silence.

A patient is loaded whole or not at all: any bad file in a patient folder skips that
patient with the reason (one line naming the file), and the others are still loaded.

Inside a folder no symbolic link is followed, to a file or to a folder: a link can point at
another patient's folder, at a file outside the import (/etc/hostname), or back up the tree
(a loop that would make one "patient" of several patients' files). Each link is skipped and
reported ("symbolic link, not followed"); a path named on the command line itself is read
as given (whoever names it chose it).
`load_patients` is a generator: it yields a `PatientLoaded` per patient with its position,
so a front end can show progress and stop between patients.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from concord.domain.record import Record
from concord.errors import ConcordError, InputError
from concord.records.load import format_for, is_record_file, load_record
from concord.records.patient_name import identifies_patient

MAX_FILES_PER_PATIENT = 500
NOT_A_PATIENT = (
    "not a patient record (the text names no patient: no name, date of birth or hospital "
    "number); not imported"
)
"""Why a folder's loose text file that names no one is passed over."""


@dataclass(frozen=True)
class PatientSource:
    """One patient to import: its files, and the folder or file it was named by."""

    label: Path
    files: tuple[Path, ...]
    skipped: tuple[tuple[Path, str], ...] = ()  # files of the folder that are not records
    loose: bool = False
    """A plain-text file lying directly in a folder given whole: a patient only if its text
    names one."""


@dataclass(frozen=True)
class PatientLoaded:
    index: int  # 1-based position
    total: int
    source: PatientSource
    record: Record | None  # None: skipped
    problem: str = ""  # why it was skipped (one line naming the file)
    stray: bool = False
    """Not a patient at all (a folder's loose text that names no one): reported as a stray
    file, not as a patient that failed; `record` is None."""


def _is_hidden(path: Path) -> bool:
    return path.name.startswith(".")


def _readable(path: Path) -> bool:
    return is_record_file(path)


LINK_SKIPPED = "symbolic link, not followed"


def _is_link(path: Path) -> bool:
    """A symbolic link (or, on Windows, a junction): never followed inside a folder."""
    isjunction = getattr(os.path, "isjunction", None)
    return path.is_symlink() or bool(isjunction and isjunction(path))


def plan_patients(paths: Sequence[Path]) -> list[PatientSource]:
    """Group the given files and folders into patients (see the module docstring)."""
    plan: list[PatientSource] = []
    for path in paths:
        if not path.is_dir():
            plan.append(PatientSource(path, (path,)))
            continue
        for child in sorted(path.iterdir()):
            if _is_hidden(child):
                continue
            if _is_link(child):
                plan.append(PatientSource(child, (), ((child, LINK_SKIPPED),)))
            elif child.is_dir():
                plan.append(_folder_patient(child))
            elif _readable(child):
                plan.append(PatientSource(child, (child,), loose=_plain_text(child)))
            else:
                plan.append(
                    PatientSource(
                        child, (), ((child, f"unsupported file type {child.suffix or '(none)'}"),)
                    )
                )
    return plan


def _plain_text(path: Path) -> bool:
    """Read by the text format (the registry's, so a suffix it gains counts here too)."""
    found = format_for(path)
    return found is not None and found.name == "text"


def _folder_patient(folder: Path) -> PatientSource:
    files: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    for where, dirs, names in os.walk(folder, followlinks=False):
        base = Path(where)
        for name in sorted(dirs):
            if _is_link(base / name) and not name.startswith("."):
                skipped.append((base / name, LINK_SKIPPED))
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not _is_link(base / d))
        for name in sorted(names):
            child = base / name
            if name.startswith("."):
                continue
            if _is_link(child):
                skipped.append((child, LINK_SKIPPED))
            elif _readable(child):
                files.append(child)
            else:
                skipped.append((child, f"unsupported file type {child.suffix or '(none)'}"))
    return PatientSource(folder, tuple(sorted(files)), tuple(sorted(skipped)))


def load_patient(source: PatientSource) -> Record:
    """One record for the patient. InputError naming the file for any problem."""
    if not source.files:
        folder = source.label.is_dir() and not _is_link(source.label)
        reason = "no record files in the folder" if folder else "not a record file"
        detail = source.skipped[0][1] if source.skipped and not folder else reason
        raise InputError(detail, subject=source.label)
    if len(source.files) > MAX_FILES_PER_PATIENT:
        raise InputError(
            f"over {MAX_FILES_PER_PATIENT} files for one patient", subject=source.label
        )
    records = [load_record(path) for path in source.files]
    if len(records) == 1:
        return records[0]
    return merge_records(source.label, records)


def merge_records(folder: Path, records: Sequence[Record]) -> Record:
    """The documents and coded facts of several files as one patient's record."""
    seen: dict[str, str] = {}
    for record in records:
        for document in record.documents:
            if document.source_id in seen:
                raise InputError(
                    f"two files have a document {document.source_id!r} "
                    f"({seen[document.source_id]} and {record.name})",
                    subject=folder,
                )
            seen[document.source_id] = record.name
    named = [r.name for r in records if r.name.endswith("(FHIR)")]
    return Record(
        name=named[0] if named else folder.name,
        documents=tuple(d for r in records for d in r.documents),
        operation=next((r.operation for r in records if r.operation), None),
        coded=tuple(f for r in records for f in r.coded),
    )


def load_patients(plan: Sequence[PatientSource]) -> Iterator[PatientLoaded]:
    """Load each patient in turn; a bad patient is reported and the others still loaded."""
    total = len(plan)
    for index, source in enumerate(plan, start=1):
        try:
            record = load_patient(source)
        except ConcordError as exc:
            yield PatientLoaded(index, total, source, None, exc.one_line())
            continue
        except OSError as exc:
            problem = f"{source.label}: {exc.strerror or exc}"
            yield PatientLoaded(index, total, source, None, problem)
            continue
        if source.loose and not identifies_patient(record):
            problem = f"{source.label}: {NOT_A_PATIENT}"
            yield PatientLoaded(index, total, source, None, problem, stray=True)
            continue
        yield PatientLoaded(index, total, source, record)
