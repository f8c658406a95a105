"""A ward clerk's worklist, without Qt: red flags from the record screen as soon as a record
is imported, a major one ranked above "needs review"; the surgery date ordering each
urgency; who the patient is; a folder's loose text that names no patient is not imported,
and the summary says so."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from concord.domain import CaseStatus
from concord.store import Repository
from concord.workbench.imports import import_paths
from concord.workbench.triage import Urgency, triage_order
from concord.workbench.worklist import load_worklist
from tests import factories

USER = "dr.clerk"


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_red_flags_before_any_run_and_the_surgery_date_orders_a_band(
    repo: Repository, tmp_path: Path
) -> None:
    later = _write(
        tmp_path,
        "bob.txt",
        "Patient: Bob Later   MRN KB-1000002\nPlanned surgery date: 2026-12-20\n"
        "Bloods: K+ 6.5 mmol/L.\n",
    )
    early = _write(
        tmp_path,
        "ann.txt",
        "Patient: Ann Early   MRN KB-1000001\nPlanned surgery date: 2026-12-01\n"
        "Bloods: K+ 6.3 mmol/L.\n",
    )
    clear = _write(
        tmp_path,
        "cat.txt",
        "Patient: Cat Clear   DOB 01/01/1960\nPlanned surgery date: 2026-11-30\n"
        "Bloods: K+ 4.2 mmol/L.\n",
    )
    result = import_paths(repo, [later, early, clear], USER)
    assert len(result.imported) == 3
    reviewed_rec = factories.record(name="reviewed.txt")
    repo.save_record(reviewed_rec, USER)
    case = factories.case(reviewed_rec, "C-r")
    cards = tuple(c.model_copy(update={"disagreements": ()}) for c in case.scorecards)
    clean = case.model_copy(update={"scorecards": cards, "mutual_omissions": ()})
    repo.save_case(clean, USER, status=CaseStatus.NEEDS_REVIEW)

    rows = {r.name: r for r in load_worklist(repo).rows}
    ann, bob, cat = rows["Ann Early"], rows["Bob Later"], rows["Cat Clear"]
    assert [f.gate_id for f in ann.red_flags] == ["hyperkalaemia"] and ann.status is None
    assert bob.urgency() == Urgency.MAJOR_FLAG_NOT_RUN
    assert ann.urgency() == Urgency.MAJOR_FLAG_NOT_RUN
    assert cat.red_flags == () and cat.urgency() == Urgency.NOT_RUN
    assert (ann.record_number, cat.date_of_birth) == ("MRN KB-1000001", "01/01/1960")
    assert ann.surgery_date == date(2026, 12, 1)
    order = [r.name for r in triage_order(rows.values())]
    # the unrun major flags, the earlier surgery first, above the case that needs review;
    # the clear record last
    assert order.index("Ann Early") < order.index("Bob Later") < order.index("reviewed.txt")
    assert order[-1] == "Cat Clear"


def test_a_folders_text_that_names_no_patient_is_not_imported(
    repo: Repository, tmp_path: Path
) -> None:
    folder = tmp_path / "demo"
    _write(folder, "README.md", "# Demo patients\n\nSynthetic records: hyperkalaemia, AS.\n")
    _write(folder, "jane.txt", "Patient: Jane Doe   DOB 02/03/1950\nK+ 6.3 mmol/L\n")
    _write(folder, "letter.md", "Re: John SMITH   NHS 943 117 6620\nLVEF 30%.\n")
    result = import_paths(repo, [folder], USER)
    assert len(result.imported) == 2
    assert len(result.stray_files) == 1
    assert "README.md" in result.stray_files[0]
    assert "not a patient record" in result.stray_files[0]
    assert "1 file(s) skipped" in result.summary()
    # given by itself, a file is imported: the user chose it
    alone = import_paths(repo, [folder / "README.md"], USER)
    assert len(alone.imported) == 1
