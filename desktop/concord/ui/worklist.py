"""The worklist: the patients, most urgent first (`workbench.triage`) and, within an
urgency, by surgery date; who each is (name, date of birth or record number), the planned
operation and date, the red flags (from the record screen as soon as a record is imported;
major before moderate, and what every agent missed), the case status and the quality of the
AI briefs (not the patient's risk). Sort by any column (click its header); search by name
or record number; filter by red flag; "To do only" (T) hides reviewed and signed patients;
the counts line says how many of each there are. Import by button, Ctrl+O or by dropping
files.

In blind mode the verdict columns read "hidden" and the order uses the case status alone.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
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
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
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
COL_URGENCY, COL_PATIENT, COL_IDENTITY, COL_OPERATION, COL_SURGERY = range(5)
COL_FLAGS, COL_STATUS, COL_QUALITY = 5, 6, 7
FLAGS_COLUMN = COL_FLAGS  # the red flags take what width is left (in full in the tooltip)
PATIENT_WIDTH = 190
OPERATION_WIDTH = 160
COLUMN_WIDTHS = {
    COL_URGENCY: 178,
    COL_PATIENT: PATIENT_WIDTH,
    COL_IDENTITY: 150,
    COL_OPERATION: OPERATION_WIDTH,
    COL_SURGERY: 88,
    COL_STATUS: 150,
    COL_QUALITY: 92,
}
SORT_ROLE = Qt.ItemDataRole.UserRole + 20
ALL_FLAGS, ANY_FLAG, ANY_MAJOR = "all patients", "any red flag", "any major red flag"
URGENT_COLOURS = {
    Urgency.MISSED_BY_EVERY_AGENT: (theme.RED, "#ffffff"),
    Urgency.MISSED_MAJOR_GATE: ("#f4c7c3", "#5c0000"),
    Urgency.RUN_FAILED: ("#f4c7c3", "#5c0000"),
    Urgency.MAJOR_FLAG_NOT_RUN: ("#f4c7c3", "#5c0000"),
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
                lambda r: r.urgency(blind=self.blind).title,
                background=lambda r: self._urgent_colour(r, 0),
                foreground=lambda r: self._urgent_colour(r, 1),
                bold=lambda r: r.urgency(blind=self.blind) <= Urgency.MAJOR_FLAG_NOT_RUN,
                tooltip="Most urgent first: a major red flag missed by every agent, a missed "
                "major red flag, a failed run, a major red flag not run yet, needs review, "
                "not run, reviewed, signed; within each, the earliest surgery first",
            ),
            Column(
                "Patient",
                lambda r: r.name,
                bold=lambda r: True,
                tooltip="The patient's name where the record gives one, else the record's",
            ),
            Column(
                "DOB / MRN",
                self.identity_text,
                tooltip="Date of birth and hospital or NHS number, as the record writes them",
            ),
            Column("Operation", lambda r: r.operation or "not stated"),
            Column(
                "Surgery",
                lambda r: r.surgery_date.strftime("%d %b %Y") if r.surgery_date else "—",
                tooltip="The planned date of surgery the record states",
            ),
            Column(
                "Red flags",
                self.flags_text,
                foreground=lambda r: self._flags_colour(r),
                bold=lambda r: self._shows(r.missed_by_every_agent) or self._major_shown(r),
                tooltip="Record-screen red flags, from import on (before any run): ⚑ major, "
                "△ moderate; missed by every agent first",
            ),
            Column(
                "Status",
                self.status_text,
                foreground=lambda r: theme.STATUS_COLOURS.get(
                    self.status_text(r).split(" (")[0], theme.STATUS_FALLBACK
                ),
                bold=lambda r: self.status_text(r).startswith(("needs review", "running", "run")),
            ),
            Column(
                "Brief quality",
                self.quality_text,
                tooltip="How well the AI briefs agree with each other and with the record "
                "(worst specialist grade). It grades the AI, not the patient's risk.",
            ),
        ]

    def _shows(self, values: tuple[object, ...]) -> bool:
        return bool(values) and not self.blind

    def _major_shown(self, row: WorklistRow) -> bool:
        return not self.blind and bool(row.major_flags)

    def _flags_colour(self, row: WorklistRow) -> str | None:
        if self.blind or not row.red_flags:
            return None
        return theme.RED if row.major_flags else theme.MODERATE_TEXT

    @staticmethod
    def identity_text(row: WorklistRow) -> str:
        parts = [f"DOB {row.date_of_birth}" if row.date_of_birth else "", row.record_number or ""]
        return " · ".join(p for p in parts if p) or "—"

    def status_text(self, row: WorklistRow) -> str:
        if row.record_id == self.running:
            return "running"
        status = row.status.value if row.status else "not run"
        if row.required_left and not self.blind:
            return f"{status} ({row.required_left} left)"
        return status

    def flags_text(self, row: WorklistRow) -> str:
        if self.blind:
            return HIDDEN
        if not row.screened:
            return "record screen reading…"
        parts = []
        if row.missed_by_every_agent:
            parts.append("⚠ missed by every agent: " + ", ".join(row.missed_by_every_agent))
        missed = set(row.missed_by_every_agent)
        parts += [
            ("⚑ " if f.major else "△ ") + f.title for f in row.red_flags if f.title not in missed
        ]
        return " · ".join(parts) if parts else "none"

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
        urgency = row.order_key(blind=self.blind)
        flags = (
            (-len(row.missed_by_every_agent), -len(row.major_flags), -len(row.red_flags))
            if not self.blind
            else (0, 0, 0)
        )
        keys: list[Callable[[], Any]] = [
            lambda: urgency,
            lambda: row.name.casefold(),
            lambda: (self.identity_text(row), urgency),
            lambda: ((row.operation or "~").casefold(), urgency),
            lambda: (row.surgery_date is None, row.surgery_date or date.max, urgency),
            lambda: (flags, urgency),
            lambda: (self.status_text(row), urgency),
            lambda: (self._quality_rank(row), urgency),
        ]
        return keys[column]()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == SORT_ROLE and index.isValid():
            return self.sort_key(self.rows[index.row()], index.column())
        if role == Qt.ItemDataRole.ToolTipRole and index.isValid():
            row = self.rows[index.row()]
            source = f" — record “{row.source_name}”" if row.name != row.source_name else ""
            lines = [
                f"{row.name}{source} · {row.record_id}",
                f"imported {row.imported_at:%Y-%m-%d %H:%M} UTC",
                self.columns[index.column()].text(row),
            ]
            if row.run_problem:
                lines.append(row.run_problem)
            return "\n".join(lines)
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
        self.search = ""  # part of a name or record number
        self.flag = ALL_FLAGS  # ALL_FLAGS, ANY_FLAG, ANY_MAJOR or a red flag's title
        self.setSourceModel(model)
        self.setSortRole(SORT_ROLE)

    def lessThan(self, left: Index, right: Index) -> bool:
        return bool(left.data(SORT_ROLE) < right.data(SORT_ROLE))

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        row = self.worklist.rows[source_row]
        if self.search and not _matches(row, self.search):
            return False
        if not self._flag_matches(row):
            return False
        if not self.to_do_only:
            return True
        return row.record_id == self.worklist.running or row.to_do(blind=self.worklist.blind)

    def _flag_matches(self, row: WorklistRow) -> bool:
        if self.flag == ALL_FLAGS or self.worklist.blind:
            return True
        if self.flag == ANY_FLAG:
            return bool(row.red_flags)
        if self.flag == ANY_MAJOR:
            return bool(row.major_flags)
        return any(f.title == self.flag for f in row.red_flags)

    def set_to_do_only(self, on: bool) -> None:
        self.to_do_only = on
        self.invalidate()

    def set_search(self, text: str) -> None:
        self.search = text.strip()
        self.invalidate()

    def set_flag(self, flag: str) -> None:
        self.flag = flag or ALL_FLAGS
        self.invalidate()


def _fold(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _matches(row: WorklistRow, search: str) -> bool:
    """Every word of the search is in the patient's name, the record's name or the record
    number (spaces and dashes aside: "kb2280" finds "KB-2280415")."""
    haystack = [_fold(row.name), _fold(row.source_name), _fold(row.record_number or "")]
    return all(any(_fold(word) in h for h in haystack) for word in search.split())


class WorklistView(QWidget):
    open_requested = Signal(str)  # record id
    import_requested = Signal()
    run_requested = Signal(str)  # record id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = WorklistModel()
        self.proxy = TriageProxy(self.model)
        self.screening = False  # the red flags of records not run yet are on their way
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
        # fixed widths that fit 1280 px with the red flags stretching into what is left;
        # a long value is elided, in full in the tooltip
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in COLUMN_WIDTHS.items():
            header.resizeSection(column, width)
        header.setSectionResizeMode(FLAGS_COLUMN, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(60)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
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
        self.search = QLineEdit()
        self.search.setObjectName("worklistSearch")
        self.search.setPlaceholderText("Search name or MRN (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.search.setMaximumWidth(260)
        self.search.textChanged.connect(self._search_changed)
        self.flag_filter = QComboBox()
        self.flag_filter.setObjectName("flagFilter")
        self.flag_filter.setToolTip("Show only patients with this red flag")
        self.flag_filter.addItems([ALL_FLAGS, ANY_FLAG, ANY_MAJOR])
        self.flag_filter.currentTextChanged.connect(self._flag_changed)
        self.empty = plain_label("No records yet: import a patient record to begin.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet("color:#555; font-size:12pt; padding:20px")
        buttons = QHBoxLayout()
        for button in (self.import_button, self.open_button, self.run_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.search)
        buttons.addWidget(self.flag_filter)
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
        self._fill_flag_filter(worklist)
        self._update_counts()
        if not (selected and self.select(selected)) and self.proxy.rowCount():
            self.table.selectRow(0)

    def _fill_flag_filter(self, worklist: Worklist) -> None:
        """The filter lists every red flag some patient has, major ones first."""
        current = self.flag_filter.currentText()
        seen: dict[str, bool] = {}
        for row in worklist.rows:
            for flag in row.red_flags:
                seen[flag.title] = seen.get(flag.title, False) or flag.major
        titles = sorted(seen, key=lambda t: (not seen[t], t.casefold()))
        self.flag_filter.blockSignals(True)
        self.flag_filter.clear()
        self.flag_filter.addItems([ALL_FLAGS, ANY_FLAG, ANY_MAJOR, *titles])
        index = self.flag_filter.findText(current)
        self.flag_filter.setCurrentIndex(max(index, 0))
        self.flag_filter.blockSignals(False)
        self.proxy.set_flag(self.flag_filter.currentText())

    def _search_changed(self, text: str) -> None:
        self.proxy.set_search(text)
        self._after_filter()

    def _flag_changed(self, flag: str) -> None:
        self.proxy.set_flag(flag)
        self._after_filter()

    def _after_filter(self) -> None:
        selected = self.selected_record_id()
        self._update_counts()
        if not (selected and self.select(selected)) and self.proxy.rowCount():
            self.table.selectRow(0)

    def _update_counts(self) -> None:
        counts = triage_counts(self.model.rows, blind=self.model.blind)
        shown = self.proxy.rowCount()
        filtered = self.proxy.to_do_only or self.proxy.search or self.proxy.flag != ALL_FLAGS
        hidden = f" · showing {shown}" if filtered else ""
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
