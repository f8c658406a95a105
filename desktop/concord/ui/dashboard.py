"""Case dashboard: record-screen red flags first, then one row per specialist.

Row: overall score (0-100), grade with traffic-light colour AND its name, human-review
flag with the reasons, disagreement badges (click one to go to that disagreement).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from concord.adjudication.config import load_scoring_config
from concord.domain import Case, GateHit, GateStatus, Scorecard
from concord.ui import theme
from concord.ui.item_models import Column, ListTableModel

GATE_ROLE = Qt.ItemDataRole.UserRole + 1


def _label(text: str = "", *, bold: bool = False, size: float | None = None) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    style = []
    if bold:
        style.append("font-weight:bold")
    if size:
        style.append(f"font-size:{size}pt")
    label.setStyleSheet(";".join(style))
    return label


def gate_line(gate: GateHit, mutual: bool) -> str:
    title = gate.title or gate.gate_id
    quote = "" if gate.detail else "; ".join(f"“{s.text}”" for s in gate.evidence[:2])
    detail = f" — {gate.detail}" if gate.detail else ""
    owner = f" — specialty: {gate.specialty}" if gate.specialty else ""
    if gate.status == GateStatus.NEGATED:
        return f"Negated mention (does not fire): {title}{detail} {quote}".rstrip()
    head = "MUTUAL OMISSION — no agent addressed this. " if mutual else ""
    return f"{head}{gate.severity.value.upper()} RED FLAG: {title}{detail}{owner} {quote}".rstrip()


def _overall_text(card: Scorecard) -> str:
    return f"{card.overall:.0f} / 100"


def _review_text(card: Scorecard) -> str:
    if not card.human_review:
        return "no"
    reasons = "; ".join(card.review_reasons).replace("_", " ")
    return f"YES — {reasons}" if reasons else "YES"


SCORECARD_COLUMNS: list[Column[Scorecard]] = [
    Column("Specialist", lambda c: theme.agent_title(c.specialist), bold=lambda c: True),
    Column(
        "Overall score (0–100)",
        _overall_text,
        align_right=True,
        tooltip="100 × Σ weight × sub-score; capped at "
        f"{load_scoring_config().overall_cap_on_major_miss:g} when a major gate is missed",
    ),
    Column(
        "Grade",
        lambda c: theme.grade_label(c.grade, c.cap_lowered),
        background=lambda c: theme.grade_colours(c.grade, c.cap_lowered)[0],
        foreground=lambda c: theme.grade_colours(c.grade, c.cap_lowered)[1],
        bold=lambda c: True,
        tooltip=f"{load_scoring_config().grades_legend()}; capped scores are shown red",
    ),
    Column(
        "Human review",
        _review_text,
        foreground=lambda c: theme.RED if c.human_review else None,
        bold=lambda c: c.human_review,
    ),
    Column("Disagreements (click to open)", lambda c: ""),
    Column(
        "Judge runs / spread", lambda c: f"{c.judge_runs} run(s), spread {c.judge_spread:.0f} pts"
    ),
]
BADGE_COLUMN = 4
REVIEW_COLUMN_WIDTH = 230


class Dashboard(QWidget):
    disagreement_clicked = Signal(str, str)  # specialist, disagreement id
    gate_clicked = Signal(object)  # GateHit

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.case: Case | None = None
        self.flags_title = _label("Record screen — red flags", bold=True, size=12)
        self.flags = QListWidget()
        self.flags.setObjectName("redFlags")
        self.flags.setWordWrap(True)
        self.flags.setMaximumHeight(190)
        self.flags.itemClicked.connect(self._gate_item)
        self.flags.itemActivated.connect(self._gate_item)
        self.table_title = _label("Anaesthetist brief vs each specialist", bold=True, size=12)
        self.model: ListTableModel[Scorecard] = ListTableModel(SCORECARD_COLUMNS)
        self.table = QTableView()
        self.table.setObjectName("summaryTable")
        self.table.setModel(self.model)
        self.table.setWordWrap(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)  # reasons wrap
        header.resizeSection(3, REVIEW_COLUMN_WIDTH)
        header.setSectionResizeMode(BADGE_COLUMN, QHeaderView.ResizeMode.Stretch)
        header.sectionResized.connect(self._badge_column_resized)
        self._badge_width = 0
        self._relayout = QTimer(self)
        self._relayout.setSingleShot(True)
        self._relayout.setInterval(0)
        self._relayout.timeout.connect(self._maybe_relayout)
        self.empty = _label("")
        self.badges: list[QPushButton] = []
        lay = QVBoxLayout(self)
        lay.addWidget(self.flags_title)
        lay.addWidget(self.flags)
        lay.addWidget(self.table_title)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.empty)

    def set_content(self, case: Case | None, gates: tuple[GateHit, ...] = ()) -> None:
        self.case = case
        gates = case.gates if case is not None else gates
        mutual = set(case.mutual_omissions) if case is not None else set()
        self.flags.clear()
        fired = [g for g in gates if g.status == GateStatus.TRIGGERED]
        # mutual omissions first, then other triggered gates, then negated mentions
        fired.sort(key=lambda g: (g.gate_id not in mutual, g.severity.value != "major"))
        for gate in fired + [g for g in gates if g.status == GateStatus.NEGATED]:
            item = QListWidgetItem(gate_line(gate, gate.gate_id in mutual))
            item.setData(GATE_ROLE, gate)
            if gate.status == GateStatus.TRIGGERED:
                bg, fg = theme.SEVERITY_COLOURS.get(gate.severity.value, ("#eee", "#000"))
                item.setBackground(_brush(bg))
                item.setForeground(_brush(fg))
                font = item.font()
                font.setBold(True)
                font.setPointSizeF(font.pointSizeF() + (1.5 if gate.gate_id in mutual else 0.5))
                item.setFont(font)
            else:
                item.setForeground(_brush(theme.GREY))
            item.setToolTip("Click to show the evidence in the record")
            self.flags.addItem(item)
        n = len(fired)
        self.flags_title.setText(
            f"Record screen — {n} red flag{'s' if n != 1 else ''}"
            + (f", {len(mutual)} MISSED BY EVERY AGENT" if mutual else "")
            if n
            else "Record screen — no red flags fired"
        )
        if not fired and not gates:
            self.flags.addItem(QListWidgetItem("No gate fired on this record."))
        rows = sum(self.flags.sizeHintForRow(r) for r in range(self.flags.count()))
        self.flags.setMaximumHeight(min(190, rows + 2 * self.flags.frameWidth() + 6))
        cards = list(case.scorecards) if case is not None else []
        self.model.set_rows(cards)
        self._add_badges(cards)
        if case is None:
            self.empty.setText("No adjudication yet: run the agent panel (Ctrl+R).")
        elif not cards:
            self.empty.setText("No specialist was consulted, so there is nothing to adjudicate.")
        else:
            self.empty.setText("")

    def _add_badges(self, cards: list[Scorecard]) -> None:
        """One button per disagreement, as many to a line as the column has room for (at
        least one), the row as tall as needed; laid out again when the column resizes."""
        self.badges = []
        buttons: list[list[QPushButton]] = []
        for card in cards:
            row = []
            for d in card.disagreements:
                bg, fg = theme.SEVERITY_COLOURS.get(d.severity.value, ("#eee", "#000"))
                kind = d.kind.label.lower()
                button = QPushButton(f"{d.disagreement_id} {kind} · {d.severity.value}")
                button.setObjectName(f"badge:{card.specialist}/{d.disagreement_id}")
                button.setStyleSheet(
                    f"background:{bg}; color:{fg}; border-radius:6px; "
                    "padding:2px 6px; font-weight:bold"
                )
                button.setToolTip(_escape(d.description))
                button.setCursor(Qt.CursorShape.PointingHandCursor)
                button.clicked.connect(
                    lambda _=False, s=card.specialist, i=d.disagreement_id: (
                        self.disagreement_clicked.emit(s, i)
                    )
                )
                row.append(button)
                self.badges.append(button)
            buttons.append(row)
        self._badge_buttons = buttons
        self._layout_badges()

    def _layout_badges(self) -> None:
        buttons = getattr(self, "_badge_buttons", [])
        available = max(120, self.table.horizontalHeader().sectionSize(BADGE_COLUMN) - 8)
        self._badge_width = available
        holders = []
        for row, row_buttons in enumerate(buttons):
            holder = QWidget()
            grid = QGridLayout(holder)
            grid.setContentsMargins(2, 2, 2, 2)
            grid.setSpacing(3)
            if not row_buttons:
                grid.addWidget(_label("none"), 0, 0)
            widest = max((b.sizeHint().width() for b in row_buttons), default=1) + 3
            per_line = max(1, available // widest)
            for n, button in enumerate(row_buttons):
                grid.addWidget(button, n // per_line, n % per_line)
            grid.setColumnStretch(per_line, 1)
            holders.append(holder)
            self.table.setIndexWidget(self.model.index(row, BADGE_COLUMN), holder)
        self.table.resizeRowsToContents()
        for row, holder in enumerate(holders):
            self.table.setRowHeight(
                row, max(self.table.rowHeight(row), holder.sizeHint().height() + 2)
            )

    def _badge_column_resized(self, index: int, _old: int, new: int) -> None:
        if index == BADGE_COLUMN and abs(new - 8 - self._badge_width) > 20:
            self._relayout.start()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._relayout.start()  # after the table has taken its new width

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._relayout.start()

    def _maybe_relayout(self) -> None:
        width = self.table.horizontalHeader().sectionSize(BADGE_COLUMN) - 8
        if abs(max(120, width) - self._badge_width) > 4:
            self._layout_badges()

    def _gate_item(self, item: QListWidgetItem) -> None:
        gate = item.data(GATE_ROLE)
        if isinstance(gate, GateHit):
            self.gate_clicked.emit(gate)


def _brush(colour: str) -> QBrush:
    return QBrush(QColor(colour))


def _escape(text: str) -> str:
    return "<p>" + html.escape(text) + "</p>"
