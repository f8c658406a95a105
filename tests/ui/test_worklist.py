"""The worklist triages: most urgent first (a finding missed by every agent, a missed major
red flag, a failed run, a major red flag not run yet, needs review, not run, reviewed,
signed), the surgery date within an urgency, named columns ("Brief quality", "Red flags",
"DOB / MRN", "Operation", "Surgery"), red flags from the record screen before any run, the
patient's name where the record gives one, search by name or MRN, a red-flag filter, a "to
do" filter (T), sorting by any column, counts, and an order from the status alone in blind
mode."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox

from concord.domain import Case, CaseStatus, Record
from concord.store import Repository
from concord.workbench.triage import Urgency
from tests import factories
from tests.factories import CLINIC_TEXT
from tests.ui.helpers import idle

USER = "dr.tester"
SCREEN_LOAD_MS = 120_000  # loading the record screen takes seconds (more on a busy machine)


def _record(name: str, header: str = "") -> Record:
    return factories.record(name=name, text=f"{header}{CLINIC_TEXT}Note for {name}.\n")


def _clean(case: Case) -> Case:
    """A case whose anaesthetist missed nothing: no disagreement, no mutual omission."""
    cards = tuple(c.model_copy(update={"disagreements": ()}) for c in case.scorecards)
    return case.model_copy(update={"scorecards": cards, "mutual_omissions": ()})


def store_worklist(repo: Repository) -> dict[str, str]:
    """Seven patients, one per urgency, stored in an order unlike the urgency order."""
    made: dict[str, str] = {}

    def add(key: str, case: Case | None, rec: Record, status: CaseStatus) -> None:
        repo.save_record(rec, USER)
        if case is not None:
            repo.save_case(case, USER, status=status)
        made[key] = rec.record_id

    signed = _record("signed.txt")
    add("signed", _clean(factories.case(signed, "C-signed")), signed, CaseStatus.SIGNED)
    plain = _record("plain.txt", "Patient: Jane Doe   DOB 01/02/1950\n")
    add("needs review", _clean(factories.case(plain, "C-plain")), plain, CaseStatus.NEEDS_REVIEW)
    missed = _record("missed.txt")
    add("missed major", factories.case(missed, "C-missed"), missed, CaseStatus.NEEDS_REVIEW)
    not_run = _record("not-run.txt")
    add("not run", None, not_run, CaseStatus.NOT_RUN)
    failed = _record("failed.txt")
    add("run failed", _clean(factories.case(failed, "C-failed")), failed, CaseStatus.RUN_FAILED)
    amended = _record("amended.txt")
    add("amended", _clean(factories.case(amended, "C-amended")), amended, CaseStatus.AMENDED)
    reviewed = _record("reviewed.txt")
    add("reviewed", _clean(factories.case(reviewed, "C-rev")), reviewed, CaseStatus.REVIEWED)
    mutual = _record("mutual.txt")
    everyone = factories.case(mutual, "C-mutual").model_copy(
        update={"mutual_omissions": ("bleomycin_exposure",)}
    )
    add("mutual", everyone, mutual, CaseStatus.NEEDS_REVIEW)
    return made


URGENT_FIRST = [
    "mutual",
    "missed major",
    "run failed",
    "not run",  # K+ 6.3 in the record: a major red flag from the screen, before any run
    "needs review",
    "amended",
    "reviewed",
    "signed",
]


def test_worklist_triages_filters_sorts_and_counts(make_window, qtbot, repo) -> None:
    ids = store_worklist(repo)
    window = make_window()
    worklist = window.worklist
    idle(qtbot, window, lambda: len(worklist.model.rows) == len(ids))
    # the rows show at once; the red flags of records not run yet follow from the screen
    idle(qtbot, window, lambda: not worklist.screening, timeout=SCREEN_LOAD_MS)
    assert worklist.shown_record_ids() == [ids[k] for k in URGENT_FIRST]
    titles = [worklist.model.headerData(c, Qt.Orientation.Horizontal) for c in range(8)]
    for title in ("Brief quality", "Red flags", "DOB / MRN", "Operation", "Surgery"):
        assert title in titles
    assert "Worst grade" not in titles
    column = titles.index("Red flags")
    first = worklist.proxy.index(0, column).data()
    assert first.startswith("⚠ missed by every agent: bleomycin")  # the mutual omission
    not_run = worklist.proxy.index(URGENT_FIRST.index("not run"), column).data()
    assert "⚑ hyperkalaemia" in not_run.casefold()  # screened at import, before any run
    urgency = [worklist.proxy.index(r, 0).data() for r in range(len(ids))]
    assert urgency[0] == "Missed by every agent"
    assert urgency[1] == "Major red flag missed"
    assert urgency[3] == "Major red flag, not run yet"
    # the record names the patient: the worklist says who it is
    names = {r.record_id: r.name for r in worklist.model.rows}
    assert names[ids["needs review"]] == "Jane Doe" and names[ids["signed"]] == "signed.txt"
    counts = worklist.counts.text()
    assert counts.startswith("8 patients, 6 to do (missed by every agent 1 · major red flag")
    assert "major red flag, not run yet 1 · needs review 1 · amended, sign again 1)" in counts
    assert "reviewed, to sign 1 · signed 1" in counts

    qtbot.keyClick(window, Qt.Key.Key_T)  # to do only
    assert worklist.to_do_box.isChecked()
    assert worklist.shown_record_ids() == [ids[k] for k in URGENT_FIRST[:6]]
    assert "showing 6" in worklist.counts.text()
    qtbot.keyClick(window, Qt.Key.Key_T)
    assert len(worklist.shown_record_ids()) == len(ids)

    header = worklist.table.horizontalHeader()  # a click on "Patient" sorts by name
    x = header.sectionViewportPosition(1) + header.sectionSize(1) // 2
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))
    shown = [names[i] for i in worklist.shown_record_ids()]
    assert shown == sorted(shown, key=str.casefold)
    qtbot.mouseClick(worklist.urgency_order, Qt.MouseButton.LeftButton)
    assert worklist.shown_record_ids() == [ids[k] for k in URGENT_FIRST]


def test_blind_mode_orders_by_status_alone(make_window, qtbot, repo) -> None:
    ids = store_worklist(repo)
    window = make_window()
    worklist = window.worklist
    idle(qtbot, window, lambda: len(worklist.model.rows) == len(ids))
    # the rows show at once; the red flags of records not run yet follow from the screen
    idle(qtbot, window, lambda: not worklist.screening, timeout=SCREEN_LOAD_MS)
    qtbot.keyClick(window, Qt.Key.Key_B)
    # what every agent missed is a verdict: hidden, and no longer an order
    expected = ["run failed", "needs review", "missed major", "mutual"]  # in import order
    expected += ["amended", "not run", "reviewed", "signed"]
    assert worklist.shown_record_ids() == [ids[k] for k in expected]
    rows = {r.record_id: r for r in worklist.model.rows}
    assert rows[ids["mutual"]].urgency(blind=True) == Urgency.NEEDS_REVIEW
    texts = [worklist.proxy.index(r, c).data() for r in range(len(ids)) for c in range(8)]
    assert "Bleomycin exposure" not in " ".join(t for t in texts if t)
    assert "hidden (blind)" in texts


def test_a_just_imported_record_is_selected(make_window, qtbot, repo, tmp_path) -> None:
    """The run shortcut runs what you just imported, not the row selected before."""
    store_worklist(repo)
    window = make_window()
    worklist = window.worklist
    idle(qtbot, window, lambda: len(worklist.model.rows) == 8)
    worklist.select(worklist.shown_record_ids()[0])
    new = tmp_path / "new-patient.txt"
    new.write_text("Patient: Alan Smithee\nK+ 6.4 mmol/L today.\n", encoding="utf-8")
    window.patients.import_files([new])
    idle(qtbot, window, lambda: len(worklist.model.rows) == 9)
    selected = worklist.selected_record_id()
    row = next(r for r in worklist.model.rows if r.record_id == selected)
    assert row.name == "Alan Smithee" and row.status is None


def test_a_folder_import_shows_progress_and_says_what_it_skipped(
    make_window, qtbot, tmp_path
) -> None:
    """A folder of patients: the progress bar counts them, each readable patient is
    imported, a patient with no record file and a stray file are named in the summary."""
    folder = tmp_path / "clinic"
    for name, text in (("ann", "Patient: Ann Able\nK+ 4.1\n"), ("bob", "Patient: Bob Best\n")):
        (folder / name).mkdir(parents=True)
        (folder / name / "letter.txt").write_text(text, encoding="utf-8")
    (folder / "bob" / "photo.xyz").write_bytes(b"\x00\x01")
    (folder / "carl").mkdir()
    (folder / "carl" / "notes.xyz").write_bytes(b"\x00")
    window = make_window()
    worklist = window.worklist
    idle(qtbot, window)
    seen: list[tuple[int, int]] = []
    bar = worklist.import_progress
    bar.valueChanged.connect(lambda v: seen.append((v, bar.maximum())))
    window.patients.import_files([folder])
    idle(qtbot, window, lambda: len(worklist.model.rows) == 2)
    assert seen[-1] == (3, 3) and (1, 3) in seen  # three patients, counted as they are read
    assert bar.isHidden()
    names = sorted(r.name or "" for r in worklist.model.rows)
    assert names == ["Ann Able", "Bob Best"]
    boxes = [b for b in window.findChildren(QMessageBox) if b.objectName() == "errorBox"]
    assert len(boxes) == 1
    text = boxes[0].text()
    assert "Imported 2 patient(s) (2 new), 1 not imported, 1 file(s) skipped" in text
    assert "carl" in text and "photo.xyz" in text
