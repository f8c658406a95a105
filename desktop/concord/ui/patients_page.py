"""The Patients page: the worklist and a case, the panel run of a record, the clinician's
decisions and the signature.

A run belongs to one record: its progress, its cancellation and its end are shown on that
record's case page only; opening another patient meanwhile shows that patient as it is
(with a note that a run is under way elsewhere), and coming back shows the run again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QStackedWidget, QWidget

from concord.accounts.session import Session
from concord.decisions import amends_signed_case
from concord.domain import CaseStatus, Decision
from concord.errors import ConcordError
from concord.pipeline import PanelSettings, RunEvent
from concord.records.load import file_filter
from concord.signoff import SignedRecord
from concord.ui.case_view import TAB_DASHBOARD, TAB_DECISIONS, TAB_REVIEW, TAB_SCORECARD, CaseView
from concord.ui.commands import Command
from concord.ui.db import DbThread
from concord.ui.decisions_view import OverrideDialog
from concord.ui.messages import error_text, show_error
from concord.ui.signing import SignFlow
from concord.ui.workers import JobRunner, PanelRunner
from concord.ui.worklist import WorklistView
from concord.workbench.case_bundle import CaseBundle, case_bundle, record_bundle
from concord.workbench.case_queue import action_text, judgement_words
from concord.workbench.decisions import DecisionResult, append_decisions
from concord.workbench.imports import ImportResult, ImportStep
from concord.workbench.model_jobs import import_job
from concord.workbench.worklist import Worklist, load_worklist, screen_rows

TABS = {
    Command.TAB_DASHBOARD: TAB_DASHBOARD,
    Command.TAB_REVIEW: TAB_REVIEW,
    Command.TAB_SCORECARD: TAB_SCORECARD,
    Command.TAB_DECISIONS: TAB_DECISIONS,
}
CASE_COMMANDS = frozenset(
    {
        Command.ACCEPT,
        Command.OVERRIDE,
        Command.NEXT,
        Command.PREVIOUS,
        Command.DOWN,
        Command.UP,
        Command.EVIDENCE,
        Command.REASON,
        Command.ACCEPT_OPTIONAL,
        Command.UNDO,
        Command.SIGN,
        *TABS,
    }
)


class PatientsPage(QStackedWidget):
    title = "Patients"
    tip = "Patient records, their cases, the side-by-side review and decisions (Alt+1)"
    commands_changed = Signal()
    case_opened = Signal(str)  # case id, or record id when not run
    run_ended = Signal(str)  # "finished", "cancelled" or "failed"
    status_message = Signal(str)  # for the window's status bar

    def __init__(
        self,
        db: DbThread,
        runner: PanelRunner,
        user: str,
        settings: PanelSettings,
        signed_in: Session | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("patientsPage")
        self.db = db
        self.runner = runner
        self.user = user
        self.signed_in = signed_in  # decides and signs as this user; None: look only
        self.settings = settings
        self.loading = False
        self.override_dialog: OverrideDialog | None = None
        self.bulk_box: QMessageBox | None = None
        self.amend_box: QMessageBox | None = None
        self._entry_key: object = None  # the judgement on screen, and since when (monotonic)
        self._entry_since = time.monotonic()
        self._last_event: RunEvent | None = None  # of the run under way, to show it again
        self._run_record: str | None = None  # the record whose run this page follows
        self._run_queued = False  # that run waits behind another page's job
        self._status_before_run = CaseStatus.NOT_RUN
        self.worklist = WorklistView()
        self.case_view = CaseView()
        self.addWidget(self.worklist)
        self.addWidget(self.case_view)
        # quick jobs on the window's one job thread (beside the runner's model jobs)
        self.importer = JobRunner(parent=self, host=runner.host, urgent=True, label="an import")
        self.signing = SignFlow(self, db, user, runner.host)
        self.screener = RedFlagScreener(self)
        self._worklist_generation = 0
        self._connect()

    def _connect(self) -> None:
        self.worklist.open_requested.connect(self.open_record)
        self.worklist.import_requested.connect(self.import_dialog)
        self.worklist.run_requested.connect(self.open_and_run)
        cv = self.case_view
        cv.back_requested.connect(self.show_worklist)
        cv.sign_requested.connect(self.sign_case)
        cv.run_panel.run_requested.connect(self.run_current)
        cv.run_panel.cancel_requested.connect(self.cancel_run)
        cv.queue.decisions_made.connect(self._store_decisions)
        cv.queue.current_changed.connect(self._entry_shown)
        cv.bar.accept_button.clicked.connect(self.accept_current)
        cv.bar.disposition_chosen.connect(self.dispose_current)
        cv.bar.override_button.clicked.connect(self.override_current)
        cv.bar.next_button.clicked.connect(cv.queue.next)
        cv.bar.prev_button.clicked.connect(cv.queue.previous)
        cv.bar.reason.returnPressed.connect(cv.tabs.setFocus)
        cv.decisions.accept_optional_requested.connect(self.accept_optional)
        self.runner.progress.connect(self._run_progress)
        self.runner.finished.connect(self._run_finished)
        self.runner.failed.connect(self._run_failed)
        self.runner.cancelled.connect(self._run_cancelled)
        self.runner.busy_changed.connect(self._runner_busy)
        self.runner.waiting.connect(self._run_waiting)
        self.importer.progress.connect(self._import_progress)
        self.importer.finished.connect(self._imported)
        self.importer.failed.connect(self._import_failed)
        self.importer.cancelled.connect(self.worklist.hide_import_progress)
        self.signing.signed.connect(self._signed)
        self.screener.screened.connect(self._worklist_screened)
        self.signing.failed.connect(lambda text: self.case_view.show_message(text))

    # the page protocol ---------------------------------------------------------------

    def in_case(self) -> bool:
        return self.currentWidget() is self.case_view and self.case_view.case is not None

    def commands(self) -> frozenset[Command]:
        found = {Command.RUN}
        if self.runner.worker_busy:
            found.add(Command.CANCEL)
        if self.currentWidget() is self.worklist:
            found.add(Command.TO_DO)
        elif self.in_case():
            found |= CASE_COMMANDS
        return frozenset(found)

    def run_command(self, command: Command) -> None:
        queue = self.case_view.queue
        actions: dict[Command, Callable[[], None]] = {
            Command.RUN: self.run_shortcut,
            Command.CANCEL: self.cancel_run,
            Command.TO_DO: self.worklist.toggle_to_do,
            Command.ACCEPT: self.accept_current,
            Command.OVERRIDE: self.override_current,
            Command.NEXT: queue.next,
            Command.DOWN: queue.next,
            Command.PREVIOUS: queue.previous,
            Command.UP: queue.previous,
            Command.EVIDENCE: self.case_view.toggle_evidence,
            Command.REASON: self.focus_reason,
            Command.ACCEPT_OPTIONAL: self.accept_optional,
            Command.UNDO: self.undo_last,
            Command.SIGN: self.sign_case,
        }
        if command in TABS:
            self.show_tab(TABS[command])
        elif command in actions:
            actions[command]()

    def page_shown(self) -> None:
        if self.currentWidget() is self.worklist:
            self.worklist.table.setFocus()

    def set_blind(self, on: bool) -> None:
        self.case_view.queue.set_blind(on)
        self.worklist.set_blind(on)

    def show_message(self, text: str, level: str = "error") -> None:
        if self.currentWidget() is self.case_view:
            self.case_view.show_message(text, level)
        elif text and level == "error":
            show_error(self, "Concord", text)

    def _db_error(self, title: str) -> Callable[[BaseException], None]:
        def on_error(exc: BaseException) -> None:
            self.loading = False
            self.show_message(f"{title}: {error_text(exc)}")
            self.status_message.emit(f"{title}: {error_text(exc)}")

        return on_error

    # worklist and import -------------------------------------------------------------

    def refresh_worklist(self, select: str | None = None) -> None:
        """Read the worklist again; select `select` (a record id) once it is shown. Records
        not run yet are screened in a thread of their own: the list shows at once and their
        red flags follow (the screen takes seconds to load)."""
        self._worklist_generation += 1
        generation = self._worklist_generation
        self.db.call(
            lambda repo: load_worklist(repo, None),
            lambda worklist: self._worklist_loaded(worklist, select, generation),
            self._db_error("Could not read the worklist"),
        )

    def _worklist_loaded(self, worklist: Worklist, select: str | None, generation: int) -> None:
        self.worklist.set_rows(worklist, select=select)
        if worklist.unscreened:
            self.worklist.screening = True
            self.screener.start(worklist, generation)

    def _worklist_screened(self, worklist: Worklist, generation: int) -> None:
        if generation != self._worklist_generation:
            return  # a later read of the worklist is on its way
        self.worklist.screening = False
        self.worklist.set_rows(worklist)
        if worklist.note:
            self.status_message.emit(worklist.note)

    def show_worklist(self) -> None:
        self.setCurrentWidget(self.worklist)
        self.worklist.table.setFocus()
        self.commands_changed.emit()
        self.refresh_worklist()

    def show_tab(self, tab: int) -> None:
        if self.case_view.bundle is not None:
            self.setCurrentWidget(self.case_view)
            self.case_view.tabs.setCurrentIndex(tab)
            self.commands_changed.emit()

    def import_dialog(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Import patient records", "", file_filter())
        if files:
            self.import_files([Path(f) for f in files])

    def import_folder_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Import a folder of patients (one sub-folder or bundle per patient)"
        )
        if folder:
            self.import_files([Path(folder)])

    def import_files(self, files: list[Path]) -> None:
        """Import in the window's job thread (OCR of a scan takes seconds a page), never
        waiting for a model run: an import runs at the run's next model call."""
        self.setCurrentWidget(self.worklist)
        self.commands_changed.emit()
        if self.importer.worker_busy:
            show_error(
                self,
                "An import is under way",
                "An import is still under way; import these files when it has ended.",
            )
            return
        self.importer.start_job(import_job(files, self.user))

    def _import_progress(self, step: object) -> None:
        if not isinstance(step, ImportStep):
            return
        self.worklist.show_import_progress(step.done, step.total)
        if step.label:
            self.status_message.emit(f"Importing: read {step.done} of {step.total} ({step.label})")

    def _imported(self, result: object) -> None:
        assert isinstance(result, ImportResult)
        self.worklist.hide_import_progress()
        self.refresh_worklist(select=result.last_record_id)  # the run key runs this one
        self.status_message.emit(result.summary())
        if result.skipped:
            lines = [result.summary() + "."]
            if result.errors:
                lines += ["", "Not imported:", *result.errors]
            if result.stray_files:
                lines += ["", "Files skipped (not patient records):", *result.stray_files]
            show_error(self, "Import finished with problems", "\n".join(lines))

    def _import_failed(self, exc: BaseException) -> None:
        self.worklist.hide_import_progress()
        self._db_error("Import failed")(exc)

    # opening -------------------------------------------------------------------------

    def open_record(self, record_id: str, then: Callable[[], None] | None = None) -> None:
        self.loading = True
        self.db.call(
            lambda repo: record_bundle(repo, record_id),
            lambda b: self._show_bundle(b, then),
            self._db_error("Could not open"),
        )

    def open_case(self, case_id: str, then: Callable[[], None] | None = None) -> None:
        self.loading = True
        self.db.call(
            lambda repo: case_bundle(repo, case_id),
            lambda b: self._show_bundle(b, then),
            self._db_error("Could not open"),
        )

    def _show_bundle(self, bundle: CaseBundle, then: Callable[[], None] | None = None) -> None:
        self.loading = False
        self.case_view.set_bundle(bundle, self.user)
        self.setCurrentWidget(self.case_view)
        self._show_run_state()
        self.case_view.tabs.setCurrentIndex(TAB_DASHBOARD if bundle.case else TAB_REVIEW)
        self.commands_changed.emit()
        self.case_opened.emit(bundle.case.case_id if bundle.case else bundle.record.record_id)
        if then is not None:
            then()

    def _show_run_state(self) -> None:
        """The run panel shows the run of THIS record only."""
        panel, record_id = self.case_view.run_panel, self.case_view.record_id
        if self.runner.running and self._run_record == record_id:
            self.case_view.set_status(CaseStatus.RUNNING)
            panel.started(self.settings.max_specialists)
            if self._last_event is not None:
                panel.on_event(self._last_event)
        elif self.runner.worker_busy:
            panel.reset("A run for another patient is under way (or stopping).", can_run=False)
        else:
            panel.reset()

    def _showing_run(self) -> bool:
        record_id = self.case_view.record_id
        return record_id is not None and record_id == self._run_record

    # running -------------------------------------------------------------------------

    def open_and_run(self, record_id: str) -> None:
        self.open_record(
            record_id, then=lambda: self.run_current(self.case_view.run_panel.model_name())
        )

    def run_shortcut(self) -> None:
        if self.currentWidget() is self.worklist:
            record_id = self.worklist.selected_record_id()
            if record_id:
                self.open_and_run(record_id)
        else:
            self.run_current(self.case_view.run_panel.model_name())

    def run_current(self, model: str) -> None:
        record_id = self.case_view.record_id
        if record_id is None:
            return
        if self.runner.worker_busy:
            self.case_view.show_message(
                "A run is still in progress or stopping; wait for it to end.", "warning"
            )
            return
        self._last_event = None
        self._run_record = record_id
        self._status_before_run = self.case_view.status or CaseStatus.NOT_RUN
        self.case_view.run_panel.started(self.settings.max_specialists)
        self.case_view.show_message("")
        self.case_view.set_status(CaseStatus.RUNNING)
        self.worklist.model.set_running(record_id)
        self.runner.start(record_id, model=model or None, settings=self.settings, user=self.user)

    def _run_waiting(self, label: str) -> None:
        """The run is queued behind another page's job: said as waiting, not running, until
        its first progress event."""
        text = f"Waiting for {label} to end (one model job at a time); the run starts then."
        self._run_queued = True
        if self._showing_run():
            self.case_view.run_panel.status.setText(text)
            self.case_view.status_badge.setText("Status: waiting for the model")
        self.status_message.emit(text)

    def cancel_run(self) -> None:
        if self.runner.running:
            self.runner.cancel()

    def _run_progress(self, event: object) -> None:
        if not isinstance(event, RunEvent):
            return
        self._last_event = event
        if self._run_queued:  # it has started
            self._run_queued = False
            if self._showing_run():
                self.case_view.set_status(CaseStatus.RUNNING)
        if self._showing_run():
            self.case_view.run_panel.on_event(event)
        self.status_message.emit(event.message)

    def _run_finished(self, case_id: object) -> None:
        self._run_queued = False
        showing = self._showing_run()
        self._run_record = None
        self.worklist.model.set_running(None)
        self.refresh_worklist()
        if showing:
            self.case_view.run_panel.stopped("Run complete: the case is ready for review.", ok=True)
            self.open_case(str(case_id))
        else:
            self.status_message.emit("A run finished: its case is in the worklist.")
        self.run_ended.emit("finished")

    def _run_failed(self, error: BaseException) -> None:
        text = f"The run failed: {error_text(error)}"
        self._run_stopped(text, "error")
        self.run_ended.emit("failed")

    def _run_cancelled(self) -> None:
        note = (
            "Run cancelled."
            if not self.runner.worker_busy
            else "Run cancelled; the model call under way finishes in the background and its "
            "result is discarded."
        )
        self._run_stopped(note, "warning")
        self.run_ended.emit("cancelled")

    def _run_stopped(self, text: str, level: str) -> None:
        """A failed or cancelled run: said once, on its own record's page (the run panel's
        line; an error also in the banner), or in the status bar when another page shows."""
        self.worklist.model.set_running(None)
        self._last_event = None
        self._run_queued = False
        showing = self._showing_run()
        self._run_record = None
        if not showing:
            self.status_message.emit(text)
            return
        self.case_view.run_panel.stopped(text, ok=False)
        self.case_view.set_status(self._status_before_run)  # as it was before the run
        if level == "error":
            self.case_view.show_message(text, level)

    def _runner_busy(self, busy: bool) -> None:
        self.commands_changed.emit()
        if not busy and not self.runner.running:
            self.case_view.run_panel.set_can_run(True)
            if not self._showing_run() and self.currentWidget() is self.case_view:
                self.case_view.run_panel.reset()

    # deciding ------------------------------------------------------------------------

    def focus_reason(self) -> None:
        self.case_view.bar.reason.setFocus()
        self.case_view.bar.reason.selectAll()

    def accept_current(self) -> None:
        if not self.in_case():
            return
        queue = self.case_view.queue
        if not queue.visible():
            self.case_view.show_message(
                "Blind mode: give your own answer with O before the verdict is shown.", "warning"
            )
            return
        try:
            queue.accept(self.case_view.bar.reason.text())
        except ConcordError as exc:
            self.case_view.show_message(error_text(exc))
        except ValueError as exc:  # the queue's rule: a red flag, or evidence not opened
            self.case_view.show_message(f"{exc}.", "warning")

    def dispose_current(self, disposition: str) -> None:
        """A red flag's disposition, with the reason typed in the decision bar."""
        if not self.in_case():
            return
        try:
            self.case_view.queue.dispose(disposition, self.case_view.bar.reason.text())
        except ConcordError as exc:
            self.case_view.show_message(error_text(exc))
            self.case_view.bar.reason.setFocus()
        except ValueError as exc:
            self.case_view.show_message(f"{exc}.", "warning")

    def undo_last(self) -> None:
        """Ctrl+Z: withdraw my last decision on this case (recorded as a withdrawal)."""
        if not self.in_case():
            return
        if not self.case_view.queue.undo():
            self.case_view.show_message("You have no decision on this case to undo.", "info")

    def override_current(self) -> None:
        queue = self.case_view.queue
        if not self.in_case() or queue.current is None:
            return
        dialog = OverrideDialog(
            queue,
            queue.current,
            self.case_view.bar.reason.text(),
            not queue.visible(),
            self,
        )
        self.override_dialog = dialog
        dialog.finished.connect(self._dialog_closed)
        dialog.open()

    def _dialog_closed(self, _result: int) -> None:
        self.override_dialog = None
        self.bulk_box = None
        self.window().activateWindow()  # keyboard review goes on in the main window

    def accept_optional(self) -> None:
        """Ctrl+Shift+A: after one confirmation (Enter), accept every optional judgement
        nobody has decided, recorded as a bulk accept."""
        queue = self.case_view.queue
        if not self.in_case():
            return
        if queue.blind:
            self.case_view.show_message(
                "Blind mode: the remaining judgements need your own answers.", "warning"
            )
            return
        n = len(queue.state.optional_open)  # judgements, as the queue and the PDF count
        if not n:
            self.case_view.show_message("No optional judgement is left undecided.", "info")
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Accept the remaining optional judgements",
            f"Accept the judge's value on the {n} optional judgement(s) nobody has decided?\n\n"
            "They are recorded as a bulk accept (not as reviewed one by one). Required "
            "judgements are not affected.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setObjectName("acceptOptionalBox")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        yes = box.button(QMessageBox.StandardButton.Yes)
        yes.clicked.connect(queue.accept_optional)  # (Yes is not an "accepted" role)
        box.finished.connect(self._dialog_closed)
        self.bulk_box = box
        box.open()

    def _entry_shown(self, entry: object) -> None:
        """The judgement on screen changed: its time starts now (kept with the decision)."""
        key = getattr(entry, "key", None)
        if key != self._entry_key:
            self._entry_key, self._entry_since = key, time.monotonic()

    def _store_decisions(self, decisions: list[Decision], confirmed: bool = False) -> None:
        case = self.case_view.case
        if case is None or not decisions:
            return
        status = self.case_view.status
        if not confirmed and status is not None and amends_signed_case(status):
            self._confirm_amendment(decisions)
            return
        self.case_view.bar.reason.clear()  # a reason belongs to one decision only
        signed_in = self.signed_in
        if signed_in is None:
            self.case_view.show_message("Sign in to record decisions.", "warning")
            return

        def done(result: DecisionResult) -> None:
            if self.case_view.case is None or self.case_view.case.case_id != case.case_id:
                return
            self.case_view.queue.set_decisions(result.decisions, advance=True)
            self.case_view.set_status(result.status)
            if result.became_reviewed:
                self.case_view.show_message(
                    "Every required judgement is decided: the case is reviewed and can be signed.",
                    "info",
                )
            elif result.became == CaseStatus.AMENDED:
                self.case_view.show_message(
                    "The case was signed: this decision amends it. Sign it again; the new "
                    "record will supersede the earlier one.",
                    "warning",
                )
            first = decisions[0]
            more = f" and {len(decisions) - 1} more" if len(decisions) > 1 else ""
            self.status_message.emit(
                f"Decision stored: {action_text(first)} — "
                f"{judgement_words(case, first.target_id)}{more}"
            )

        seconds = time.monotonic() - self._entry_since
        self.db.call(
            lambda repo: append_decisions(repo, case, decisions, signed_in, seconds=seconds),
            done,
            self._db_error("The decision was not stored"),
        )

    def _confirm_amendment(self, decisions: list[Decision]) -> None:
        """A decision on a signed case amends it: asked first, nothing recorded on Cancel."""
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Amend a signed case?",
            "This case is signed. Recording this decision amends it: the signed record no "
            "longer stands, the case must be signed again, and the new record will supersede "
            "the old one.\n\nRecord the decision and amend the case?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setObjectName("amendSignedBox")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        yes = box.button(QMessageBox.StandardButton.Yes)
        yes.setText("Amend the case")
        yes.clicked.connect(lambda: self._store_decisions(decisions, confirmed=True))
        box.finished.connect(self._dialog_closed)
        self.amend_box = box
        box.open()

    # signing -------------------------------------------------------------------------

    def sign_case(self) -> None:
        case = self.case_view.case
        if case is None:
            return
        status = self.case_view.status
        if status is None or not status.signable:
            self.case_view.show_message(
                "Only a reviewed (or amended) case can be signed: decide every required "
                "judgement first.",
                "warning",
            )
            return
        if self.signed_in is None:
            self.case_view.show_message("Sign in to sign.", "warning")
            return
        self.signing.start(case.case_id)

    def _signed(self, result: SignedRecord) -> None:
        self.case_view.set_status(CaseStatus.SIGNED, signed_by=self.user)
        superseded = f"; it supersedes signature #{result.supersedes}" if result.supersedes else ""
        self.case_view.show_message(
            f"Signed by {self.user} at {result.signed_at:%Y-%m-%d %H:%M} UTC "
            f"({result.meaning}); PDF written to {result.path}{superseded}",
            "info",
        )
        self.refresh_worklist()


class RedFlagScreener(QObject):
    """Screens the records not run yet in a thread of its own (pure computation on records
    already read), and hands the worklist back with their red flags."""

    screened = Signal(object, int)  # Worklist, generation

    def start(self, worklist: Worklist, generation: int) -> None:
        def work() -> None:
            self.screened.emit(screen_rows(worklist), generation)

        threading.Thread(target=work, name="concord-screen", daemon=True).start()
