"""Site validation: what this site accepted (and what the installed files made stale), a
model validation with a progress bar and Cancel, the stored reports with the models side by
side (a chart with 95% intervals, the policy's checks), and the silent runs — stored and
compared, never in a review queue.

The data and the job are Qt-free (`concord.workbench.validation`); accepting a model is
signed by a clinician and an admin on the command line (`concord validate accept`).
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from concord.site.figures import ModelFigures, ModelReport, ResourcesReport
from concord.ui.commands import Command
from concord.ui.db import DbThread
from concord.ui.messages import error_text, show_banner
from concord.ui.theme import plain_label
from concord.ui.workers import JobRunner
from concord.validation.chart import FIGURES, Bar
from concord.workbench.model_jobs import JobProgress
from concord.workbench.validation import (
    ValidationOverview,
    load_overview,
    load_report,
    report_bars,
    validation_job,
)

MODEL_COLOURS = ("#1565C0", "#9E9E9E")
SILENT_TEXT = "SILENT — not for clinical review"


class ValidationChart(QWidget):
    """Grouped bars on a 0–1 scale with 95% interval whiskers, one colour per model."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("validationChart")
        self.setMinimumHeight(220)
        self.bars: list[Bar] = []

    def set_bars(self, bars: list[Bar]) -> None:
        self.bars = bars
        self.update()

    def models(self) -> list[str]:
        seen: list[str] = []
        for bar in self.bars:
            if bar.model not in seen:
                seen.append(bar.model)
        return seen

    def paintEvent(self, event: QPaintEvent) -> None:
        del event
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor("white"))
        if not self.bars:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No report selected")
            return
        models = self.models()
        left, top, bottom = 40.0, 28.0, self.height() - 30.0
        width = self.width() - left - 10
        height = bottom - top
        for tick in (0.0, 0.5, 1.0):
            y = bottom - tick * height
            painter.setPen(QPen(QColor("#DDDDDD")))
            painter.drawLine(int(left), int(y), int(left + width), int(y))
            painter.setPen(QPen(QColor("#333333")))
            painter.drawText(
                QRectF(0, y - 8, left - 6, 16), Qt.AlignmentFlag.AlignRight, f"{tick:g}"
            )
        group = width / len(FIGURES)
        bar_w = group * 0.7 / max(len(models), 1)
        for g, (figure, _attr) in enumerate(FIGURES):
            x0 = left + g * group + group * 0.15
            painter.setPen(QPen(QColor("#333333")))
            painter.drawText(
                QRectF(left + g * group, bottom + 4, group, 20),
                Qt.AlignmentFlag.AlignCenter,
                figure,
            )
            for m, model in enumerate(models):
                bar = next((b for b in self.bars if b.figure == figure and b.model == model), None)
                if bar is None:
                    continue
                colour = QColor(MODEL_COLOURS[min(m, len(MODEL_COLOURS) - 1)])
                value = max(0.0, min(1.0, bar.value or 0.0))
                x = x0 + m * bar_w
                painter.fillRect(
                    QRectF(x, bottom - value * height, bar_w * 0.9, value * height), colour
                )
                mid = x + bar_w * 0.45
                if bar.low is not None and bar.high is not None:
                    lo = bottom - max(0.0, min(1.0, bar.low)) * height
                    hi = bottom - max(0.0, min(1.0, bar.high)) * height
                    painter.setPen(QPen(QColor("black"), 1.2))
                    painter.drawLine(int(mid), int(lo), int(mid), int(hi))
                    painter.drawLine(int(mid - 4), int(lo), int(mid + 4), int(lo))
                    painter.drawLine(int(mid - 4), int(hi), int(mid + 4), int(hi))
                painter.setPen(QPen(QColor("#111111")))
                label = "n/a" if bar.value is None else f"{bar.value:.2f}"
                painter.drawText(
                    QRectF(x - 10, bottom - value * height - 16, bar_w + 20, 14),
                    Qt.AlignmentFlag.AlignCenter,
                    label,
                )
        for m, model in enumerate(models):
            colour = QColor(MODEL_COLOURS[min(m, len(MODEL_COLOURS) - 1)])
            painter.fillRect(QRectF(left + m * 220, 6, 10, 10), colour)
            painter.setPen(QPen(QColor("#111111")))
            painter.drawText(
                QRectF(left + m * 220 + 14, 2, 200, 18), Qt.AlignmentFlag.AlignLeft, model
            )
        painter.end()


