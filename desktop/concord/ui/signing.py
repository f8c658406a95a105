"""Sign… (Ctrl+Shift+S): the sign dialog first — the patient, the red flags with the
disposition recorded for each, how many judgements were reviewed one by one, accepted in
bulk and not reviewed, and what the signature means — with the signer's password; the
password is checked in the database thread; only then where to save the PDF; then the
signature, written in the window's job thread (rendering and signing the PDF takes seconds;
it waits at most for one model call of a run under way). A wrong password (or a user who
may not sign) is said at once, before any file dialog."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from concord.accounts.session import Session
from concord.signoff import SignedRecord
from concord.ui import theme
from concord.ui.db import DbThread
from concord.ui.messages import error_text
from concord.ui.theme import plain_label
from concord.ui.workers import JobHost, JobRunner
from concord.workbench.model_jobs import sign_job
from concord.workbench.signing import MEANING_NOTE, SignSummary, check_signer, sign_summary


class SignDialog(QDialog):
    """What is being signed, and the signer's password."""

    def __init__(self, summary: SignSummary, signer: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("signDialog")
        self.setWindowTitle("Sign the review record")
        self.setModal(True)
        self.setMinimumWidth(560)
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        patient = plain_label(summary.patient, bold=True, style="font-size:12pt")
        patient.setObjectName("signPatient")
        form.addRow("Patient:", patient)
        form.addRow("", plain_label(summary.identity))
        form.addRow("Operation:", plain_label(summary.operation))
        form.addRow("Case:", plain_label(summary.case_id))
        flags = (
            "\n".join(
                f"{'⚑' if severity == 'major' else '△'} {title} ({severity}): {what}"
                for title, severity, what in summary.red_flags
            )
            or "none: the record screen fired no red flag"
        )
        flag_label = plain_label(flags)
        flag_label.setObjectName("signRedFlags")
        form.addRow("Red flags and your dispositions:", flag_label)
        counts = plain_label(summary.counts(), bold=True)
        counts.setObjectName("signCounts")
        form.addRow("Review:", counts)
        meaning = plain_label(summary.meaning, bold=True)
        meaning.setObjectName("signMeaning")
        form.addRow("Meaning of the signature:", meaning)
        note = plain_label(MEANING_NOTE, style="color:#333")
        form.addRow(note)
        form.addRow("Signer:", plain_label(signer, bold=True))
        self.password = QLineEdit()
        self.password.setObjectName("signPassword")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText("your password: it unlocks your signing key")
        form.addRow("Password:", self.password)
        if summary.tally.required_left:
            warn = plain_label(
                f"{summary.tally.required_left} required judgement(s) are not decided: the "
                "case cannot be signed yet.",
                style=f"color:{theme.RED}; font-weight:bold",
            )
            form.addRow(warn)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Sign…")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(buttons)
        self.password.setFocus(Qt.FocusReason.OtherFocusReason)


def ask_signature(parent: QWidget, summary: SignSummary, signer: str) -> str | None:
    """The sign dialog; the password typed, or None when cancelled."""
    dialog = SignDialog(summary, signer, parent)
    if dialog.exec() != QDialog.DialogCode.Accepted or not dialog.password.text():
        return None
    return dialog.password.text()


class SignFlow(QObject):
    signed = Signal(object)  # SignedRecord
    failed = Signal(str)  # one line for the case banner

    def __init__(self, window: QWidget, db: DbThread, name: str, host: JobHost) -> None:
        super().__init__(window)
        self.window = window
        self.db = db
        self.name = name
        self.jobs = JobRunner(parent=self, host=host, urgent=True, label="signing a PDF")
        self.jobs.finished.connect(self._signed)
        self.jobs.failed.connect(self._not_signed)
        self.jobs.cancelled.connect(lambda: self.failed.emit("The case was not signed: cancelled."))

    @property
    def busy(self) -> bool:
        return self.jobs.worker_busy

    def start(self, case_id: str) -> None:
        if self.jobs.worker_busy:
            self.failed.emit("A signed PDF is still being written; sign again when it is done.")
            return
        self.db.call(
            lambda repo: sign_summary(repo, case_id),
            lambda summary: self._ask(case_id, summary),
            lambda exc: self.failed.emit(f"The case was not signed: {error_text(exc)}"),
        )

    def _ask(self, case_id: str, summary: SignSummary) -> None:
        password = ask_signature(self.window, summary, self.name)
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
        self.jobs.start_job(sign_job(signer, case_id, Path(out)))

    def _signed(self, result: object) -> None:
        assert isinstance(result, SignedRecord)
        self.signed.emit(result)

    def _not_signed(self, exc: BaseException) -> None:
        self.failed.emit(f"The case was not signed: {error_text(exc)}")
