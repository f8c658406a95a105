"""The sign-in dialog and the inactivity lock."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QWidget

from concord.store import Repository
from concord.ui.signin import SessionLock, SignInDialog
from tests.identity import PASSWORD, enrol


def test_sign_in_checks_the_password_and_hands_back_a_session(qtbot, repo: Repository) -> None:
    enrol(repo, "Dr Smith", "clinician")
    dialog = SignInDialog()
    qtbot.addWidget(dialog)
    dialog.user_edit.setText("Dr Smith")
    dialog.password_edit.setText("not-the-password")
    dialog.try_sign_in()
    assert dialog.session is None and "wrong password" in dialog.error.text()
    assert dialog.password_edit.text() == ""  # never kept after a try
    dialog.password_edit.setText(PASSWORD)
    dialog.try_sign_in()
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.session is not None and dialog.session.name == "Dr Smith"


def test_the_window_locks_after_inactivity_and_only_the_password_unlocks(
    qtbot, repo: Repository
) -> None:
    session = enrol(repo, "Dr Smith", "clinician")
    window = QWidget()
    qtbot.addWidget(window)
    window.show()
    lock = SessionLock(window, session, minutes=0.002)  # about 0.1 s
    qtbot.waitUntil(lambda: lock.locked, timeout=5_000)
    dialog = lock.dialog
    assert dialog.isVisible() and dialog.user_edit.isReadOnly()
    assert dialog.user_edit.text() == "Dr Smith"
    dialog.password_edit.setText("not-the-password")
    dialog.try_sign_in()
    assert lock.locked and dialog.isVisible()
    dialog.password_edit.setText(PASSWORD)
    dialog.try_sign_in()
    qtbot.waitUntil(lambda: not lock.locked, timeout=5_000)
    assert window.isVisible()
