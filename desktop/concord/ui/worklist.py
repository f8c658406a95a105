"""The worklist: imported records with the status of their latest case, the worst grade
and the red flags at a glance. Import by button/Ctrl+O or by dropping files."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from concord.store.rows import RecordSummary
from concord.ui import theme
from concord.ui.item_models import Column, ListTableModel
from concord.ui.loaders import Worklist

BLIND_TEXT = "hidden (blind)"


class WorklistModel(ListTableModel[RecordSummary]):
    """Rows are RecordSummary; `running` marks the record whose run is under way."""

    def __init__(self) -> None:
        super().__init__(
            [
                Column("Patient record", lambda r: r.name, bold=lambda r: True),
                Column(
                    "Status",
                    self.status_text,
                    foreground=lambda r: theme.STATUS_COLOURS.get(self.status_text(r)),
                    bold=lambda r: self.status_text(r) in ("needs review", "running"),
                ),
                Column(
                    "Worst grade",
                    lambda r: (
                        BLIND_TEXT if self.blind and r.worst_grade else (r.worst_grade or "—")
                    ),
                    background=lambda r: (
                        theme.grade_colours(r.worst_grade)[0]
                        if r.worst_grade and not self.blind
                        else None
                    ),
                    foreground=lambda r: (
                        theme.grade_colours(r.worst_grade)[1]
                        if r.worst_grade and not self.blind
                        else None
                    ),
                    tooltip="Worst grade over the specialists of the latest case",
                ),
                Column(
                    "Red flags",
                    lambda r: BLIND_TEXT if self.blind and r.latest_status else self.flags_text(r),
                    foreground=lambda r: (
                        theme.RED if r.triggered_gates and not self.blind else None
                    ),
                    bold=lambda r: bool(r.triggered_gates) and not self.blind,
                    tooltip="Record-screen gates triggered in the latest case",
                ),
                Column(
                    "Human review",
                    lambda r: (
                        "—"
                        if r.human_review is None
                        else (BLIND_TEXT if self.blind else ("YES" if r.human_review else "no"))
                    ),
                    foreground=lambda r: theme.RED if r.human_review and not self.blind else None,
                    bold=lambda r: bool(r.human_review) and not self.blind,
                ),
                Column("Imported (UTC)", lambda r: r.imported_at.strftime("%Y-%m-%d %H:%M")),
                Column("Record id", lambda r: r.record_id),
            ]
        )
        self.running: str | None = None
        self.blind = False  # blind mode: verdict columns show "hidden"
        self.flag_titles: dict[str, list[str]] = {}  # record id -> red-flag titles

    def status_text(self, row: RecordSummary) -> str:
        if row.record_id == self.running:
            return "running"
        return row.latest_status.value if row.latest_status else "not run"

    def flags_text(self, row: RecordSummary) -> str:
        if row.latest_status is None:
            return "not run yet"
        n = row.triggered_gates
        titles = self.flag_titles.get(row.record_id)
        if titles:
            return "⚑ " + ", ".join(titles)
        return f"⚑ {n} red flag{'s' if n != 1 else ''}" if n else "none"

    def set_blind(self, on: bool) -> None:
        self.blind = on
        if self.rows:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self.rows) - 1, len(self.columns) - 1)
            )

    def set_running(self, record_id: str | None) -> None:
        self.running = record_id
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, 1))


class WorklistView(QWidget):
    open_requested = Signal(str)  # record id
    import_requested = Signal()
    run_requested = Signal(str)  # record id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = WorklistModel()
        self.table = QTableView()
        self.table.setObjectName("worklistTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(
            lambda idx: self.open_requested.emit(self.model.row(idx.row()).record_id)
        )
        self.table.activated.connect(
            lambda idx: self.open_requested.emit(self.model.row(idx.row()).record_id)
        )
        title = QLabel("Worklist — patient records")
        title.setTextFormat(Qt.TextFormat.PlainText)
        title.setStyleSheet("font-weight:bold; font-size:13pt")
        hint = QLabel(
            "Import records with the button, Ctrl+O, or by dropping .txt, .md, .json "
            "or .pdf files on this window. Double-click (or Enter) opens a record."
        )
        hint.setTextFormat(Qt.TextFormat.PlainText)
        hint.setWordWrap(True)
        self.import_button = QPushButton("Import records… (Ctrl+O)")
        self.import_button.clicked.connect(self.import_requested.emit)
        self.open_button = QPushButton("Open")
        self.open_button.clicked.connect(self._open_selected)
        self.run_button = QPushButton("Open and run panel (Ctrl+R)")
        self.run_button.clicked.connect(self._run_selected)
        self.empty = QLabel("No records yet: import a patient record to begin.")
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet("color:#555; font-size:12pt; padding:20px")
        buttons = QHBoxLayout()
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.run_button)
        buttons.addStretch(1)
        lay = QVBoxLayout(self)
        lay.addWidget(title)
        lay.addWidget(hint)
        lay.addLayout(buttons)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.empty)

    def set_rows(self, rows: list[RecordSummary] | Worklist) -> None:
        if isinstance(rows, Worklist):
            self.model.flag_titles = rows.flags
            rows = rows.rows
        selected = self.selected_record_id()
        self.model.set_rows(rows)
        self.empty.setVisible(not rows)
        if selected:
            self.select(selected)
        elif rows:
            self.table.selectRow(0)

    def select(self, record_id: str) -> None:
        for i, row in enumerate(self.model.rows):
            if row.record_id == record_id:
                self.table.selectRow(i)

    def selected_record_id(self) -> str | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return self.model.row(rows[0].row()).record_id if rows else None

    def _open_selected(self) -> None:
        record_id = self.selected_record_id()
        if record_id:
            self.open_requested.emit(record_id)

    def _run_selected(self) -> None:
        record_id = self.selected_record_id()
        if record_id:
            self.run_requested.emit(record_id)
