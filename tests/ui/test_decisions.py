"""Accept / override by keyboard, history, blind mode, the queue's progress and resume."""

from __future__ import annotations

from PySide6.QtCore import Qt

from concord.domain import CaseStatus, DecisionAction
from concord.store import Repository
from tests.ui.helpers import USER, decide_required


def _go_to(window, target_id: str) -> None:
    assert window.case_view.queue.go_to_target(target_id)


def test_override_by_keyboard_is_stored_and_in_history(case_window, qtbot, stored_case):
    _, case = stored_case
    card = case.scorecards[0]
    target_id = f"{card.specialist}/subscore/coverage"
    _go_to(case_window, target_id)
    qtbot.keyClick(case_window, Qt.Key.Key_O)
    dialog = case_window.patients.override_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.set_value("0.25")
    dialog.reason_edit.setText("two risks were not really covered")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    history = case_window.case_view.decisions.history_model
    qtbot.waitUntil(lambda: len(history.rows) == 1, timeout=10_000)
    shown = history.rows[0]
    assert shown.target_id == target_id
    assert shown.action == DecisionAction.OVERRIDE and shown.new_value == 0.25
    with Repository.open() as repo:
        stored = repo.decisions(case_id=case.case_id)
    assert [d.decision_id for d in stored] == [shown.decision_id]
    assert stored[0].user == USER and stored[0].reason == "two risks were not really covered"
    # a second decision is appended, the first one stays as it was
    _go_to(case_window, target_id)
    qtbot.keyClick(case_window, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: len(history.rows) == 2, timeout=10_000)
    assert history.rows[0] == shown
    assert history.rows[1].action == DecisionAction.ACCEPT


def test_bad_override_value_is_refused_with_a_message(case_window, qtbot, stored_case):
    _, case = stored_case
    _go_to(case_window, f"{case.scorecards[0].specialist}/overall")
    qtbot.keyClick(case_window, Qt.Key.Key_O)
    dialog = case_window.patients.override_dialog
    dialog.set_value("250")
    dialog.reason_edit.setText("typo")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible()
    assert "between 0 and 100" in dialog.error.text()
    dialog.reject()


def test_blind_mode_hides_the_verdict_until_answered(case_window, qtbot, stored_case):
    _, case = stored_case
    card = case.scorecards[0]
    target_id = f"{card.specialist}/overall"
    view = case_window.case_view
    _go_to(case_window, target_id)
    verdict = f"{card.overall:.1f} / 100"
    assert verdict in view.bar.verdict.text()
    qtbot.keyClick(case_window, Qt.Key.Key_B)
    assert view.queue.blind
    assert "hidden" in view.bar.verdict.text() and verdict not in view.bar.verdict.text()
    assert str(card.overall) not in view.bar.label.text()
    row = view.queue.index
    assert view.decisions.model.index(row, 2).data() == "hidden"
    assert not view.tabs.isTabEnabled(0) and not view.tabs.isTabEnabled(2)
    assert "hidden" in view.grade_badge.text()
    # accepting an unseen verdict is not possible
    qtbot.keyClick(case_window, Qt.Key.Key_A)
    assert not view.queue.decisions
    # answer blind
    qtbot.keyClick(case_window, Qt.Key.Key_O)
    dialog = case_window.patients.override_dialog
    assert "Judge's value" not in [
        dialog.layout().itemAt(i).widget().text()
        for i in range(dialog.layout().count())
        if hasattr(dialog.layout().itemAt(i).widget(), "text")
    ]
    dialog.set_value("55")
    dialog.reason_edit.setText("my own estimate")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(view.queue.decisions) == 1, timeout=10_000)
    stored = view.queue.decisions[0]
    assert stored.blind and stored.new_value == 55.0
    _go_to(case_window, target_id)
    assert verdict in view.bar.verdict.text()  # revealed once answered


def test_keyboard_queue_progress_resume_and_reviewed(
    make_window,
    case_window,
    qtbot,
    stored_case,
):
    _, case = stored_case
    view = case_window.case_view
    q = view.queue
    total = q.total
    assert view.bar.progress.maximum() == total and view.bar.progress.value() == 0
    qtbot.keyClick(case_window, Qt.Key.Key_N)
    assert q.index == 1
    qtbot.keyClick(case_window, Qt.Key.Key_K)
    assert q.index == 0
    required = sum(1 for e in q.entries if e.required)
    assert all(e.required for e in q.entries[:required])  # required judgements come first
    decide_required(case_window, qtbot)
    assert view.bar.progress.value() == required
    qtbot.waitUntil(lambda: view.bundle.status == CaseStatus.REVIEWED, timeout=10_000)
    assert view.sign_button.isEnabled()
    with Repository.open() as repo:
        assert repo.case_status(case.case_id) == CaseStatus.REVIEWED
    # a new window resumes at the first undecided judgement
    again = make_window()
    again.open_case(case.case_id)
    qtbot.waitUntil(lambda: again.case_view.case is not None, timeout=10_000)
    assert again.case_view.queue.index == required
    assert again.case_view.queue.done == required


def test_disagreement_badge_goes_to_the_disagreement(case_window, stored_case, qtbot):
    _, case = stored_case
    view = case_window.case_view
    badge = view.dashboard.badges[0]
    qtbot.mouseClick(badge, Qt.MouseButton.LeftButton)
    specialist, did = badge.objectName().split(":", 1)[1].split("/")
    held = {t.id for t in view.queue.current.targets}  # (a repeated finding: one entry)
    assert f"{specialist}/disagreement/{did}" in held
    assert view.tabs.currentIndex() == 3


