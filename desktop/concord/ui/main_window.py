"""The main window: four pages — Patients (worklist and case), QA review (ASTRID), Answer
grading (EVAL), Agreement — the menus with every shortcut, and the glue between the views,
the database thread and the two model runners: the panel runner (Patients) and the job
runner that the QA review and answer grading pages share (judge runs, answer generation).

Single-letter review keys (A, O, N, P, J, K, R, 1-3, G, X, L) are window actions, enabled
only on the pages where they mean something, and dispatched to the page being shown; Qt
never fires them while the focus is in a text box. Blind mode (B) is one window-wide
state: every page hides the judge's verdicts until the reviewer has answered."""

from __future__ import annotations

import getpass
import os
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QStackedWidget,
    QTabWidget,
    QWidget,
)

from concord import paths
from concord.accounts.session import Session
from concord.domain import CaseStatus, Decision
from concord.errors import ConcordError
from concord.eval.agreement import LabelDisagreement
from concord.eval.grading import Grade, answer_of_target
from concord.pipeline import PanelSettings, RunEvent
from concord.ui import loaders
from concord.ui.agreement_view import AgreementView
from concord.ui.case_view import TAB_DASHBOARD, TAB_DECISIONS, TAB_REVIEW, TAB_SCORECARD, CaseView
from concord.ui.db import DbThread
from concord.ui.decisions_view import OverrideDialog
from concord.ui.eval_loaders import import_question_file
from concord.ui.grading_view import GradingView
from concord.ui.messages import error_text, show_error
from concord.ui.qa_loaders import import_qa_file
from concord.ui.qa_view import QaReviewView
from concord.ui.shortcuts_dialog import ShortcutsDialog
from concord.ui.workers import (
    JobRunner,
    PanelRunner,
    RuntimeFactory,
    default_runtime_factory,
)
from concord.ui.worklist import WorklistView

RECORD_FILTER = (
    "Patient records (*.txt *.md *.json *.pdf *.png *.jpg *.jpeg *.tif *.tiff);;All files (*)"
)
QA_FILTER = "QA items (*.jsonl *.csv);;All files (*)"
QUESTION_FILTER = "Question sets (*.jsonl *.json *.csv);;All files (*)"
UI_MAX_SPECIALISTS = 4
PAGE_PATIENTS, PAGE_QA, PAGE_GRADING, PAGE_AGREEMENT = range(4)
PAGE_TITLES = ("Patients", "QA review (ASTRID)", "Answer grading (EVAL)", "Agreement")
PAGE_TIPS = (
    "Patient records, their cases, the side-by-side review and decisions (Alt+1)",
    "Review ASTRID judge verdicts on QA answers: grounding, relevance, refusal (Alt+2)",
    "Grade generated answers good or bad against expert golden answers (Alt+3)",
    "Judge vs human and between-annotator agreement, with the disagreeing items (Alt+4)",
)


def current_user() -> str:
    return os.environ.get("CONCORD_USER") or getpass.getuser()


def model_choices(role: str = "agent") -> tuple[list[str], str | None, str]:
    """Registered models with this role, the default, and a note when none can run."""
    try:
        from concord.llm.registry import ModelStore

        store = ModelStore.open()
        names = [e.name for e in store.entries() if e.has_role(role)]
        try:
            default = store.default()
        except ConcordError as exc:
            return names, None, exc.one_line()
        missing = [] if default.resolved_path().exists() else [default.name]
        note = f"The default model file is missing: {default.resolved_path()}" if missing else ""
        return names, default.name, note
    except ConcordError as exc:
        return [], None, exc.one_line()


