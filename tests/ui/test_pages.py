"""The four pages of the main window: reachable by tab and by key, showing the demo data
that `concord gui --demo` imports; the shortcuts dialog; the whole flow by keyboard."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from concord import paths
from concord.astrid.llm_judge import judge_items
from concord.astrid.store import AstridStore
from concord.domain import CaseStatus
from concord.eval.eval_store import EvalStore
from concord.llm.scripted import ScriptedRuntime
from concord.store import Repository
from concord.ui.case_view import TAB_DECISIONS, TAB_REVIEW
from concord.ui.main_window import (
    PAGE_AGREEMENT,
    PAGE_GRADING,
    PAGE_PATIENTS,
    PAGE_QA,
    PAGE_TITLES,
    PAGE_VALIDATION,
)
from concord.workbench import demo
from tests.astrid.helpers import rule_judge
from tests.eval.helpers import make_answers
from tests.ui.helpers import USER, demo_record_path, idle

ALT = Qt.KeyboardModifier.AltModifier
CTRL = Qt.KeyboardModifier.ControlModifier


def test_pages_have_clear_names_and_are_reachable_by_key(make_window, qtbot) -> None:
    window = make_window()
    titles = [window.pages.tabText(i) for i in range(window.pages.count())]
    assert (
        titles
        == list(PAGE_TITLES)
        == [
            "Patients",
            "QA review (ASTRID)",
            "Answer grading (EVAL)",
            "Agreement",
            "Site validation",
        ]
    )
    for key, page in (
        (Qt.Key.Key_2, PAGE_QA),
        (Qt.Key.Key_3, PAGE_GRADING),
        (Qt.Key.Key_4, PAGE_AGREEMENT),
        (Qt.Key.Key_5, PAGE_VALIDATION),
        (Qt.Key.Key_1, PAGE_PATIENTS),
    ):
        qtbot.keyClick(window, key, ALT)
        assert window.pages.currentIndex() == page
    idle(qtbot, window)
    # empty pages say why they are empty and what to do
    assert "Import" in window.qa_view.banner.text()
    assert "Import" in window.grading_view.banner.text()
    assert "No labels yet" in window.agreement_view.summary.text()


def test_demo_import_fills_every_page(make_window, qtbot, repo: Repository) -> None:
    window = make_window()
    states: list[demo.DemoState] = []
    window.db.call(lambda r: demo.prepare_demo(r, USER), states.append)
    idle(qtbot, window, lambda: bool(states))
    state = states[0]
    assert not state.note
    assert {demo.DEMO_QA_SET, demo.DEMO_QUESTION_SET} <= set(state.imported)
    demo_records = sorted((paths.resources_dir() / "demo").glob("*.json"))
    window.refresh_worklist()
    idle(qtbot, window, lambda: len(window.worklist.model.rows) == len(demo_records))

    # imported, not yet judged / answered: the items and questions are shown, with what to do
    qtbot.keyClick(window, Qt.Key.Key_2, ALT)
    qa = window.qa_view
    idle(qtbot, window, lambda: qa.session is not None)
    assert qa.session.set_name == demo.DEMO_QA_SET and len(qa.session.items) == 14
    assert qa.queue.count() == 14 and "not judged: label blind" in qa.run_box.currentText()
    assert "concord astrid" in qa.banner.text() and qa.item.question.toPlainText()
    qtbot.keyClick(window, Qt.Key.Key_3, ALT)
    grading = window.grading_view
    idle(qtbot, window, lambda: grading.state is not None)
    assert len(grading.state.questions) == 6 and "concord eval generate" in grading.banner.text()

    # a judge run and generated answers (scripted here; `concord astrid` / `concord eval
    # generate` with a model in real use), then Refresh: verdicts and answers to review
    astrid = AstridStore(repo)
    qa_set = astrid.list_sets()[0]["set_id"]
    items = astrid.items(qa_set)
    run = list(judge_items(ScriptedRuntime(rule_judge()), items, qa_set))[-1].run
    astrid.save_run(run, "t")
    store = EvalStore(repo)
    make_answers(store, store.sets()[0].set_id, temperatures=(0.2,), k=1)
    grading.refresh()
    idle(qtbot, window, lambda: grading.state is not None and bool(grading.state.items))
    assert grading.meta.text().startswith("Answer 1 of 6") and grading.answer.toPlainText()
    qtbot.keyClick(window, Qt.Key.Key_G)
    idle(qtbot, window, lambda: grading.done == 1)
    qtbot.keyClick(window, Qt.Key.Key_2, ALT)
    qa.refresh()
    idle(qtbot, window, lambda: qa.session is not None and qa.session.run is not None)
    assert qa.session.run.run_id == run.run_id and "judge:" in qa.item.targets.item(0).text()
    qtbot.keyClick(window, Qt.Key.Key_A)
    idle(qtbot, window, lambda: qa.session.verdicts_done == 1)
    qtbot.keyClick(window, Qt.Key.Key_4, ALT)
    agreement = window.agreement_view
    idle(qtbot, window, lambda: bool(agreement.judge_rows))
    assert "2 standing label(s)" in agreement.summary.text()
    assert [r["metric"] for r in agreement.judge_rows] == ["astrid_cf_sentence"]


def test_shortcuts_dialog_lists_every_key(make_window, qtbot) -> None:
    window = make_window()
    qtbot.keyClick(window, Qt.Key.Key_F1)
    dialog = window.shortcuts_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.keys_for("Accept the judge's value") == "A"
    assert dialog.keys_for("Blind mode") == "B"
    assert dialog.keys_for("QA review (ASTRID)") == "Alt+2"
    assert dialog.keys_for("Grade answer good") == "G"
    assert dialog.keys_for("Run agent panel") == "Ctrl+R"
    assert "Keyboard-only flow" in dialog.findChild(type(window.status_label)).text()
    dialog.reject()


def test_import_run_review_decide_by_keyboard_alone(make_window, qtbot, monkeypatch) -> None:
    path = demo_record_path()  # what the user picks in the file dialog that Ctrl+O opens
    monkeypatch.setattr(
        QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: ([str(path)], ""))
    )
    window = make_window()
    qtbot.keyClick(window, Qt.Key.Key_O, CTRL)
    idle(qtbot, window, lambda: len(window.worklist.model.rows) == 1)
    table = window.worklist.table
    assert window.focusWidget() is table  # keys go to the worklist: Enter opens the patient
    qtbot.keyClick(table, Qt.Key.Key_Return)  # open the selected patient
    idle(qtbot, window, lambda: window.case_view.bundle is not None)
    with qtbot.waitSignal(window.run_ended, timeout=60_000) as ended:
        qtbot.keyClick(window, Qt.Key.Key_R, CTRL)
    assert ended.args == ["finished"]
    view = window.case_view
    idle(qtbot, window, lambda: view.case is not None)
    qtbot.keyClick(window, Qt.Key.Key_2, CTRL)
    assert view.tabs.currentIndex() == TAB_REVIEW and view.review.scores.model.rows
    qtbot.keyClick(window, Qt.Key.Key_4, CTRL)
    assert view.tabs.currentIndex() == TAB_DECISIONS
    queue = view.queue
    for n in range(sum(e.required for e in queue.entries)):
        qtbot.keyClick(window, Qt.Key.Key_E)  # its evidence, and back
        qtbot.keyClick(window, Qt.Key.Key_E)
        if queue.current.is_disposition:  # a red flag: what to do about it, and why
            qtbot.keyClick(window, Qt.Key.Key_O)
            dialog = window.patients.override_dialog
            qtbot.keyClicks(dialog.reason_edit, "potassium to be rechecked")
            qtbot.keyClick(dialog.reason_edit, Qt.Key.Key_Return)
        else:
            qtbot.keyClick(window, Qt.Key.Key_A)
        idle(qtbot, window, lambda n=n: queue.done == n + 1)
    idle(qtbot, window, lambda: view.bundle.status == CaseStatus.REVIEWED)
    assert view.sign_button.isEnabled()


def test_annotators_start_in_blind_mode(make_window, qtbot, repo) -> None:
    window = make_window(user="ann.otator", role="annotator")
    idle(qtbot, window, lambda: window.blind)
    assert window.blind_action.isChecked() and window.case_view.queue.blind
    assert window.qa_view.blind and window.grading_view.blind
    clinician = make_window()
    idle(qtbot, clinician)
    assert not clinician.blind
