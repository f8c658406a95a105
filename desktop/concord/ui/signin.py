"""Signing in to the desktop app, locking it after inactivity, and asking the password again.

* `SignInDialog`: user name + password; checks them with `concord.accounts.session.sign_in`
  (failed attempts are audited) and hands back a `Session`.
* `SessionLock`: after the installation's `lock_minutes` without keyboard or mouse input the
  window is covered by a modal `LockDialog` that only the signed-in user's password opens
  (or quits).
* `ask_password`: the password asked again before signing a record.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QInputDialog,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from concord.accounts.session import Session, sign_in
from concord.accounts.settings import DEFAULT_LOCK_MINUTES, lock_minutes
from concord.errors import ConcordError
from concord.store import Repository
from concord.ui.theme import plain_label


def lock_after_minutes() -> float:
    """Inactivity before the app locks: the installation's setting, signed by an admin
    (`concord settings set lock_minutes N --admin ADMIN`, 1-60, default 10). Not read from
    the user's environment: nobody at the keyboard can turn the lock off."""
    with Repository.open() as repo:
        return lock_minutes(repo)


_INPUT_EVENTS = (
    QEvent.Type.KeyPress,
    QEvent.Type.MouseButtonPress,
    QEvent.Type.MouseMove,
    QEvent.Type.Wheel,
)


def _check(name: str, password: str) -> Session:
    with Repository.open() as repo:
        return sign_in(repo, name, password)


class SignInDialog(QDialog):
    """Who is at the keyboard. `session` is set when the dialog is accepted."""

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        user: str = "",
        locked: bool = False,
        note: str = "",
        minutes: float = DEFAULT_LOCK_MINUTES,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("lockDialog" if locked else "signInDialog")
        self.setWindowTitle("Concord — locked" if locked else "Concord — sign in")
        self.setModal(True)
        self.session: Session | None = None
        self.user_edit = QLineEdit(user)
        self.user_edit.setObjectName("signInUser")
        self.user_edit.setReadOnly(locked)
        self.password_edit = QLineEdit()
        self.password_edit.setObjectName("signInPassword")
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.error = plain_label(style="color:#b71c1c")
        self.error.setObjectName("signInError")
        intro = (
            f"Concord locked itself after {minutes:g} minutes without use. "
            f"Type the password of {user} to go on, or quit."
            if locked
            else "Sign in with your Concord user name and password. Every decision, import, "
            "run and signature is recorded under your name."
        )
        form = QFormLayout()
        form.addRow("User:", self.user_edit)
        form.addRow("Password:", self.password_edit)
        buttons = QDialogButtonBox()
        self.ok_button = buttons.addButton(
            "Unlock" if locked else "Sign in", QDialogButtonBox.ButtonRole.AcceptRole
        )
        buttons.addButton("Quit", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.try_sign_in)
        buttons.rejected.connect(self.reject)
        self.setMinimumWidth(460)  # the wrapped intro and a long error line stay readable
        layout = QVBoxLayout(self)
        layout.addWidget(plain_label(intro))
        if note:
            layout.addWidget(plain_label(note, style="color:#7a5a00"))
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        (self.password_edit if user else self.user_edit).setFocus()

    def try_sign_in(self) -> None:
        name, password = self.user_edit.text().strip(), self.password_edit.text()
        self.password_edit.clear()
        if not name or not password:
            self.error.setText("Type your user name and password.")
            self.adjustSize()
            return
        try:
            self.session = _check(name, password)
        except ConcordError as exc:
            self.error.setText(exc.one_line())
            self.adjustSize()  # room for the error line
            return
        self.accept()


def ask_password(parent: QWidget, name: str, title: str) -> str | None:
    """The password typed again (before signing); None when cancelled."""
    password, ok = QInputDialog.getText(
        parent, title, f"Password for {name}:", QLineEdit.EchoMode.Password
    )
    return password if ok and password else None


class SessionLock(QObject):
    """Locks `window` after inactivity: watches the application's input events."""

    def __init__(self, window: QWidget, session: Session, minutes: float | None = None):
        super().__init__(window)
        if minutes is None:
            minutes = lock_after_minutes()
        if not (math.isfinite(minutes) and minutes > 0):  # never off, whatever is passed
            minutes = DEFAULT_LOCK_MINUTES
        self.window = window
        self.session = session
        self.locked = False
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.lock)
        self.minutes = minutes
        app = QApplication.instance()
        if app is not None and minutes > 0:
            app.installEventFilter(self)
            self.timer.start(int(minutes * 60_000))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not self.locked and event.type() in _INPUT_EVENTS and self.minutes > 0:
            self.timer.start(int(self.minutes * 60_000))
        return False

    def lock(self) -> None:
        if self.locked:
            return
        self.locked = True
        dialog = SignInDialog(
            self.window, user=self.session.name, locked=True, minutes=self.minutes
        )
        self.dialog = dialog
        dialog.finished.connect(self._closed)
        dialog.open()

    def _closed(self, result: int) -> None:
        dialog = self.dialog
        self.locked = False
        if result != QDialog.DialogCode.Accepted or dialog.session is None:
            self.window.close()
            return
        self.timer.start(int(self.minutes * 60_000))
