"""Sign… (Ctrl+Shift+S): the password first, checked in the database thread; only then where
to save the PDF; then the signature. A wrong password is said at once, before any file
dialog."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit, QWidget

from concord.signoff import SignedRecord
from concord.ui.db import DbThread
from concord.ui.messages import error_text
from concord.workbench.signing import check_signer, sign


class SignFlow(QObject):
    signed = Signal(object)  # SignedRecord
    failed = Signal(str)  # one line for the case banner

    def __init__(self, window: QWidget, db: DbThread, user: str) -> None:
        super().__init__(window)
        self.window = window
        self.db = db
        self.user = user

    def start(self, case_id: str) -> None:
        password, ok = QInputDialog.getText(
            self.window,
            "Sign review record",
            f"Password for {self.user}:",
            QLineEdit.EchoMode.Password,
        )
        if not ok:
            return
        user = self.user
        self.db.call(
            lambda repo: check_signer(repo, user, password),
            lambda _none: self._choose_file(case_id, password),
            lambda exc: self.failed.emit(f"The case was not signed: {error_text(exc)}"),
        )

    def _choose_file(self, case_id: str, password: str) -> None:
        out, _ = QFileDialog.getSaveFileName(
            self.window, "Save signed PDF", f"{case_id}.pdf", "PDF (*.pdf)"
        )
        if not out:
            return
        user = self.user
        self.db.call(
            lambda repo: sign(repo, case_id, user, password, Path(out)),
            self._signed,
            lambda exc: self.failed.emit(f"The case was not signed: {error_text(exc)}"),
        )

    def _signed(self, result: SignedRecord) -> None:
        self.signed.emit(result)