def _table(headers: list[str], name: str) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _fill(table: QTableWidget, rows: list[list[str]]) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(value))


def figure_rows(report: ModelReport) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the side-by-side table."""
    models: list[ModelFigures] = [report.candidate] + (
        [report.accepted] if report.accepted is not None else []
    )

    def kappa(m: ModelFigures) -> str:
        a = m.judge_agreement
        if a.kappa is None:
            return f"undefined (n={a.n})"
        interval = (
            f" [{a.ci_low:.2f}, {a.ci_high:.2f}]"
            if a.ci_low is not None and a.ci_high is not None
            else ""
        )
        return f"{a.kappa:.2f}{interval} n={a.n}"

    def num(value: float | None, unit: str) -> str:
        return "—" if value is None else f"{value:,.0f} {unit}"

    headers = ["Figure", *[f"{m.model_name} ({m.role})" for m in models]]
    rows = [
        ["Patients run", *[str(m.records) for m in models]],
        ["Valid outputs", *[m.valid_outputs.text() for m in models]],
        ["Verified evidence", *[m.verified_evidence.text() for m in models]],
        ["Gates addressed", *[m.gates_addressed.text() for m in models]],
        ["Judge vs clinicians (κ, 95% CI)", *[kappa(m) for m in models]],
        [
            "ASTRID agreement",
            *[
                "not labelled"
                if m.astrid_agreement is None
                else f"κ {m.astrid_agreement.kappa} n={m.astrid_agreement.n}"
                for m in models
            ],
        ],
        ["Time per patient", *[num(m.seconds_per_patient, "s") for m in models]],
        ["Peak memory", *[num(m.peak_memory_mb, "MB") for m in models]],
    ]
    return headers, rows


class ValidationPage(QWidget):
    """The Site validation page."""

    title = "Site validation"
    tip = "Measure a model on this site's decided cases, beside the accepted one (Alt+5)"
    commands_changed = Signal()

    def __init__(
        self, db: DbThread, jobs: JobRunner, user: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("validationPage")
        self.db, self.jobs, self.user = db, jobs, user
        self.overview: ValidationOverview | None = None
        self.status = plain_label()
        self.status.setObjectName("validationStatus")
        self.banner = plain_label()
        self.banner.hide()
        self.model = QComboBox()
        self.model.setObjectName("validationModel")
        self.sample = QSpinBox()
        self.sample.setRange(0, 10_000)
        self.sample.setSpecialValueText("all")
        self.sample.setPrefix("sample: ")
        self.start_button = QPushButton("Validate on the reference set")
        self.start_button.setObjectName("validationStart")
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.jobs.cancel)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setObjectName("validationProgress")
        self.progress_text = plain_label()
        self.reports = _table(
            ["Validation", "Kind", "Created", "By", "Passes policy"], "validationReports"
        )
        self.reports.cellClicked.connect(lambda row, _c: self.show_report(row))
        self.figures = _table(["Figure"], "validationFigures")
        self.chart = ValidationChart()
        self.checks = _table(["Check", "Threshold", "Value", "Result"], "validationChecks")
        self.silent = _table(["Case", "Record", "Model", "Run at", "Mode"], "validationSilent")
        controls = QHBoxLayout()
        controls.addWidget(plain_label("Candidate model:"))
        controls.addWidget(self.model, 1)
        controls.addWidget(self.sample)
        controls.addWidget(self.start_button)
        controls.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(plain_label("Site validation", bold=True, style="font-size:12pt"))
        layout.addWidget(self.status)
        layout.addWidget(self.banner)
        layout.addLayout(controls)
        layout.addWidget(self.progress)
        layout.addWidget(self.progress_text)
        body = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(plain_label("Reports", bold=True))
        left.addWidget(self.reports, 2)
        left.addWidget(plain_label("Silent runs (stored and compared, never reviewed)", bold=True))
        left.addWidget(self.silent, 1)
        right = QVBoxLayout()
        right.addWidget(self.figures, 2)
        right.addWidget(self.chart, 2)
        right.addWidget(self.checks, 1)
        body.addLayout(left, 2)
        body.addLayout(right, 3)
        layout.addLayout(body, 1)
        self.jobs.progress.connect(self._progress)
        self.jobs.finished.connect(self._finished)
        self.jobs.failed.connect(lambda exc: self._stopped(f"Validation failed: {error_text(exc)}"))
        self.jobs.cancelled.connect(lambda: self._stopped("Validation cancelled."))
        self.jobs.waiting.connect(
            lambda label: self.progress_text.setText(
                f"Waiting for {label} to end (one model job at a time); validation starts then."
            )
        )

    # the page protocol ---------------------------------------------------------------

    def commands(self) -> frozenset[Command]:
        return frozenset()

    def run_command(self, command: Command) -> None:
        del command

    def page_shown(self) -> None:
        self.refresh()

    def set_blind(self, on: bool) -> None:
        del on  # figures of models, not verdicts on any item under review

    def show_message(self, text: str, level: str = "error") -> None:
        show_banner(self.banner, text, level)

    # data ----------------------------------------------------------------------------

    def set_models(self, names: list[str], default: str | None) -> None:
        self.model.clear()
        self.model.addItems(names)
        if default in names:
            self.model.setCurrentText(default)

    def refresh(self) -> None:
        self.db.call(load_overview, self._loaded, lambda exc: self.show_message(error_text(exc)))

    def _loaded(self, overview: ValidationOverview) -> None:
        self.overview = overview
        self.status.setText("\n".join(overview.status_lines))
        _fill(
            self.reports,
            [
                [
                    r["validation_id"],
                    r["kind"],
                    str(r["created_at"])[:16].replace("T", " "),
                    r["created_by"],
                    "yes" if r["passed"] else "NO",
                ]
                for r in overview.reports
            ],
        )
        _fill(
            self.silent,
            [
                [
                    s.case_id,
                    s.record_name,
                    s.model_name,
                    s.created_at[:16].replace("T", " "),
                    SILENT_TEXT,
                ]
                for s in overview.silent
            ],
        )
        if overview.reports and self.reports.currentRow() < 0:
            self.show_report(0)

    def show_report(self, row: int) -> None:
        if self.overview is None or not 0 <= row < len(self.overview.reports):
            return
        self.reports.selectRow(row)
        validation_id = str(self.overview.reports[row]["validation_id"])
        self.db.call(
            lambda repo: load_report(repo, validation_id),
            self._report_loaded,
            lambda exc: self.show_message(error_text(exc)),
        )

    def _report_loaded(self, report: ModelReport | ResourcesReport) -> None:
        if isinstance(report, ResourcesReport):
            self.figures.setColumnCount(2)
            self.figures.setHorizontalHeaderLabels(["Gate", "Changes"])
            _fill(
                self.figures,
                [
                    [gate, ", ".join(f"{k} {v}" for k, v in counts.items() if v)]
                    for gate, counts in sorted(report.per_gate.items())
                ],
            )
            self.chart.set_bars([])
            _fill(self.checks, [["confirmed findings dropped", "0", str(report.dropped_confirmed),
                                 "pass" if report.passed else "REFUSED"]])  # fmt: skip
            return
        headers, rows = figure_rows(report)
        self.figures.setColumnCount(len(headers))
        self.figures.setHorizontalHeaderLabels(headers)
        _fill(self.figures, rows)
        self.chart.set_bars(report_bars(report))
        _fill(
            self.checks,
            [[c.name, c.threshold, c.value, "pass" if c.passed else "FAIL"] for c in report.checks],
        )

    # the job -------------------------------------------------------------------------

    def start(self) -> None:
        model = self.model.currentText()
        if not model:
            self.show_message("No model is registered.")
            return
        sample = self.sample.value() or None
        self.start_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setRange(0, 0)
        self.progress_text.setText(f"Validating {model}…")
        self.jobs.start_job(validation_job(model, sample, self.user))

    def _progress(self, event: object) -> None:
        if isinstance(event, JobProgress):
            self.progress.setRange(0, max(event.total, 1))
            self.progress.setValue(event.done)
            self.progress_text.setText(event.message)

    def _finished(self, result: object) -> None:
        self._stopped(f"Validation {result} stored.", ok=True)

    def _stopped(self, text: str, ok: bool = False) -> None:
        self.start_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(1 if ok else 0)
        self.progress_text.setText(text)
        self.refresh()
