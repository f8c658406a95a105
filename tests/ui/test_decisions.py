"""Accept / override by keyboard, history, blind mode, the queue's progress and resume."""

from __future__ import annotations

from PySide6.QtCore import Qt
from tests.ui.conftest import USER

from concord.domain import CaseStatus, DecisionAction
from concord.store import Repository


def _go_to(window, target_id: str) -> None:  # noqa: ANN001
    assert window.case_view.queue.go_to_target(target_id)


def test_override_by_keyboard_is_stored_and_in_history(case_window, qtbot, stored_case):  # noqa: ANN001
    _, case = stored_case
    card = case.scorecards[0]
    target_id = f"{card.specialist}/subscore/coverage"
    _go_to(case_window, target_id)
    qtbot.keyClick(case_window, Qt.Key.Key_O)
    dialog = case_window.override_dialog
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


def test_bad_override_value_is_refused_with_a_message(case_window, qtbot, stored_case):  # noqa: ANN001
    _, case = stored_case
    _go_to(case_window, f"{case.scorecards[0].specialist}/overall")
    qtbot.keyClick(case_window, Qt.Key.Key_O)
    dialog = case_window.override_dialog
    dialog.set_value("250")
    dialog.reason_edit.setText("typo")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible()
    assert "between 0 and 100" in dialog.error.text()
    dialog.reject()


def test_blind_mode_hides_the_verdict_until_answered(case_window, qtbot, stored_case):  # noqa: ANN001
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
    dialog = case_window.override_dialog
    assert "Judge's value" not in [dialog.layout().itemAt(i).widget().text()
                                   for i in range(dialog.layout().count())
                                   if hasattr(dialog.layout().itemAt(i).widget(), "text")]
    dialog.set_value("55")
    dialog.reason_edit.setText("my own estimate")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(view.queue.decisions) == 1, timeout=10_000)
    stored = view.queue.decisions[0]
    assert stored.blind and stored.new_value == 55.0
    _go_to(case_window, target_id)
    assert verdict in view.bar.verdict.text()  # revealed once answered


def test_keyboard_queue_progress_resume_and_reviewed(make_window, case_window, qtbot,  # noqa: ANN001
                                                     stored_case):
    _, case = stored_case
    view = case_window.case_view
    q = view.queue
    total = q.total
    assert view.bar.progress.maximum() == total and view.bar.progress.value() == 0
    qtbot.keyClick(case_window, Qt.Key.Key_N)
    assert q.index == 1
    qtbot.keyClick(case_window, Qt.Key.Key_K)
    assert q.index == 0
    required = sum(1 for r in q.rows if r.required)
    for n in range(required):  # required judgements come first; A advances
        qtbot.keyClick(case_window, Qt.Key.Key_A)
        qtbot.waitUntil(lambda n=n: q.done == n + 1, timeout=10_000)
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


def test_disagreement_badge_goes_to_the_disagreement(case_window, stored_case, qtbot):  # noqa: ANN001
    _, case = stored_case
    view = case_window.case_view
    badge = view.dashboard.badges[0]
    qtbot.mouseClick(badge, Qt.MouseButton.LeftButton)
    specialist, did = badge.objectName().split(":", 1)[1].split("/")
    assert view.queue.current.id == f"{specialist}/disagreement/{did}"
    assert view.tabs.currentIndex() == 3
