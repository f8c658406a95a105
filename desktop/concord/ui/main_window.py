"""The main window: four pages — Patients (worklist and case), QA review (ASTRID), Answer
grading (EVAL), Agreement — the menus with every shortcut, blind mode, and the runners.

The window knows its pages only through `commands.Page`: it makes one QAction per
`Command`, enables those the page shown says act on it, and hands a triggered command to
that page. Blind mode (B) is one window-wide state, shown in the corner of the page tabs
(every page's header): every page hides the judge's verdicts until the reviewer answers.
The window fits the screen and remembers its geometry (`window_geometry`).
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QTabWidget,
    QWidget,
)

from concord import paths
from concord.accounts.session import Session
from concord.domain import TargetRef
from concord.errors import ConcordError
from concord.eval.agreement import LabelDisagreement
from concord.eval.grading import answer_of_target
from concord.pipeline import PanelSettings
from concord.store import ExportResult
from concord.ui import window_geometry
from concord.ui.agreement_view import AgreementView
from concord.ui.case_view import TAB_DECISIONS, CaseView
from concord.ui.commands import COMMANDS, Command, Page
from concord.ui.db import DbThread
from concord.ui.grading_view import GradingView
from concord.ui.messages import show_error
from concord.ui.patients_page import PatientsPage
from concord.ui.qa_page import QaReviewView
from concord.ui.shortcuts_dialog import ShortcutsDialog
from concord.ui.validation_page import ValidationPage
from concord.ui.workers import JobHost, JobRunner, PanelRunner
from concord.ui.worklist import WorklistView
from concord.workbench.imports import import_qa_file, import_question_file
from concord.workbench.label_export import export_labels
from concord.workbench.model_jobs import RuntimeFactory, default_runtime_factory
from concord.workbench.users import user_role

QA_FILTER = "QA items (*.jsonl *.csv);;All files (*)"
QUESTION_FILTER = "Question sets (*.jsonl *.json *.csv);;All files (*)"
UI_MAX_SPECIALISTS = 4
PAGE_PATIENTS, PAGE_QA, PAGE_GRADING, PAGE_AGREEMENT, PAGE_VALIDATION = range(5)
PAGE_TITLES = (
    "Patients",
    "QA review (ASTRID)",
    "Answer grading (EVAL)",
    "Agreement",
    "Site validation",
)
BLIND_TEXT = "BLIND MODE — verdicts hidden until you answer (B)"


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
        # one job thread and one Services for every long job of the window: the model is
        # loaded once and never decoded by two jobs at once (ui/workers.py)
        self.job_host = JobHost(runtime_factory, parent=self)
        self.runner = PanelRunner(parent=self, host=self.job_host)
        self.jobs = JobRunner(parent=self, host=self.job_host, label="an ASTRID or EVAL job")
        self.patients = PatientsPage(self.db, self.runner, self.user, self.settings, session)
        self.qa_view = QaReviewView(self.db, self.user, self.jobs)
        self.grading_view = GradingView(self.db, self.user, self.jobs)
        self.qa_view.signed_in = self.grading_view.signed_in = session
        self.agreement_view = AgreementView(self.db)
        self.validation_jobs = JobRunner(
            parent=self, host=self.job_host, label="a site validation run"
        )
        self.validation_page = ValidationPage(self.db, self.validation_jobs, self.user)
        self.page_list: list[Page] = [
            self.patients,
            self.qa_view,
            self.grading_view,
            self.agreement_view,
            self.validation_page,
        ]
        self.pages = QTabWidget()
        self.pages.setObjectName("mainPages")
        self.pages.setDocumentMode(True)
        widgets: tuple[QWidget, ...] = (
            self.patients,
            self.qa_view,
            self.grading_view,
            self.agreement_view,
            self.validation_page,
        )
        for page, widget in zip(self.page_list, widgets, strict=True):
            index = self.pages.addTab(widget, page.title)
            self.pages.setTabToolTip(index, page.tip)
        self.pages.setStyleSheet("QTabBar::tab { padding: 6px 16px; font-weight: bold; }")
        self.blind_label = QLabel(BLIND_TEXT)
        self.blind_label.setObjectName("blindIndicator")
        self.blind_label.setTextFormat(Qt.TextFormat.PlainText)
        self.blind_label.setStyleSheet(
            "background:#3b3b3b; color:white; font-weight:bold; padding:3px 10px; "
            "border-radius:3px; margin:2px"
        )
        self.blind_label.hide()
        self.pages.setCornerWidget(self.blind_label, Qt.Corner.TopRightCorner)
        self.setCentralWidget(self.pages)
        self.shortcuts_dialog: ShortcutsDialog | None = None
        self.session_lock: QObject | None = None  # locks the window after inactivity (app)
        self.blind = False

        self.status_label = QLabel()
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.statusBar().addPermanentWidget(self.status_label)
        self.status_label.setText(
            f"F1: keyboard shortcuts · user: {self.user} · database: {paths.database_path()}"
        )

        self.command_actions: dict[Command, QAction] = {}
        self._menus()
        self._connect()
        names, default, note = model_choices()
        self.case_view.run_panel.set_models(names, default, note)
        self.qa_view.judge.set_models(*model_choices("judge"))
        self.grading_view.generate.set_models(names, default, note)
        self.validation_page.set_models(names, default)
        self.pages.currentChanged.connect(self._page_changed)
        self._update_actions()
        self.worklist.table.setFocus()  # ↑/↓ and Enter work from the start
        self.refresh_worklist()
        user = self.user
        self.db.call(lambda repo: user_role(repo, user), self._role_loaded, lambda _exc: None)

    # the patients page's parts, by name (the demo controller and tests use them) --------

    @property
    def case_view(self) -> CaseView:
        return self.patients.case_view

    @property
    def worklist(self) -> WorklistView:
        return self.patients.worklist

    def open_case(self, case_id: str, then: Callable[[], None] | None = None) -> None:
        self.patients.open_case(case_id, then)

    def open_record(self, record_id: str, then: Callable[[], None] | None = None) -> None:
        self.patients.open_record(record_id, then)

    def refresh_worklist(self, select: str | None = None) -> None:
        self.patients.refresh_worklist(select)

    def run_current(self, model: str) -> None:
        self.patients.run_current(model)

    def in_case(self) -> bool:
        return self.pages.currentIndex() == PAGE_PATIENTS and self.patients.in_case()

    # wiring --------------------------------------------------------------------------

    def _connect(self) -> None:
        self.case_view.queue.blind_changed.connect(self.set_blind)
        self.qa_view.blind_requested.connect(self.set_blind)
        self.grading_view.blind_requested.connect(self.set_blind)
        self.qa_view.import_requested.connect(self.import_qa_dialog)
        self.grading_view.import_requested.connect(self.import_questions_dialog)
        self.agreement_view.open_item.connect(self.open_disagreement)
        self.agreement_view.export_requested.connect(self.export_labels_dialog)
        self.patients.case_opened.connect(self.case_opened.emit)
        self.patients.run_ended.connect(self.run_ended.emit)
        self.patients.status_message.connect(
            lambda text: self.statusBar().showMessage(text, 15_000)
        )
        for page in self.page_list:
            page.commands_changed.connect(self._update_actions)

    def _action(
        self,
        menu: QMenu,
        text: str,
        keys: tuple[str, ...],
        slot: Callable[[], None],
        tip: str = "",
    ) -> QAction:
        action = QAction(text, self)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        shown = " / ".join(keys)
        action.setToolTip(f"{tip or text} ({shown})")
        action.setStatusTip(f"{tip or text} — {shown}")
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        self.addAction(action)
        return action

    def _menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self._action(file, "Import records…", ("Ctrl+O",), self.patients.import_dialog)
        self._action(
            file,
            "Import a folder of patients…",
            ("Ctrl+Shift+I",),
            self.patients.import_folder_dialog,
            "Import every patient of a folder (one sub-folder or bundle each), with progress",
        )
        self._action(file, "Import QA items (ASTRID)…", ("Ctrl+Shift+O",), self.import_qa_dialog)
        self._action(
            file, "Import question set (EVAL)…", ("Ctrl+Alt+O",), self.import_questions_dialog
        )
        self._action(
            file,
            "Export labels (JSONL + CSV)…",
            ("Ctrl+Shift+E",),
            self.export_labels_dialog,
            "Every label with how it was given (blind, bulk, golden answers shown, seconds, "
            "judge run, unsafe)",
        )
        file.addSeparator()
        self._action(file, "Quit", ("Ctrl+Q",), lambda: None if self.close() else None)
        menus = {
            "Go": bar.addMenu("&Go"),
            "Case": bar.addMenu("&Case"),
            "Review": bar.addMenu("&Review"),
        }
        go = menus["Go"]
        for n, title in enumerate(PAGE_TITLES):
            self._action(go, title, (f"Alt+{n + 1}",), partial(self.show_page, n))
        self._action(go, "Worklist (patients)", ("Ctrl+L",), self.show_worklist)
        go.addSeparator()
        for command, spec in COMMANDS.items():
            self.command_actions[command] = self._action(
                menus[spec.menu],
                spec.text,
                spec.keys,
                partial(self.run_command, command),
                spec.tip,
            )
        menus["Review"].addSeparator()
        self.blind_action = self._action(
            menus["Review"],
            "Blind mode",
            ("B",),
            self.toggle_blind,
            tip="Blind mode: hide the judge's verdicts until you have answered",
        )
        self.blind_action.setCheckable(True)
        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "Keyboard shortcuts…", ("F1",), self.show_shortcuts)

    # pages ---------------------------------------------------------------------------

    def current_page(self) -> Page:
        return self.page_list[self.pages.currentIndex()]

    def run_command(self, command: Command) -> None:
        page = self.current_page()
        if command in page.commands():
            page.run_command(command)
        self._update_actions()

    def show_page(self, index: int) -> None:
        self.pages.setCurrentIndex(index)

    def _page_changed(self, _index: int) -> None:
        self.current_page().page_shown()
        self._update_actions()

    def _update_actions(self) -> None:
        """Enable the commands that act on the page shown, so elsewhere a key does what
        the focused widget does with it (type-ahead in a list, for example)."""
        active = self.current_page().commands()
        for command, action in self.command_actions.items():
            action.setEnabled(command in active)

    def show_worklist(self) -> None:
        self.pages.setCurrentIndex(PAGE_PATIENTS)
        self.patients.show_worklist()

    def show_tab(self, tab: int) -> None:
        if self.case_view.bundle is not None:
            self.pages.setCurrentIndex(PAGE_PATIENTS)
            self.patients.show_tab(tab)

    def show_shortcuts(self) -> None:
        self.shortcuts_dialog = ShortcutsDialog(self.menuBar(), self)
        self.shortcuts_dialog.open()

    def message(self, text: str, level: str = "error") -> None:
        """Show a message where the user is looking (the page's banner, or a dialog)."""
        self.current_page().show_message(text, level)
        self.statusBar().showMessage(text, 15_000)

    # blind mode ------------------------------------------------------------------------

    def set_blind(self, on: bool) -> None:
        """One blind mode for the whole window: every page hides the judge's verdicts."""
        self.blind = on
        self.blind_action.setChecked(on)
        for page in self.page_list:
            page.set_blind(on)
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

    # imports of QA sets and question sets ----------------------------------------------

    def import_qa_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Import QA items (ASTRID)", "", QA_FILTER)
        if name:
            self.import_qa(Path(name))

    def import_qa(self, path: Path) -> None:
        user = self.user
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
        self.pages.setCurrentIndex(PAGE_GRADING)
        self.db.call(
            lambda repo: import_question_file(repo, path, user),
            self.grading_view.imported,
            lambda exc: show_error(self, "Question set not imported", exc),
        )

    def export_labels_dialog(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self, "Export labels", "labels.jsonl", "Labels (*.jsonl);;All files (*)"
        )
        if name:
            self.export_labels(Path(name))

    def export_labels(self, path: Path) -> None:
        """Write every label with its provenance (JSONL, and CSV beside it)."""
        user = self.user

        def done(results: list[ExportResult]) -> None:
            text = " and ".join(f"{r.path} ({r.rows} labels)" for r in results)
            self.message(f"Labels exported: {text}", "info")

        self.db.call(
            lambda repo: export_labels(repo, path, user),
            done,
            lambda exc: show_error(self, "Labels not exported", exc),
        )

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        files = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if files:
            event.acceptProposedAction()
            self.pages.setCurrentIndex(PAGE_PATIENTS)
            self.patients.import_files(files)

    def open_disagreement(self, item: LabelDisagreement) -> None:
        """From the agreement page to the item, where it can be reviewed again."""
        answer_id = answer_of_target(item.target_id)
        if TargetRef.parse(item.target_id).kind.is_astrid:
            self.pages.setCurrentIndex(PAGE_QA)
            self.qa_view.open_run(None, item.case_id, item.target_id)
        elif answer_id is not None:
            self.pages.setCurrentIndex(PAGE_GRADING)
            self.grading_view.open_answer(item.case_id, answer_id)
        else:
            target = item.target_id

            def then() -> None:
                if self.case_view.queue.go_to_target(target):
                    self.case_view.tabs.setCurrentIndex(TAB_DECISIONS)

            self.pages.setCurrentIndex(PAGE_PATIENTS)
            self.open_case(item.case_id, then=then)

    # closing -------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        window_geometry.remember(self)
        self.runner.cancel()
        self.jobs.cancel()
        self.validation_jobs.cancel()
        self.job_host.shutdown(wait_ms=5_000)
        self.db.shutdown()
        super().closeEvent(event)

    def widget(self, name: str) -> QWidget | None:
        return self.findChild(QWidget, name)
