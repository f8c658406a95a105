"""The controls of a model job on the QA review and answer grading pages: model chooser,
start button, Cancel, one progress bar and a status line. The page owns the job; this
widget only shows it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QWidget,
)

from concord.ui import theme
from concord.ui.workers import JobProgress


class JobPanel(QWidget):
    start_requested = Signal(str)  # model name ("" = the default model)
    cancel_requested = Signal()

    def __init__(self, button_text: str, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{name}Panel")
        self.model_combo = QComboBox(objectName=f"{name}Model")
        self.model_combo.setMinimumWidth(220)
        self.model_combo.setToolTip("Model from the local store (models/manifest.json)")
        self.start_button = QPushButton(button_text, objectName=f"{name}Start")
        self.start_button.clicked.connect(
            lambda: self.start_requested.emit(self.model_name()))
        self.cancel_button = QPushButton("Cancel (Esc)", objectName=f"{name}Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        self.bar = QProgressBar(objectName=f"{name}Bar")
        self.bar.setFixedWidth(200)
        self.bar.hide()
        self.status = QLabel(objectName=f"{name}Status")
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
        self.model_combo.clear()
        for name in names:
            self.model_combo.addItem(name + ("  (default)" if name == default else ""), name)
        if default in names:
            self.model_combo.setCurrentIndex(names.index(default))
        self._has_models = bool(names)
        if not names:
            self.model_combo.addItem("no model registered", "")
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
        self.start_button.setEnabled(self._can_start and self._has_models
                                     and not self._running)
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
