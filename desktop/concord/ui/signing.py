"""Sign… (Ctrl+Shift+S): the password first, checked in the database thread; only then where
to save the PDF; then the signature. A wrong password (or a user who may not sign) is said
at once, before any file dialog."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from concord.accounts.session import Session
from concord.signoff import SignedRecord
from concord.ui.db import DbThread
from concord.ui.messages import error_text
from concord.ui.signin import ask_password
from concord.workbench.signing import check_signer, sign


class SignFlow(QObject):
    signed = Signal(object)  # SignedRecord
    failed = Signal(str)  # one line for the case banner

    def __init__(self, window: QWidget, db: DbThread, name: str) -> None:
        super().__init__(window)
        self.window = window
        self.db = db
        self.name = name

    def start(self, case_id: str) -> None:
        password = ask_password(self.window, self.name, "Sign review record")
        if password is None:
            return
        name = self.name
        self.db.call(
            lambda repo: check_signer(repo, name, password),
            lambda signer: self._choose_file(case_id, signer),
            lambda exc: self.failed.emit(f"The case was not signed: {error_text(exc)}"),
        )

    def _choose_file(self, case_id: str, signer: Session) -> None:
        out, _ = QFileDialog.getSaveFileName(
            self.window, "Save signed PDF", f"{case_id}.pdf", "PDF (*.pdf)"
        )
        if not out:
            return
        self.db.call(
            lambda repo: sign(repo, signer, case_id, Path(out)),
            self._signed,
            lambda exc: self.failed.emit(f"The case was not signed: {error_text(exc)}"),
        )

    def _signed(self, result: SignedRecord) -> None:
        self.signed.emit(result)
