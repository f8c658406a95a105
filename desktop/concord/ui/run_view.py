"""Run controls: model choice, one progress bar per agent and an overall one, Cancel."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from concord.pipeline import DEFAULT_MAX_SPECIALISTS, RunEvent, Stage
from concord.ui import theme
from concord.ui.job_panel import fill_model_combo

STAGE_TITLES = {
    Stage.LOAD: "Loading model",
    Stage.SCREEN: "Record screen",
    Stage.SURGEON: "Surgeon",
    Stage.ANAESTHETIST: "Anaesthetist",
    Stage.ADJUDICATION: "Adjudication",
}


JUDGES = "judges"  # the bar of the judge runs of every brief, decoded together


class RunPanel(QWidget):
    run_requested = Signal(str)  # model name ("" = default)
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runPanel")
        self.model_combo = QComboBox()
        self.model_combo.setObjectName("modelCombo")
        self.model_combo.setMinimumWidth(260)
        self.model_combo.setToolTip("Model from the local store (models/manifest.json)")
        self.run_button = QPushButton("Run agent panel (Ctrl+R)")
        self.run_button.setObjectName("runButton")
        self.cancel_button = QPushButton("Cancel run (Esc)")
        self.cancel_button.setObjectName("cancelButton")
        self.cancel_button.setEnabled(False)
        self.run_button.clicked.connect(lambda: self.run_requested.emit(self.model_name()))
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        self.status = QLabel("")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.overall = QProgressBar()
        self.overall.setObjectName("overallProgress")
        self.overall.setFormat("Overall %p%")
        self.bars: dict[str, QProgressBar] = {}
        self.bar_labels: dict[str, QLabel] = {}
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(8)
        self.bar_box = QWidget()
        self.bar_box.setLayout(self.grid)
        top = QHBoxLayout()
        top.addWidget(QLabel("Model:"))
        top.addWidget(self.model_combo)
        top.addWidget(self.run_button)
        top.addWidget(self.cancel_button)
        top.addWidget(self.status, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 2, 6, 2)
        lay.addLayout(top)
        lay.addWidget(self.overall)
        lay.addWidget(self.bar_box)
        self.overall.hide()
        self.bar_box.hide()
        self._done: set[str] = set()
        self._expected_specialists = DEFAULT_MAX_SPECIALISTS
        self._surgeon = False
        self._tick = QTimer(self)
        self._tick.setInterval(500)
        self._elapsed = 0.0
        self._tick.timeout.connect(self._on_tick)
        self._current: str | None = None

    def set_models(self, names: list[str], default: str | None, note: str = "") -> None:
        if not fill_model_combo(self.model_combo, names, default):
            self.run_button.setEnabled(False)
            self.run_button.setToolTip(note or "No model in the local store")
        if note:
            self.status.setText(note)

    def model_name(self) -> str:
        return str(self.model_combo.currentData() or "")

    # run lifecycle ---------------------------------------------------------------------

    def started(self, max_specialists: int) -> None:
        for bar_label in list(self.bar_labels.values()):
            bar_label.deleteLater()
        for bar in list(self.bars.values()):
            bar.deleteLater()
        self.bars, self.bar_labels, self._done = {}, {}, set()
        self._expected_specialists = max_specialists
        self._surgeon = False
        self.overall.setValue(0)
        self.overall.show()
        self.bar_box.show()
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status.setStyleSheet("")
        self.status.setText("Starting…")
        self._elapsed = 0.0
        self._tick.start()

    def _bar(self, key: str, title: str) -> QProgressBar:
        if key not in self.bars:
            row = len(self.bars)
            label = QLabel(title)
            label.setTextFormat(Qt.TextFormat.PlainText)
            bar = QProgressBar()
            bar.setObjectName(f"progress:{key}")
            bar.setRange(0, 1)
            bar.setValue(0)
            bar.setFormat("waiting")
            bar.setMaximumHeight(16)
            self.grid.addWidget(label, row // 3, (row % 3) * 2)
            self.grid.addWidget(bar, row // 3, (row % 3) * 2 + 1)
            self.bars[key] = bar
            self.bar_labels[key] = label
        return self.bars[key]

    def _set_busy(self, key: str, title: str) -> None:
        bar = self._bar(key, title)
        bar.setRange(0, 0)  # busy indicator while the agent writes
        self._current = key

    def _set_done(self, key: str, title: str, seconds: float, failed: bool = False) -> None:
        bar = self._bar(key, title)
        bar.setRange(0, 1)
        bar.setValue(1)
        bar.setFormat(f"done {seconds:.1f} s" if not failed else "FAILED")
        self._done.add(key)
        if self._current == key:
            self._current = None

    def on_event(self, event: RunEvent) -> None:
        agent = event.agent or ""
        if event.stage is Stage.LOAD:
            self._set_busy(Stage.LOAD, STAGE_TITLES[Stage.LOAD])
        elif event.stage is Stage.SCREEN:
            self._set_done(Stage.LOAD, STAGE_TITLES[Stage.LOAD], 0.0)
            self._set_done(Stage.SCREEN, STAGE_TITLES[Stage.SCREEN], event.seconds)
        elif event.stage in (Stage.SURGEON, Stage.ANAESTHETIST):
            self._surgeon = self._surgeon or event.stage is Stage.SURGEON
            if event.done < event.total:
                self._set_busy(event.stage, STAGE_TITLES[event.stage])
            else:
                self._set_done(
                    event.stage,
                    STAGE_TITLES[event.stage],
                    event.seconds,
                    failed=event.message.endswith("failed"),
                )
        elif event.stage is Stage.SPECIALIST:
            self._expected_specialists = event.total
            key = f"spec:{agent}"
            if "writing" not in event.message:
                self._set_done(
                    key,
                    theme.agent_title(agent),
                    event.seconds,
                    failed=event.message.endswith("failed"),
                )
            else:
                self._set_busy(key, theme.agent_title(agent))
        elif event.stage is Stage.ADJUDICATION and not agent:  # all briefs' judge runs at once
            if event.done < event.total:
                self._set_busy(JUDGES, "Judges")
            else:
                self._set_done(JUDGES, "Judges", event.seconds)
        elif event.stage is Stage.ADJUDICATION:
            self._set_done(f"judge:{agent}", f"Judge vs {theme.agent_title(agent)}", event.seconds)
        elif event.stage is Stage.DONE:
            self.overall.setValue(100)
        self.status.setText(event.message)
        self._update_overall()

    def _update_overall(self) -> None:
        expected = 3 + (1 if self._surgeon else 0) + 2 * self._expected_specialists
        expected += 1 if JUDGES in self.bars else 0
        value = int(100 * min(len(self._done), expected) / max(1, expected))
        self.overall.setValue(max(self.overall.value(), min(value, 99)))

    def _on_tick(self) -> None:
        self._elapsed += 0.5
        if self._current and self._current in self.bars:
            self.bars[self._current].setFormat(f"{self._elapsed:.0f} s")

    def stopped(self, message: str, *, ok: bool) -> None:
        self._tick.stop()
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        for key, bar in self.bars.items():
            if key not in self._done:
                bar.setRange(0, 1)
                bar.setValue(0)
                bar.setFormat("stopped")
        if ok:
            self.overall.setValue(100)
            self.overall.hide()
            self.bar_box.hide()  # a finished run needs no more room than its status line
        self.status.setStyleSheet("" if ok else f"color:{theme.RED}; font-weight:bold")
        self.status.setText(message)

    def set_can_run(self, can: bool, why: str = "") -> None:
        self.run_button.setEnabled(can and bool(self.model_name()))
        if why:
            self.run_button.setToolTip(why)

    def reset(self, message: str = "", *, can_run: bool = True) -> None:
        """Idle, showing nothing of an earlier run: for a patient whose run this is not."""
        self._tick.stop()
        self._current = None
        self.overall.hide()
        self.bar_box.hide()
        self.cancel_button.setEnabled(False)
        self.status.setStyleSheet("")
        self.status.setText(message)
        self.set_can_run(can_run)