def test_blind_mode_hides_every_verdict_on_the_case(case_window, qtbot, stored_case):
    """Beyond the decision bar: red-flag marks in the record, the scorecard beside the
    briefs, the grade/review badges and the worklist's verdict columns."""
    _, case = stored_case
    view = case_window.case_view
    record = view.review.record_view
    assert record._gates and view.review.scores.model.rows  # shown when not blind
    assert view.review_badge.isVisibleTo(view)
    qtbot.keyClick(case_window, Qt.Key.Key_B)
    assert record._gates == [] and "red flags hidden" in view.review.legend.text()
    assert view.review.scores.model.rows == [] and not view.review.scores.table.isVisibleTo(view)
    assert "hidden" in view.review.scores.note.text()
    assert not view.review_badge.isVisibleTo(view) and "hidden" in view.grade_badge.text()
    model = case_window.worklist.model
    case_window.show_worklist()
    qtbot.waitUntil(lambda: bool(model.rows), timeout=10_000)
    shown = [model.index(0, c).data() for c in range(model.columnCount())]
    assert case.worst_grade not in shown and shown.count("hidden (blind)") == 2
    qtbot.keyClick(case_window, Qt.Key.Key_B)
    assert case.worst_grade in [model.index(0, c).data() for c in range(model.columnCount())]


def test_blind_mode_does_not_show_other_reviewers_decisions(make_window, qtbot, stored_case):
    from concord.review import make_decision

    _, case = stored_case
    target = f"{case.scorecards[0].specialist}/overall"
    with Repository.open() as repo:
        repo.append_decision(
            make_decision(case, target, user="other.reviewer", reason="looked fine", override="12")
        )
    window = make_window()
    window.open_case(case.case_id)
    qtbot.waitUntil(
        lambda: window.case_view.case is not None and window.db.pending == 0, timeout=10_000
    )
    view = window.case_view
    assert len(view.decisions.history_model.rows) == 1
    qtbot.keyClick(window, Qt.Key.Key_B)
    _go_to(window, target)
    assert "hidden" in view.bar.verdict.text()  # another's decision reveals nothing
    assert view.decisions.history_model.rows == []
    assert "1 by other reviewers hidden" in view.decisions.history_title.text()
    assert view.queue.done == 0 and view.bar.progress.value() == 0


def test_override_dialog_works_from_the_keyboard(case_window, qtbot, stored_case):
    _, case = stored_case
    target_id = f"{case.scorecards[0].specialist}/subscore/coverage"
    _go_to(case_window, target_id)
    qtbot.keyClick(case_window, Qt.Key.Key_O)
    dialog = case_window.patients.override_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5_000)
    assert dialog.focusWidget() is dialog.value_edit  # typing goes straight into the value
    qtbot.keyClicks(dialog.value_edit, "0.4")
    qtbot.keyClicks(dialog.reason_edit, "one risk not covered")
    qtbot.keyClick(dialog.reason_edit, Qt.Key.Key_Return)  # Enter records the decision
    view = case_window.case_view
    qtbot.waitUntil(lambda: len(view.queue.decisions) == 1, timeout=10_000)
    assert view.queue.decisions[0].new_value == 0.4 and not dialog.isVisible()


def test_blind_mode_keeps_verdict_tabs_closed_whatever_opens_them(
    case_window,
    qtbot,
    stored_case,
):
    _, case = stored_case
    view = case_window.case_view
    qtbot.keyClick(case_window, Qt.Key.Key_B)
    for key in (Qt.Key.Key_1, Qt.Key.Key_3):  # dashboard, scorecard
        qtbot.keyClick(case_window, key, Qt.KeyboardModifier.ControlModifier)
        assert view.tabs.currentIndex() == 3 and "hidden in blind mode" in view.banner.text()
    case_window.open_case(case.case_id)  # opening a case normally lands on the dashboard
    qtbot.waitUntil(lambda: case_window.db.pending == 0, timeout=10_000)
    assert view.tabs.currentIndex() == 3


def test_the_blind_answer_dialog_preselects_nothing_and_needs_no_reason(
    case_window, qtbot, stored_case
):
    """Before, the blind answer dialog opened with the first value chosen (which may be the
    judge's own) and refused an answer without a reason."""
    _, case = stored_case
    gate = case.gates[0]
    view = case_window.case_view
    _go_to(case_window, f"gate/{gate.gate_id}")
    qtbot.keyClick(case_window, Qt.Key.Key_B)
    qtbot.keyClick(case_window, Qt.Key.Key_O)
    dialog = case_window.patients.override_dialog
    assert dialog.value_combo is not None and dialog.value_combo.currentIndex() == -1
    assert dialog.value() == ""
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and "Choose" in dialog.error.text()  # no answer: nothing
    dialog.value_combo.setCurrentIndex(0)
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)  # no reason typed
    qtbot.waitUntil(lambda: len(view.queue.decisions) == 1, timeout=10_000)
    stored = view.queue.decisions[0]
    assert stored.blind and stored.reason == "blind answer"
    with Repository.open() as repo:
        from concord.store.label_store import LabelStore

        how = LabelStore(repo).provenance()[stored.decision_id]
    assert how.bulk is False and how.judge_run == case.case_id
    assert how.seconds_on_item is not None
