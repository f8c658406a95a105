"""The controls of a model job on the QA review and answer grading pages: model chooser,
start button, Cancel, one progress bar and a status line. The page owns the job; this
widget only shows it; a `JobFollower` connects a page's panel to the window's job runner."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QWidget,
)

from concord.ui import theme
from concord.ui.messages import error_text
from concord.ui.workers import JobRunner
from concord.workbench.model_jobs import Job, JobProgress


def fill_model_combo(combo: QComboBox, names: list[str], default: str | None) -> bool:
    """List the store's models, the default one marked and selected; an empty store shows
    "no model registered". Returns whether there is a model to run."""
    combo.clear()
    for name in names:
        combo.addItem(name + ("  (default)" if name == default else ""), name)
    if default in names:
        combo.setCurrentIndex(names.index(default))
    if not names:
        combo.addItem("no model registered", "")
    return bool(names)


class JobPanel(QWidget):
    start_requested = Signal(str)  # model name ("" = the default model)
    cancel_requested = Signal()

    def __init__(self, button_text: str, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{name}Panel")
        self.model_combo = QComboBox()
        self.model_combo.setObjectName(f"{name}Model")
        self.model_combo.setMinimumWidth(220)
        self.model_combo.setToolTip("Model from the local store (models/manifest.json)")
        self.start_button = QPushButton(button_text)
        self.start_button.setObjectName(f"{name}Start")
        self.start_button.clicked.connect(lambda: self.start_requested.emit(self.model_name()))
        self.cancel_button = QPushButton("Cancel (Esc)")
        self.cancel_button.setObjectName(f"{name}Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        self.bar = QProgressBar()
        self.bar.setObjectName(f"{name}Bar")
        self.bar.setFixedWidth(200)
        self.bar.hide()
        self.status = QLabel()
        self.status.setObjectName(f"{name}Status")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.extra = QHBoxLayout()  # the page's own settings (temperature, K, …)
        self.extra.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Model:"))
        row.addWidget(self.model_combo)
        row.addLayout(self.extra)
        row.addWidget(self.start_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.bar)
        row.addWidget(self.status, 1)
        self._can_start = True
        self._running = False
        self._has_models = True

    def set_models(self, names: list[str], default: str | None, note: str = "") -> None:
        self._has_models = fill_model_combo(self.model_combo, names, default)
        if not names:
            self.start_button.setToolTip(note or "No model in the local store")
        if note:
            self.status.setText(note)
        self._update()

    def model_name(self) -> str:
        return str(self.model_combo.currentData() or "")

    def set_can_start(self, can: bool) -> None:
        """Whether the page has something to run on and the job runner is free."""
        self._can_start = can
        self._update()

    def _update(self) -> None:
        self.start_button.setEnabled(self._can_start and self._has_models and not self._running)
        self.cancel_button.setEnabled(self._running)

    @property
    def running(self) -> bool:
        return self._running

    def started(self, message: str) -> None:
        self._running = True
        self.bar.setRange(0, 0)  # busy until the first progress event
        self.bar.show()
        self.status.setStyleSheet("")
        self.status.setText(message)
        self._update()

    def on_progress(self, event: JobProgress) -> None:
        self.bar.setRange(0, max(1, event.total))
        self.bar.setFormat("%v / %m")
        self.bar.setValue(event.done)
        self.status.setText(event.message)

    def stopped(self, message: str, *, ok: bool) -> None:
        self._running = False
        self.bar.hide()
        self.status.setStyleSheet("" if ok else f"color:{theme.RED}; font-weight:bold")
        self.status.setText(message)
        self._update()


class JobFollower(QObject):
    """Follows the one job a page starts in the window's shared job runner.

    It remembers the key the job runs for (a set id), forwards the runner's progress to
    the page's JobPanel only while following, and on the end stops following: `done(key,
    result)` after success; after a failure or cancel it updates the panel and the start
    button and emits `stopped(key, text, level)` for the page's banner. `failed_text` and
    `cancelled_text` are the page's words for those ends; `has_target` says whether the
    page shows something to run on."""

    done = Signal(str, object)  # key, the job's result
    stopped = Signal(str, str, str)  # key, message, banner level ("error" / "warning")
    following_changed = Signal(bool)

    def __init__(
        self,
        jobs: JobRunner | None,
        panel: JobPanel,
        has_target: Callable[[], bool],
        *,
        failed_text: str,
        cancelled_text: str,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.panel = panel
        self._has_target = has_target
        self._failed_text = failed_text
        self._cancelled_text = cancelled_text
        self.key: str | None = None  # what the job this page follows runs for
        panel.setVisible(jobs is not None)
        if jobs is not None:
            jobs.progress.connect(self._progress)
            jobs.finished.connect(self._finished)
            jobs.failed.connect(self._failed)
            jobs.cancelled.connect(self._cancelled)
            jobs.busy_changed.connect(lambda _busy: self.update_button())
            jobs.waiting.connect(self._waiting)

    @property
    def following(self) -> bool:
        return self.key is not None

    def update_button(self) -> None:
        free = self.jobs is not None and not self.jobs.worker_busy
        self.panel.set_can_start(free and self._has_target())

    def can_start(self) -> bool:
        """False when there is no runner, this page already follows a job, or the runner
        is still busy (said on the panel)."""
        if self.jobs is None or self.key is not None:
            return False
        if self.jobs.worker_busy:
            self.panel.status.setText(
                "Another model job is still running or stopping; wait for it to end."
            )
            return False
        return True

    def start(self, key: str, job: Job, message: str) -> None:
        assert self.jobs is not None
        self.key = key
        self.panel.started(message)
        self.jobs.start_job(job)
        self.following_changed.emit(True)

    def cancel(self) -> None:
        if self.jobs is not None and self.key is not None:
            self.jobs.cancel()

    def _waiting(self, label: str) -> None:
        if self.key is not None:
            self.panel.status.setText(
                f"Waiting for {label} to end (one model job at a time); this job starts then."
            )

    def _progress(self, event: object) -> None:
        if self.key is not None and isinstance(event, JobProgress):
            self.panel.on_progress(event)

    def _finished(self, result: object) -> None:
        key, self.key = self.key, None
        if key is not None:
            self.following_changed.emit(False)
            self.done.emit(key, result)

    def _failed(self, error: BaseException) -> None:
        if self.key is not None:
            self._stop(f"{self._failed_text}: {error_text(error)}", "error")

    def _cancelled(self) -> None:
        if self.key is None:
            return
        busy = self.jobs is not None and self.jobs.worker_busy
        self._stop(
            self._cancelled_text
            + (" The model call under way finishes in the background." if busy else ""),
            "warning",
        )

    def _stop(self, text: str, level: str) -> None:
        key, self.key = self.key, None
        self.following_changed.emit(False)
        self.panel.stopped(text, ok=False)
        self.update_button()
        self.stopped.emit(key, text, level)