class MainWindow(QMainWindow):
    case_opened = Signal(str)  # case id, or record id when not run
    run_ended = Signal(str)  # "finished", "cancelled" or "failed"

    def __init__(
        self,
        runtime_factory: RuntimeFactory = default_runtime_factory,
        user: str | None = None,
        settings: PanelSettings | None = None,
        session: Session | None = None,
    ) -> None:
        super().__init__()
        self.setWindowTitle("Concord — pre-operative risk review")
        self.setAcceptDrops(True)
        self.session = session  # the signed-in user; None: the window can look, not decide
        self.user = session.name if session is not None else (user or current_user())
        self.settings = settings or PanelSettings(judges=1, max_specialists=UI_MAX_SPECIALISTS)
        self.db = DbThread(parent=self)
        self.runner = PanelRunner(runtime_factory, parent=self)
        self.jobs = JobRunner(runtime_factory, parent=self)  # ASTRID judge, EVAL answers
        self.worklist = WorklistView()
        self.case_view = CaseView()
        self.stack = QStackedWidget()  # the Patients page: worklist <-> case
        self.stack.addWidget(self.worklist)
        self.stack.addWidget(self.case_view)
        self.qa_view = QaReviewView(self.db, self.user, self.jobs)
        self.grading_view = GradingView(self.db, self.user, self.jobs)
        self.qa_view.signed_in = self.grading_view.signed_in = session
        self.agreement_view = AgreementView(self.db)
        self.pages = QTabWidget()
        self.pages.setObjectName("mainPages")
        self.pages.setDocumentMode(True)
        for page, title, tip in zip(
            (self.stack, self.qa_view, self.grading_view, self.agreement_view),
            PAGE_TITLES,
            PAGE_TIPS,
            strict=True,
        ):
            index = self.pages.addTab(page, title)
            self.pages.setTabToolTip(index, tip)
        self.pages.setStyleSheet("QTabBar::tab { padding: 6px 16px; font-weight: bold; }")
        self.setCentralWidget(self.pages)
        self.override_dialog: OverrideDialog | None = None
        self.shortcuts_dialog: ShortcutsDialog | None = None
        self.loading = False
        self.blind = False
        self._loaded_pages: set[int] = set()

        self.blind_label = QLabel("BLIND MODE — verdicts hidden until you answer (B)")
        self.blind_label.setObjectName("blindIndicator")
        self.blind_label.setTextFormat(Qt.TextFormat.PlainText)
        self.blind_label.setStyleSheet(
            "background:#3b3b3b; color:white; font-weight:bold; padding:2px 8px; border-radius:3px"
        )
        self.blind_label.hide()
        self.statusBar().addPermanentWidget(self.blind_label)
        self.status_label = QLabel()
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.statusBar().addPermanentWidget(self.status_label)
        self.status_label.setText(
            f"F1: keyboard shortcuts · user: {self.user} · database: {paths.database_path()}"
        )

        self._connect()
        self._menus()
        names, default, note = model_choices()
        self.case_view.run_panel.set_models(names, default, note)
        self.qa_view.judge.set_models(*model_choices("judge"))
        self.grading_view.generate.set_models(names, default, note)
        self.pages.currentChanged.connect(self._page_changed)
        self._update_actions()
        self.worklist.table.setFocus()  # ↑/↓ and Enter work from the start
        self.refresh_worklist()
        user = self.user
        self.db.call(
            lambda repo: loaders.user_role(repo, user), self._role_loaded, lambda _exc: None
        )

    # wiring --------------------------------------------------------------------------

    def _connect(self) -> None:
        self.worklist.open_requested.connect(self.open_record)
        self.worklist.import_requested.connect(self.import_dialog)
        self.worklist.run_requested.connect(self.open_and_run)
        cv = self.case_view
        cv.back_requested.connect(self.show_worklist)
        cv.sign_requested.connect(self.sign_case)
        cv.run_panel.run_requested.connect(self.run_current)
        cv.run_panel.cancel_requested.connect(self.cancel_run)
        cv.queue.decision_made.connect(self._store_decision)
        cv.bar.accept_button.clicked.connect(self.accept_current)
        cv.bar.override_button.clicked.connect(self.override_current)
        cv.bar.next_button.clicked.connect(cv.queue.next)
        cv.bar.prev_button.clicked.connect(cv.queue.previous)
        cv.bar.reason.returnPressed.connect(self.case_view.tabs.setFocus)
        cv.queue.blind_changed.connect(self.set_blind)
        self.qa_view.blind_requested.connect(self.set_blind)
        self.grading_view.blind_requested.connect(self.set_blind)
        self.qa_view.import_requested.connect(self.import_qa_dialog)
        self.grading_view.import_requested.connect(self.import_questions_dialog)
        self.agreement_view.open_item.connect(self.open_disagreement)
        self.runner.progress.connect(self._run_progress)
        self.runner.finished.connect(self._run_finished)
        self.runner.failed.connect(self._run_failed)
        self.runner.cancelled.connect(self._run_cancelled)
        self.runner.busy_changed.connect(self._runner_busy)
        self.jobs.busy_changed.connect(lambda _busy: self._update_cancel())

    def _action(self, menu, text: str, keys: list[str], slot, tip: str = "") -> QAction:
        action = QAction(text, self)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        shown = " / ".join(keys)
        action.setToolTip(f"{tip or text} ({shown})")
        action.setStatusTip(f"{tip or text} — {shown}")
        action.triggered.connect(slot)
        menu.addAction(action)
        self.addAction(action)
        return action

    def _menus(self) -> None:
        bar = self.menuBar()
        f = bar.addMenu("&File")
        self._action(f, "Import records…", ["Ctrl+O"], self.import_dialog)
        self._action(f, "Import QA items (ASTRID)…", ["Ctrl+Shift+O"], self.import_qa_dialog)
        self._action(f, "Import question set (EVAL)…", ["Ctrl+Alt+O"], self.import_questions_dialog)
        f.addSeparator()
        self._action(f, "Quit", ["Ctrl+Q"], self.close)
        g = bar.addMenu("&Go")
        for n, title in enumerate(PAGE_TITLES):
            self._action(g, title, [f"Alt+{n + 1}"], lambda _=False, i=n: self.show_page(i))
        self._action(g, "Worklist (patients)", ["Ctrl+L"], self.show_worklist)
        g.addSeparator()
        self.tab_actions = [
            self._action(
                g, name, [f"Ctrl+{n}"], lambda _=False, t=tab: self.show_tab(t), tip=f"Case: {name}"
            )
            for n, (name, tab) in enumerate(
                (
                    ("Case dashboard", TAB_DASHBOARD),
                    ("Side-by-side review", TAB_REVIEW),
                    ("Scorecard", TAB_SCORECARD),
                    ("Decisions & queue", TAB_DECISIONS),
                ),
                start=1,
            )
        ]
        c = bar.addMenu("&Case")
        self.run_action = self._action(c, "Run agent panel", ["Ctrl+R"], self.run_shortcut)
        self.cancel_action = self._action(
            c,
            "Cancel run",
            ["Esc"],
            self.cancel_run,
            tip="Cancel the run (or the judge run / answer generation of the page shown)",
        )
        self.sign_action = self._action(c, "Sign…", ["Ctrl+Shift+S"], self.sign_case)
        c.addSeparator()
        self.judge_action = self._action(
            c, "Judge this QA set (ASTRID)", ["Ctrl+J"], lambda: self.qa_view.judge_set()
        )
        self.generate_action = self._action(
            c, "Generate answers (EVAL)", ["Ctrl+G"], lambda: self.grading_view.generate_answers()
        )
        r = bar.addMenu("&Review")
        self.accept_action = self._action(r, "Accept the judge's value", ["A"], self.key_accept)
        self.override_action = self._action(
            r, "Override / give my answer…", ["O"], self.key_override
        )
        self.next_action = self._action(r, "Next judgement / item / answer", ["N"], self.key_next)
        self.previous_action = self._action(
            r, "Previous judgement / item / answer", ["P"], self.key_previous
        )
        self.down_action = self._action(
            r, "Next verdict (QA) / next judgement", ["J"], self.key_down
        )
        self.up_action = self._action(
            r, "Previous verdict (QA) / previous judgement", ["K"], self.key_up
        )
        self.value_actions = [
            self._action(
                r,
                f"QA: answer with value {n}",
                [str(n)],
                lambda _=False, k=n: self.qa_view.choose_value(k),
            )
            for n in (1, 2, 3)
        ]
        self.good_action = self._action(
            r, "Grade answer good", ["G"], lambda: self.grading_view.grade(Grade.GOOD)
        )
        self.bad_action = self._action(
            r, "Grade answer bad", ["X"], lambda: self.grading_view.grade(Grade.BAD)
        )
        self.golden_action = self._action(
            r, "Show / hide golden answers", ["L"], self.grading_view.toggle_golden
        )
        self.reason_action = self._action(
            r,
            "Type a reason",
            ["R"],
            self.key_reason,
            tip="Type a reason (Enter returns to the queue)",
        )
        r.addSeparator()
        self.blind_action = self._action(
            r,
            "Blind mode",
            ["B"],
            self.toggle_blind,
            tip="Blind mode: hide the judge's verdicts until you have answered",
        )
        self.blind_action.setCheckable(True)
        h = bar.addMenu("&Help")
        self._action(h, "Keyboard shortcuts…", ["F1"], self.show_shortcuts)
        self.cancel_action.setEnabled(False)

    # pages ---------------------------------------------------------------------------

    def show_page(self, index: int) -> None:
        self.pages.setCurrentIndex(index)

    def _page_changed(self, index: int) -> None:
        first = index not in self._loaded_pages
        self._loaded_pages.add(index)
        if index == PAGE_QA:
            if first:
                self.qa_view.refresh()
            self.qa_view.focus_queue()
        elif index == PAGE_GRADING:
            if first:
                self.grading_view.refresh()
            self.grading_view.setFocus()
        elif index == PAGE_AGREEMENT:
            self.agreement_view.refresh()  # decisions may have been added anywhere
        self._update_actions()

    def _update_actions(self) -> None:
        """Enable the review keys only where they act, so elsewhere the key does what the
        focused widget does with it (type-ahead in a list, for example)."""
        page = self.pages.currentIndex()
        case = page == PAGE_PATIENTS and self.in_case()
        qa, grading = page == PAGE_QA, page == PAGE_GRADING
        for action in (self.accept_action, self.override_action):
            action.setEnabled(case or qa)
        for action in (self.next_action, self.previous_action, self.down_action, self.up_action):
            action.setEnabled(case or qa or grading)
        for action in self.value_actions:
            action.setEnabled(qa)
        for action in (self.good_action, self.bad_action, self.golden_action):
            action.setEnabled(grading)
        self.reason_action.setEnabled(case or qa or grading)
        self.sign_action.setEnabled(case)
        self.run_action.setEnabled(page == PAGE_PATIENTS)
        self.judge_action.setEnabled(qa)
        self.generate_action.setEnabled(grading)

    def show_worklist(self) -> None:
        self.pages.setCurrentIndex(PAGE_PATIENTS)
        self.stack.setCurrentWidget(self.worklist)
        self.worklist.table.setFocus()
        self._update_actions()
        self.refresh_worklist()

    def show_tab(self, tab: int) -> None:
        if self.case_view.bundle is not None:
            self.pages.setCurrentIndex(PAGE_PATIENTS)
            self.stack.setCurrentWidget(self.case_view)
            self.case_view.tabs.setCurrentIndex(tab)
            self._update_actions()

    def in_case(self) -> bool:
        return (
            self.pages.currentIndex() == PAGE_PATIENTS
            and self.stack.currentWidget() is self.case_view
            and self.case_view.case is not None
        )

    def show_shortcuts(self) -> None:
        self.shortcuts_dialog = ShortcutsDialog(self.menuBar(), self)
        self.shortcuts_dialog.open()

    # keys dispatched to the page being shown ------------------------------------------

    def key_accept(self) -> None:
        if self.pages.currentIndex() == PAGE_QA:
            self.qa_view.accept_current()
        else:
            self.accept_current()

    def key_override(self) -> None:
        if self.pages.currentIndex() == PAGE_QA:
            self.qa_view.override_current()
        else:
            self.override_current()

    def key_next(self) -> None:
        page = self.pages.currentIndex()
        if page == PAGE_QA:
            self.qa_view.next_item()
        elif page == PAGE_GRADING:
            self.grading_view.next()
        elif self.in_case():
            self.case_view.queue.next()

    def key_previous(self) -> None:
        page = self.pages.currentIndex()
        if page == PAGE_QA:
            self.qa_view.previous_item()
        elif page == PAGE_GRADING:
            self.grading_view.previous()
        elif self.in_case():
            self.case_view.queue.previous()

    def key_down(self) -> None:
        if self.pages.currentIndex() == PAGE_QA:
            self.qa_view.next_verdict()
        else:
            self.key_next()

    def key_up(self) -> None:
        if self.pages.currentIndex() == PAGE_QA:
            self.qa_view.previous_verdict()
        else:
            self.key_previous()

    def key_reason(self) -> None:
        page = self.pages.currentIndex()
        if page == PAGE_QA:
            self.qa_view.focus_reason()
        elif page == PAGE_GRADING:
            self.grading_view.focus_reason()
        elif self.in_case():
            self.case_view.bar.reason.setFocus()
            self.case_view.bar.reason.selectAll()

    # blind mode ------------------------------------------------------------------------

    def set_blind(self, on: bool) -> None:
        """One blind mode for the whole window: every page hides the judge's verdicts."""
        self.blind = on
        self.blind_action.setChecked(on)
        self.case_view.queue.set_blind(on)
        self.qa_view.set_blind(on)
        self.grading_view.set_blind(on)
        self.agreement_view.set_blind(on)
        self.worklist.model.set_blind(on)
        self.blind_label.setVisible(on)

    def toggle_blind(self) -> None:
        self.set_blind(not self.blind)
        self.statusBar().showMessage(
            "Blind mode ON: verdicts hidden until you answer" if self.blind else "Blind mode off",
            5_000,
        )

    def _role_loaded(self, role: str | None) -> None:
        if role == "annotator" and not self.blind:
            self.set_blind(True)
            self.statusBar().showMessage(
                f"{self.user} is an annotator: blind mode is on (B turns it off)", 10_000
            )

    def message(self, text: str, level: str = "error") -> None:
        """Show a message where the user is looking (case banner, or a dialog)."""
        if (
            self.pages.currentIndex() == PAGE_PATIENTS
            and self.stack.currentWidget() is self.case_view
        ):
            self.case_view.show_message(text, level)
        elif level == "error":
            show_error(self, "Concord", text)
        self.statusBar().showMessage(text, 15_000)

    def _db_error(self, title: str):
        def on_error(exc: BaseException) -> None:
            self.loading = False
            self.message(f"{title}: {error_text(exc)}")

        return on_error

    # worklist and import -------------------------------------------------------------

    def refresh_worklist(self) -> None:
        self.db.call(
            loaders.list_records,
            self.worklist.set_rows,
            self._db_error("Could not read the worklist"),
        )

    def import_dialog(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Import patient records", "", RECORD_FILTER)
        if files:
            self.import_files([Path(f) for f in files])

    def import_files(self, files: list[Path]) -> None:
        user = self.user

        def done(result: loaders.ImportResult) -> None:
            self.refresh_worklist()
            if result.imported:
                self.worklist.select(result.imported[-1][1])
                new = sum(1 for _, _, created in result.imported if created)
                self.statusBar().showMessage(
                    f"Imported {len(result.imported)} record(s) ({new} new)", 10_000
                )
            if result.errors:
                show_error(self, "Some files could not be imported", "\n".join(result.errors))

        self.db.call(
            lambda repo: loaders.import_paths(repo, files, user),
            done,
            self._db_error("Import failed"),
        )

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        files = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if files:
            event.acceptProposedAction()
            self.pages.setCurrentIndex(PAGE_PATIENTS)
            self.stack.setCurrentWidget(self.worklist)
            self.import_files(files)

    def import_qa_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Import QA items (ASTRID)", "", QA_FILTER)
        if name:
            self.import_qa(Path(name))

    def import_qa(self, path: Path) -> None:
        user = self.user
        self._loaded_pages.add(PAGE_QA)  # loaded once the import is done
        self.pages.setCurrentIndex(PAGE_QA)
        self.db.call(
            lambda repo: import_qa_file(repo, path, user),
            self.qa_view.imported,
            lambda exc: show_error(self, "QA items not imported", exc),
        )

    def import_questions_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(
            self, "Import question set (EVAL)", "", QUESTION_FILTER
        )
        if name:
            self.import_questions(Path(name))

    def import_questions(self, path: Path) -> None:
        user = self.user
        self._loaded_pages.add(PAGE_GRADING)  # loaded once the import is done
        self.pages.setCurrentIndex(PAGE_GRADING)
        self.db.call(
            lambda repo: import_question_file(repo, path, user),
            self.grading_view.imported,
            lambda exc: show_error(self, "Question set not imported", exc),
        )

    def open_disagreement(self, item: LabelDisagreement) -> None:
        """From the agreement page to the item, where it can be reviewed again."""
        if item.target_id.startswith("astrid/"):
            self._loaded_pages.add(PAGE_QA)  # open_run loads it
            self.pages.setCurrentIndex(PAGE_QA)
            self.qa_view.open_run(None, item.case_id, item.target_id)
        elif answer_of_target(item.target_id) is not None:
            self._loaded_pages.add(PAGE_GRADING)  # open_answer loads it
            self.pages.setCurrentIndex(PAGE_GRADING)
            self.grading_view.open_answer(item.case_id, answer_of_target(item.target_id))
        else:
            target = item.target_id

            def then() -> None:
                if self.case_view.queue.go_to_target(target):
                    self.case_view.tabs.setCurrentIndex(TAB_DECISIONS)

            self.open_case(item.case_id, then=then)

    # opening -------------------------------------------------------------------------

    def open_record(self, record_id: str, then=None) -> None:
        self.loading = True
        self.db.call(
            lambda repo: loaders.record_bundle(repo, record_id),
            lambda b: self._show_bundle(b, then),
            self._db_error("Could not open"),
        )

    def open_case(self, case_id: str, then=None) -> None:
        self.loading = True
        self.db.call(
            lambda repo: loaders.case_bundle(repo, case_id),
            lambda b: self._show_bundle(b, then),
            self._db_error("Could not open"),
        )

    def _show_bundle(self, bundle: loaders.CaseBundle, then=None) -> None:
        self.loading = False
        self.case_view.set_bundle(bundle, self.user)
        self.pages.setCurrentIndex(PAGE_PATIENTS)
        self.stack.setCurrentWidget(self.case_view)
        self._update_actions()
        if self.runner.running and self.runner.record_id == bundle.record.record_id:
            self.case_view.set_status(CaseStatus.RUNNING)
        self.case_view.tabs.setCurrentIndex(TAB_DASHBOARD if bundle.case else TAB_REVIEW)
        self.case_opened.emit(bundle.case.case_id if bundle.case else bundle.record.record_id)
        if then is not None:
            then()

    # running -------------------------------------------------------------------------

    def open_and_run(self, record_id: str) -> None:
        self.open_record(
            record_id, then=lambda: self.run_current(self.case_view.run_panel.model_name())
        )

    def run_shortcut(self) -> None:
        if self.pages.currentIndex() != PAGE_PATIENTS:
            return
        if self.stack.currentWidget() is self.worklist:
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
            self.message("A run is still in progress or stopping; wait for it to end.", "warning")
            return
        self.case_view.run_panel.started(self.settings.max_specialists)
        self.case_view.show_message("")
        self.case_view.set_status(CaseStatus.RUNNING)
        self.worklist.model.set_running(record_id)
        self.runner.start(record_id, model=model or None, settings=self.settings, user=self.user)

    def cancel_run(self) -> None:
        page = self.pages.currentIndex()
        if page == PAGE_QA and self.qa_view.judging:
            self.qa_view.cancel_judging()
        elif page == PAGE_GRADING and self.grading_view.generating:
            self.grading_view.cancel_generation()
        elif self.runner.running:
            self.runner.cancel()

    def _update_cancel(self) -> None:
        self.cancel_action.setEnabled(self.runner.worker_busy or self.jobs.worker_busy)

    def _run_progress(self, event: RunEvent) -> None:
        self.case_view.run_panel.on_event(event)
        self.statusBar().showMessage(event.message, 5_000)

    def _run_finished(self, case_id: str) -> None:
        self.case_view.run_panel.stopped("Run complete: the case is ready for review.", ok=True)
        self.worklist.model.set_running(None)
        self.refresh_worklist()
        self.open_case(case_id)
        self.run_ended.emit("finished")

    def _run_failed(self, error: BaseException) -> None:
        text = f"The run failed: {error_text(error)}"
        self.case_view.run_panel.stopped(text, ok=False)
        self._restore_status()
        self.case_view.show_message(text, "error")
        self.run_ended.emit("failed")

    def _run_cancelled(self) -> None:
        note = (
            "Run cancelled."
            if not self.runner.worker_busy
            else "Run cancelled; the model call under way finishes in the background and its "
            "result is discarded."
        )
        self.case_view.run_panel.stopped(note, ok=False)
        self._restore_status()
        self.case_view.show_message(note, "warning")
        self.run_ended.emit("cancelled")

    def _restore_status(self) -> None:
        self.worklist.model.set_running(None)
        bundle = self.case_view.bundle
        if bundle is not None:
            self.case_view.set_status(
                bundle.status
                if bundle.status != CaseStatus.RUNNING
                else (CaseStatus.NEEDS_REVIEW if bundle.case else CaseStatus.NOT_RUN)
            )
            if bundle.case is None:
                self.case_view.set_status(CaseStatus.NOT_RUN)

    def _runner_busy(self, busy: bool) -> None:
        self._update_cancel()
        if not busy and not self.runner.running:
            self.case_view.run_panel.set_can_run(True)

    # deciding ------------------------------------------------------------------------

    def accept_current(self) -> None:
        if not self.in_case():
            return
        queue = self.case_view.queue
        if queue.blind and not queue.verdict_visible():
            self.case_view.show_message(
                "Blind mode: give your own answer with O before the verdict is shown.", "warning"
            )
            return
        try:
            queue.accept(self.case_view.bar.reason.text())
        except ConcordError as exc:
            self.case_view.show_message(error_text(exc))

    def override_current(self) -> None:
        if not self.in_case() or self.case_view.queue.current is None:
            return
        queue = self.case_view.queue
        dialog = OverrideDialog(
            queue,
            queue.current,
            self.case_view.bar.reason.text(),
            queue.blind and not queue.verdict_visible(),
            self,
        )
        self.override_dialog = dialog
        dialog.finished.connect(self._dialog_closed)
        dialog.open()

    def _dialog_closed(self, _result: int) -> None:
        self.override_dialog = None
        self.activateWindow()  # keyboard review goes on in the main window

    def _store_decision(self, decision: Decision) -> None:
        case = self.case_view.case
        if case is None:
            return
        session = self.session
        self.case_view.bar.reason.clear()  # a reason belongs to one decision only
        if session is None:
            self.case_view.show_message("Sign in to record decisions.", "warning")
            return

        def done(result: loaders.DecisionResult) -> None:
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
            self.statusBar().showMessage(
                f"Decision stored ({decision.action.value} {decision.target_id})", 5_000
            )

        self.db.call(
            lambda repo: loaders.append_decision(repo, case, decision, session),
            done,
            self._db_error("The decision was not stored"),
        )

    # signing -------------------------------------------------------------------------

    def sign_case(self) -> None:
        case = self.case_view.case
        if case is None or self.case_view.bundle is None:
            return
        if not self.case_view.bundle.status.signable:
            self.case_view.show_message(
                "Only a reviewed (or amended) case can be signed: decide every required "
                "judgement first.",
                "warning",
            )
            return
        if self.session is None:
            self.case_view.show_message("Sign in to sign.", "warning")
            return
        from concord.ui.signin import ask_password

        password = ask_password(self, self.session.name, "Sign review record")
        if password is None:
            return
        out, _ = QFileDialog.getSaveFileName(
            self, "Save signed PDF", f"{case.case_id}.pdf", "PDF (*.pdf)"
        )
        if not out:
            return
        name, case_id = self.session.name, case.case_id

        def sign(repo):  # runs in the database thread
            from concord.accounts.session import sign_in
            from concord.signoff import sign_case

            signer = sign_in(repo, name, password)  # the password is asked again to sign
            return sign_case(repo, signer, case_id, out=Path(out))

        def done(result) -> None:
            self.case_view.set_status(CaseStatus.SIGNED)
            superseded = (
                f"; it supersedes signature #{result.supersedes}" if result.supersedes else ""
            )
            self.case_view.show_message(
                f"Signed by {name} at {result.signed_at:%Y-%m-%d %H:%M} UTC "
                f"({result.meaning}); PDF written to {result.path}{superseded}",
                "info",
            )
            self.refresh_worklist()

        def failed(exc: BaseException) -> None:
            self.case_view.show_message(f"The case was not signed: {error_text(exc)}")

        self.db.call(sign, done, failed)

    # closing -------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        self.runner.cancel()
        self.jobs.cancel()
        self.runner.shutdown(wait_ms=5_000)
        self.jobs.shutdown(wait_ms=5_000)
        self.db.shutdown()
        super().closeEvent(event)

    def widget(self, name: str) -> QWidget | None:
        return self.findChild(QWidget, name)
