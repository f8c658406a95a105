"""The review is about the patient: a red flag takes a disposition (never an accept), a major
finding is decided only after its evidence was opened (E), Ctrl+Z withdraws the last
decision, a decision on a signed case asks first, and a signed case says who reviewed it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from concord.domain import CaseStatus, Disposition, TargetKind
from concord.domain.decision_history import standing_decisions
from concord.store import Repository
from tests.ui.helpers import USER, idle


def _first_red_flag(view):
    queue = view.queue
    for index, entry in enumerate(queue.entries):
        if entry.is_disposition:
            queue.go(index)
            return entry
    raise AssertionError("no red flag in the case")


def test_a_red_flag_takes_a_disposition_after_its_evidence_is_opened(case_window, qtbot):
    view = case_window.case_view
    queue = view.queue
    first = queue.entries[0]
    assert first.required and first.is_disposition  # red flags first, by harm
    entry = _first_red_flag(view)
    assert view.bar.accept_button.isHidden()
    refer = view.bar.disposition_buttons[Disposition.REFER]
    assert refer.isVisible()
    qtbot.keyClick(case_window, Qt.Key.Key_A)  # no accept on a red flag
    assert not queue.decisions
    assert "disposition" in view.banner.text()
    view.bar.reason.setText("oncology to review lung function first")
    qtbot.mouseClick(refer, Qt.MouseButton.LeftButton)  # evidence not opened yet
    assert not queue.decisions and "evidence" in view.banner.text()
    qtbot.keyClick(case_window, Qt.Key.Key_E)  # to the record at its evidence
    qtbot.keyClick(case_window, Qt.Key.Key_E)  # and back
    view.bar.reason.setText("oncology to review lung function first")
    qtbot.mouseClick(refer, Qt.MouseButton.LeftButton)
    idle(qtbot, case_window, lambda: len(queue.decisions) == 1)
    made = queue.decisions[0]
    assert made.target_id == entry.target.id and made.target_kind == TargetKind.DISPOSITION
    assert made.new_value == "refer" and made.original_value is None
    history = view.decisions.history_model
    words = history.index(0, 2).data()
    assert "/" not in words and "Red flag" in words  # words, not the judgement's id
    assert "Refer before surgery" in history.index(0, 4).data()


def test_ctrl_z_withdraws_the_last_decision(case_window, qtbot):
    view = case_window.case_view
    queue = view.queue
    optional = next(i for i, e in enumerate(queue.entries) if not e.required)
    queue.go(optional)
    qtbot.keyClick(case_window, Qt.Key.Key_E)
    qtbot.keyClick(case_window, Qt.Key.Key_E)
    qtbot.keyClick(case_window, Qt.Key.Key_A)
    idle(qtbot, case_window, lambda: len(queue.decisions) >= 1)
    accepted = list(queue.decisions)
    assert standing_decisions(accepted)
    qtbot.keyClick(case_window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    idle(qtbot, case_window, lambda: len(queue.decisions) == 2 * len(accepted))
    withdrawals = queue.decisions[len(accepted) :]
    assert all(d.new_value is None and d.reason.startswith("undo:") for d in withdrawals)
    assert standing_decisions(queue.decisions) == []
    with Repository.open() as repo:
        stored = repo.decisions(case_id=view.case.case_id)
    assert len(stored) == 2 * len(accepted)  # appended, never edited


def test_a_decision_on_a_signed_case_asks_first(make_window, stored_case, qtbot):
    _, case = stored_case
    with Repository.open() as repo:
        repo.set_case_status(case.case_id, CaseStatus.SIGNED, USER, reason="test: signed")
    window = make_window()
    window.open_case(case.case_id)
    idle(qtbot, window, lambda: window.case_view.case is not None)
    view = window.case_view
    queue = view.queue
    optional = next(i for i, e in enumerate(queue.entries) if not e.required)
    queue.go(optional)
    qtbot.keyClick(window, Qt.Key.Key_E)
    qtbot.keyClick(window, Qt.Key.Key_E)
    qtbot.keyClick(window, Qt.Key.Key_A)
    box = window.patients.amend_box
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert "signed" in box.text() and "signed again" in box.text()
    idle(qtbot, window)
    assert not queue.decisions  # nothing recorded before the answer
    box.button(QMessageBox.StandardButton.Yes).click()
    idle(qtbot, window, lambda: bool(queue.decisions))
    with Repository.open() as repo:
        assert repo.case_status(case.case_id) == CaseStatus.AMENDED


def test_a_signed_case_says_who_reviewed_it(case_window):
    view = case_window.case_view
    view.set_status(CaseStatus.SIGNED, signed_by="Dr Anna Müller")
    assert view.review_badge.text() == "✓ Human review done by Dr Anna Müller"
    view.set_status(CaseStatus.AMENDED)
    assert "amended" in view.review_badge.text() and "Dr Anna Müller" in view.review_badge.text()
