"""The worklist: the patients, most urgent first (`workbench.triage`), with what every agent
missed, the red flags, the case status and the quality of the AI briefs (not the patient's
risk). Sort by any column (click its header); "To do only" (T) hides reviewed and signed
patients; the counts line says how many of each there are. Import by button, Ctrl+O or by
dropping files.

In blind mode the verdict columns read "hidden" and the order uses the case status alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from concord.adjudication.config import load_scoring_config
from concord.ui import theme
from concord.ui.item_models import Column, ListTableModel
from concord.ui.theme import plain_label
from concord.workbench.triage import Urgency, WorklistRow, triage_counts
from concord.workbench.worklist import Worklist

HIDDEN = "hidden (blind)"
FLAGS_COLUMN = 4  # the red flags take what width is left (elided, in full in the tooltip)
PATIENT_WIDTH = 280
SORT_ROLE = Qt.ItemDataRole.UserRole + 20
URGENT_COLOURS = {
    Urgency.MISSED_BY_EVERY_AGENT: (theme.RED, "#ffffff"),
    Urgency.MISSED_MAJOR_GATE: ("#f4c7c3", "#5c0000"),
    Urgency.RUN_FAILED: ("#f4c7c3", "#5c0000"),
}
Index = QModelIndex | QPersistentModelIndex


class WorklistModel(ListTableModel[WorklistRow]):
    """Rows are WorklistRows; `running` marks the record whose run is under way."""

    def __init__(self) -> None:
        super().__init__([])
        self.running: str | None = None
        self.blind = False  # blind mode: verdict columns read "hidden"
        self.columns = self._columns()

    def _urgent_colour(self, row: WorklistRow, which: int) -> str | None:
        colours = URGENT_COLOURS.get(row.urgency(blind=self.blind))
        return colours[which] if colours else None

    def _columns(self) -> list[Column[WorklistRow]]:
        return [
            Column(
                "Urgency",
                lambda r: (
                    f"{r.urgency(blind=self.blind).value} · " + r.urgency(blind=self.blind).title
                ),
                background=lambda r: self._urgent_colour(r, 0),
                foreground=lambda r: self._urgent_colour(r, 1),
                bold=lambda r: r.urgency(blind=self.blind) <= Urgency.RUN_FAILED,
                tooltip="Most urgent first: a finding missed by every agent, a missed major "
                "red flag, a failed run, needs review, not run, reviewed, signed",
            ),
            Column(
                "Patient",
                lambda r: r.name,
                bold=lambda r: True,
                tooltip="The patient's name where the record gives one, else the record's",
            ),
            Column(
                "Status",
                self.status_text,
                foreground=lambda r: theme.STATUS_COLOURS.get(
                    self.status_text(r), theme.STATUS_FALLBACK
                ),
                bold=lambda r: self.status_text(r) in ("needs review", "running"),
            ),
            Column(
                "Missed by every agent",
                self.mutual_text,
                foreground=lambda r: theme.RED if self._shows(r.missed_by_every_agent) else None,
                bold=lambda r: self._shows(r.missed_by_every_agent),
                tooltip="Red flags the record screen fired that no agent's brief addressed "
                "(mutual omission)",
            ),
            Column(
                "Red flags",
                self.flags_text,
                foreground=lambda r: theme.RED if self._shows(r.red_flags) else None,
                tooltip="Record-screen gates triggered in the latest case",
            ),
            Column(
                "Brief quality",
                self.quality_text,
                tooltip="How well the AI briefs agree with each other and with the record "
                "(worst specialist grade). It grades the AI, not the patient's risk.",
            ),
            Column("Imported (UTC)", lambda r: r.imported_at.strftime("%Y-%m-%d %H:%M")),
        ]

    def _shows(self, values: tuple[str, ...]) -> bool:
        return bool(values) and not self.blind

    def status_text(self, row: WorklistRow) -> str:
        if row.record_id == self.running:
            return "running"
        status = row.status.value if row.status else "not run"
        if row.required_left and not self.blind:
            return f"{status} ({row.required_left} required left)"
        return status

    def mutual_text(self, row: WorklistRow) -> str:
        if row.status is None:
            return ""
        if self.blind:
            return HIDDEN
        return "⚠ " + ", ".join(row.missed_by_every_agent) if row.missed_by_every_agent else "—"

    def flags_text(self, row: WorklistRow) -> str:
        if row.status is None:
            return "not run yet"
        if self.blind:
            return HIDDEN
        return "⚑ " + ", ".join(row.red_flags) if row.red_flags else "none"

    def quality_text(self, row: WorklistRow) -> str:
        if row.brief_quality is None:
            return "—"
        if self.blind:
            return HIDDEN
        return theme.grade_label(row.brief_quality, row.quality_capped)

    def _quality_rank(self, row: WorklistRow) -> float:
        """Worst brief quality first (the scoring config's band order); none, or hidden,
        last."""
        position = load_scoring_config().grade_position(row.brief_quality)
        return 2.0 if position is None or self.blind else -position

    def sort_key(self, row: WorklistRow, column: int) -> Any:
        urgency = (row.urgency(blind=self.blind), row.imported_at, row.record_id)
        keys: list[Callable[[], Any]] = [
            lambda: urgency,
            lambda: row.name.casefold(),
            lambda: (self.status_text(row), urgency),
            lambda: (not self._shows(row.missed_by_every_agent), urgency),
            lambda: (-len(row.red_flags) if not self.blind else 0, urgency),
            lambda: (self._quality_rank(row), urgency),
            lambda: row.imported_at,
        ]
        return keys[column]()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == SORT_ROLE and index.isValid():
            return self.sort_key(self.rows[index.row()], index.column())
        if role == Qt.ItemDataRole.ToolTipRole and index.isValid():
            row = self.rows[index.row()]
            source = f" — record “{row.source_name}”" if row.name != row.source_name else ""
            return f"{row.name}{source} · {row.record_id}\n{self.columns[index.column()].text(row)}"
        return super().data(index, role)

    def refresh(self) -> None:
        if self.rows:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self.rows) - 1, len(self.columns) - 1)
            )

    def set_blind(self, on: bool) -> None:
        self.blind = on
        self.refresh()

    def set_running(self, record_id: str | None) -> None:
        self.running = record_id
        self.refresh()


class TriageProxy(QSortFilterProxyModel):
    """Sorts by the model's sort keys (urgency by default) and hides what is not to do."""

    def __init__(self, model: WorklistModel) -> None:
        super().__init__()
        self.worklist = model
        self.to_do_only = False
        self.setSourceModel(model)
        self.setSortRole(SORT_ROLE)

    def lessThan(self, left: Index, right: Index) -> bool:
        return bool(left.data(SORT_ROLE) < right.data(SORT_ROLE))

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        if not self.to_do_only:
            return True
        row = self.worklist.rows[source_row]
        return row.record_id == self.worklist.running or row.to_do(blind=self.worklist.blind)

    def set_to_do_only(self, on: bool) -> None:
        self.to_do_only = on
        self.invalidate()


class WorklistView(QWidget):
    open_requested = Signal(str)  # record id
    import_requested = Signal()
    run_requested = Signal(str)  # record id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = WorklistModel()
        self.proxy = TriageProxy(self.model)
        self.table = QTableView()
        self.table.setObjectName("worklistTable")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)  # the patient
        header.setSectionResizeMode(FLAGS_COLUMN, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(1, PATIENT_WIDTH)
        header.setSortIndicatorShown(True)
        self.table.doubleClicked.connect(self._activated)
        self.table.activated.connect(self._activated)
        title = plain_label("Worklist — patients, most urgent first", bold=True)
        title.setStyleSheet("font-weight:bold; font-size:13pt")
        self.counts = plain_label("", bold=True)
        self.counts.setObjectName("worklistCounts")
        hint = plain_label(
            "Import with the button, Ctrl+O, or by dropping files (text, PDF, scans, FHIR JSON) "
            "or folders here. Enter (or double-click) opens a patient. Click a column header "
            "to sort by it."
        )
        self.import_button = QPushButton("Import records… (Ctrl+O)")
        self.import_button.clicked.connect(self.import_requested.emit)
        self.open_button = QPushButton("Open")
        self.open_button.clicked.connect(self._open_selected)
        self.run_button = QPushButton("Open and run panel (Ctrl+R)")
        self.run_button.clicked.connect(self._run_selected)
        self.to_do_box = QCheckBox("To do only (T)")
        self.to_do_box.setObjectName("toDoOnly")
        self.to_do_box.setToolTip("Hide patients already reviewed or signed")
        self.to_do_box.toggled.connect(self.set_to_do_only)
        self.urgency_order = QPushButton("Urgency order")
        self.urgency_order.setToolTip("Sort most urgent first again")
        self.urgency_order.clicked.connect(
            lambda: self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        )
        self.empty = plain_label("No records yet: import a patient record to begin.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet("color:#555; font-size:12pt; padding:20px")
        buttons = QHBoxLayout()
        for button in (self.import_button, self.open_button, self.run_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.to_do_box)
        buttons.addWidget(self.urgency_order)
        self.import_progress = QProgressBar()
        self.import_progress.setObjectName("importProgress")
        self.import_progress.setFormat("Importing: %v of %m patients")
        self.import_progress.hide()
        lay = QVBoxLayout(self)
        lay.addWidget(title)
        lay.addWidget(self.counts)
        lay.addWidget(hint)
        lay.addLayout(buttons)
        lay.addWidget(self.import_progress)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.empty)

    def show_import_progress(self, done: int, total: int) -> None:
        """The import under way: `done` of `total` patients read."""
        self.import_progress.setRange(0, max(total, 1))
        self.import_progress.setValue(done)
        self.import_progress.show()

    def hide_import_progress(self) -> None:
        self.import_progress.hide()

    def set_rows(self, worklist: Worklist, select: str | None = None) -> None:
        """Show the rows; keep the selected patient selected, or select `select`."""
        selected = select or self.selected_record_id()
        self.model.set_rows(list(worklist.rows))
        self.empty.setVisible(not worklist.rows)
        wanted = self.table.sizeHintForColumn(1) + 12
        self.table.horizontalHeader().resizeSection(1, max(160, min(PATIENT_WIDTH, wanted)))
        self._update_counts()
        if not (selected and self.select(selected)) and self.proxy.rowCount():
            self.table.selectRow(0)

    def _update_counts(self) -> None:
        counts = triage_counts(self.model.rows, blind=self.model.blind)
        shown = self.proxy.rowCount()
        hidden = f" · showing {shown} to do" if self.proxy.to_do_only else ""
        self.counts.setText(counts.summary() + hidden)

    def set_blind(self, on: bool) -> None:
        self.model.set_blind(on)
        self.proxy.invalidate()
        self._update_counts()

    def set_to_do_only(self, on: bool) -> None:
        if self.to_do_box.isChecked() != on:
            self.to_do_box.setChecked(on)  # toggles back into here
            return
        selected = self.selected_record_id()
        self.proxy.set_to_do_only(on)
        self._update_counts()
        if not (selected and self.select(selected)) and self.proxy.rowCount():
            self.table.selectRow(0)

    def toggle_to_do(self) -> None:
        self.set_to_do_only(not self.proxy.to_do_only)

    def shown_record_ids(self) -> list[str]:
        """Record ids in the order shown (sorted and filtered)."""
        return [
            self.model.rows[self.proxy.mapToSource(self.proxy.index(r, 0)).row()].record_id
            for r in range(self.proxy.rowCount())
        ]

    def select(self, record_id: str) -> bool:
        for r, shown in enumerate(self.shown_record_ids()):
            if shown == record_id:
                self.table.selectRow(r)
                self.table.scrollTo(self.proxy.index(r, 0))
                return True
        return False

    def selected_record_id(self) -> str | None:
        selection = self.table.selectionModel()
        rows = selection.selectedRows() if selection is not None else []
        if not rows:
            return None
        return self.model.rows[self.proxy.mapToSource(rows[0]).row()].record_id

    def _activated(self, index: QModelIndex) -> None:
        self.open_requested.emit(self.model.rows[self.proxy.mapToSource(index).row()].record_id)

    def _open_selected(self) -> None:
        record_id = self.selected_record_id()
        if record_id:
            self.open_requested.emit(record_id)

    def _run_selected(self) -> None:
        record_id = self.selected_record_id()
        if record_id:
            self.run_requested.emit(record_id)
