"""No stale state, no misleading text: a cancelled run stays on its own patient, "(capped)"
only when the cap changed the score, the Agreement page credits the record screen's rules
(not the model) and says when n is too small for kappa, empty sets say so, menu texts have
no stray mnemonic, a case with no operation says why, and the sign dialog checks the
password before it asks where to save."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QLabel, QMenu

from concord.domain import CaseStatus
from concord.llm.runtime import GenerationRequest
from concord.llm.scripted import ScriptedRuntime
from concord.pipeline import NO_OPERATION
from concord.records import load_record
from concord.review import make_decision
from concord.store import Repository
from concord.ui import signing, theme
from concord.ui.dashboard import SCORECARD_COLUMNS
from concord.ui.main_window import PAGE_AGREEMENT, PAGE_GRADING, PAGE_QA
from concord.workbench.agreement import MIN_ITEMS_FOR_KAPPA, TOO_FEW
from tests import factories
from tests.fake_agents import answer_for
from tests.identity import PASSWORD, enrol
from tests.ui.helpers import USER, demo_record_path, idle


def test_a_cancelled_run_stays_on_its_own_patient(make_window, qtbot, tmp_path) -> None:
    started, release = threading.Event(), threading.Event()

    def slow(request: GenerationRequest) -> str:
        started.set()
        release.wait(10)
        return answer_for(request)

    window = make_window(runtime_factory=lambda svc, model: ScriptedRuntime(slow))
    first = load_record(demo_record_path())
    other = tmp_path / "other.txt"
    other.write_text("Patient: Ann Other\nK+ 4.1 mmol/L\n", encoding="utf-8")
    with Repository.open() as repo:
        repo.save_record(first, USER)
    window.patients.import_files([other])
    idle(qtbot, window, lambda: len(window.worklist.model.rows) == 2)
    other_id = next(r.record_id for r in window.worklist.model.rows if r.name == "Ann Other")
    window.open_record(first.record_id)
    idle(qtbot, window, lambda: window.case_view.record_id == first.record_id)
    window.run_current("")
    qtbot.waitUntil(started.is_set, timeout=10_000)
    panel = window.case_view.run_panel
    window.open_record(other_id)  # look at another patient meanwhile
    idle(qtbot, window, lambda: window.case_view.record_id == other_id)
    assert panel.overall.isHidden() and "another patient" in panel.status.text()
    assert not panel.run_button.isEnabled()  # one run at a time
    with qtbot.waitSignal(window.run_ended, timeout=10_000):
        window.patients.cancel_run()
    assert "cancelled" not in panel.status.text().lower()  # not said on this patient
    assert "cancelled" not in window.case_view.banner.text().lower()
    assert window.case_view.status == CaseStatus.NOT_RUN
    release.set()
    idle(qtbot, window, lambda: not window.runner.worker_busy)
    window.open_record(first.record_id)  # its own page shows no leftover progress either
    idle(qtbot, window, lambda: window.case_view.record_id == first.record_id)
    assert panel.overall.isHidden() and panel.run_button.isEnabled()


def test_capped_only_when_the_cap_lowered_the_score() -> None:
    rec = factories.record()
    card = factories.case(rec).scorecards[1]  # overall 55.5 from a 0.5 coverage sub-score
    under_cap = card.model_copy(update={"capped": True, "overall": 15.0})
    lowered = card.model_copy(update={"capped": True, "overall": 10.0, "grade": "Very Low"})
    raised_sum = lowered.model_copy(
        update={"subscores": tuple(s.model_copy(update={"value": 1.0}) for s in lowered.subscores)}
    )
    assert not under_cap.cap_lowered  # 100 · 0.3 · 0.5 = 15: the cap changed nothing
    assert raised_sum.cap_lowered  # 30 before the cap, 10 after
    grade = SCORECARD_COLUMNS[2]
    assert grade.text(under_cap) == "Low"
    assert grade.text(raised_sum) == "Very Low (capped)"
    assert theme.grade_label("Low", cap_lowered=False) == "Low"


def test_agreement_credits_rules_and_says_when_n_is_too_small(make_window, qtbot, repo) -> None:
    rec = factories.record()
    case = factories.case(rec)
    repo.save_record(rec, USER)
    repo.save_case(case, USER)
    repo.append_decision(make_decision(case, "gate/hyperkalaemia", user=USER, reason="seen"))
    window = make_window()
    qtbot.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.AltModifier)
    view = window.agreement_view
    assert window.pages.currentIndex() == PAGE_AGREEMENT
    idle(qtbot, window, lambda: bool(view.judge_rows))
    row = view.judge_rows[0]
    assert row["metric"] == "gate" and row["n"] == 1
    cells = [view.judge.item(0, c).text() for c in range(view.judge.columnCount())]
    assert "rules" in cells[1] and case.model_name not in cells[1]  # not the model
    assert cells[2] == "judge shown"  # the label was given with the judge's value on screen
    assert cells[3] == "1" and cells[5] == TOO_FEW  # n shown; no kappa on n = 1
    shown = " ".join(label.text() for label in view.findChildren(QLabel))
    assert f"below n = {MIN_ITEMS_FOR_KAPPA} it is too few to mean anything" in shown


def test_empty_sets_say_so(make_window, qtbot, repo) -> None:
    window = make_window()
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    idle(qtbot, window)
    assert window.pages.currentIndex() == PAGE_QA
    assert window.qa_view.progress.text() == "no items"  # not "0 / 1 items"
    qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.AltModifier)
    idle(qtbot, window)
    assert window.pages.currentIndex() == PAGE_GRADING
    assert window.grading_view.bar.text() == "nothing to grade"
    bar = window.case_view.bar
    bar.refresh()  # no case: no judgements
    assert bar.progress.text() == "no judgements"


def test_menu_texts_have_no_stray_mnemonic(make_window) -> None:
    window = make_window()
    for menu_action in window.menuBar().actions():
        menu = menu_action.menu()
        assert isinstance(menu, QMenu)
        for action in menu.actions():
            if isinstance(action, QAction) and not action.isSeparator():
                text = action.text().replace("&&", "")
                assert "&" not in text, text  # a lone & underlines the next letter
    go = [a.text() for a in window.menuBar().actions()[1].menu().actions()]
    assert "Decisions and queue" in go


def test_a_case_with_no_operation_says_why(make_window, qtbot, repo) -> None:
    rec = factories.record()
    case = factories.case(rec).model_copy(
        update={
            "operation": NO_OPERATION,
            "operation_source": "nobody: the surgeon agent failed",
        }
    )
    repo.save_record(rec, USER)
    repo.save_case(case, USER)
    window = make_window()
    window.open_case(case.case_id)
    idle(qtbot, window, lambda: window.case_view.case is not None)
    meta = window.case_view.meta.text()
    assert "operation: none named (the surgeon agent failed)" in meta
    assert "from the nobody" not in meta


def test_the_password_is_checked_before_the_file_is_asked(
    make_window, qtbot, repo, monkeypatch
) -> None:
    enrol(repo, USER, "clinician")
    rec = factories.record()
    case = factories.case(rec)
    repo.save_record(rec, USER)
    repo.save_case(case, USER, status=CaseStatus.REVIEWED)
    answers = iter(["wrong password", PASSWORD])
    shown: list[object] = []
    monkeypatch.setattr(
        signing,
        "ask_signature",
        lambda parent, summary, who: shown.append(summary) or next(answers),
    )
    asked: list[object] = []
    monkeypatch.setattr(
        QFileDialog,
        "getSaveFileName",
        staticmethod(lambda *a, **k: asked.append(a) or ("", "")),
    )
    window = make_window()
    window.open_case(case.case_id)
    idle(qtbot, window, lambda: window.case_view.case is not None)
    keys = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(window, Qt.Key.Key_S, keys)
    idle(qtbot, window)
    assert asked == []  # the wrong password stopped it before any file dialog
    assert "not signed" in window.case_view.banner.text()
    qtbot.keyClick(window, Qt.Key.Key_S, keys)
    idle(qtbot, window)
    assert len(asked) == 1  # the right one: now where to save
    summary = shown[-1]  # the dialog showed the patient, the counts and the meaning
    assert summary.patient and summary.meaning and "judgements:" in summary.counts()
