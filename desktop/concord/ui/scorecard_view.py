"""Scorecard: the five sub-scores with weights and caps, and the trace of every number
(inputs -> formula -> result), one tab per specialist."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from concord.domain import Case, Scorecard, SubScore, Trace
from concord.ui import theme
from concord.ui.brief_view import plain_tooltip
from concord.ui.item_models import Column, ListTableModel


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, list | tuple):
        if not value:
            return "none"
        return ", ".join(_fmt(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_fmt(v)}" for k, v in value.items()) or "none"
    if value is None:
        return "—"
    return str(value)


def _lowered(s: SubScore) -> bool:
    """Did a cap lower this sub-score? (A cap over the value changes nothing.)"""
    return s.cap is not None and s.value < s.raw_value


def trace_lines(trace: Trace, indent: str = "    ") -> list[str]:
    lines = [f"{indent}inputs:"]
    for key, value in trace.inputs.items():
        text = _fmt(value)
        if len(text) > 400:
            text = text[:400] + " …"
        lines.append(f"{indent}  • {key.replace('_', ' ')} = {text}")
    if not trace.inputs:
        lines.append(f"{indent}  (none)")
    lines.append(f"{indent}formula: {trace.formula}")
    lines.append(f"{indent}result:  {trace.result:.4g}")
    return lines


def scorecard_text(card: Scorecard) -> str:
    out = [
        f"{theme.agent_title(card.specialist).upper()} vs ANAESTHETIST",
        f"Overall score {card.overall:.1f} / 100 → grade "
        f"{theme.grade_label(card.grade, card.cap_lowered)}",
    ]
    if card.cap_lowered:
        out.append("The overall score was CAPPED because a major red flag was missed.")
    elif card.capped:
        out.append(
            "A major red flag was missed: the overall is capped, but it was already under the "
            "cap, so the cap changed nothing."
        )
    if card.human_review:
        out.append("Human review needed: " + ("; ".join(card.review_reasons) or "yes"))
    out.append("")
    out.append("How the overall score was computed:")
    out += trace_lines(card.overall_trace)
    for s in card.subscores:
        out.append("")
        cap = f", capped at {s.cap:.2f} (before cap {s.raw_value:.2f})" if _lowered(s) else ""
        out.append(
            f"{theme.subscore_title(s.name)} — score {s.value:.2f} of 1, weight "
            f"{s.weight:.2f}, contributes {100 * s.weight * s.value:.1f} points{cap}"
        )
        out += trace_lines(s.trace)
        if s.extra:
            out.append("    also reported: " + _fmt(s.extra))
    out.append("")
    out.append(
        f"Scoring config {card.config_version}; judge runs {card.judge_runs}, "
        f"spread {card.judge_spread:.1f} points"
    )
    return "\n".join(out)


SUBSCORE_COLUMNS: list[Column[SubScore]] = [
    Column("Sub-score", lambda s: theme.subscore_title(s.name), bold=lambda s: True),
    Column("Weight", lambda s: f"{s.weight:.2f}", align_right=True),
    Column(
        "Score (0–1)",
        lambda s: f"{s.value:.2f}",
        align_right=True,
        background=lambda s: "#ffe0e0" if _lowered(s) else None,
    ),
    Column("Before cap", lambda s: f"{s.raw_value:.2f}", align_right=True),
    Column(
        "Cap",
        lambda s: (
            "none"
            if s.cap is None
            else (f"≤ {s.cap:.2f}, lowered it" if _lowered(s) else f"≤ {s.cap:.2f}, no effect")
        ),
        foreground=lambda s: theme.RED if _lowered(s) else None,
    ),
    Column(
        "Points (100 × weight × score)",
        lambda s: f"{100 * s.weight * s.value:.1f}",
        align_right=True,
    ),
    Column("Formula", lambda s: s.trace.formula),
]


class ScorecardPage(QWidget):
    def __init__(self, card: Scorecard, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.card = card
        bg, fg = theme.grade_colours(card.grade, card.cap_lowered)
        grade = theme.grade_label(card.grade, card.cap_lowered)
        head = QLabel(f"Overall {card.overall:.1f} / 100 — grade {grade}")
        head.setTextFormat(Qt.TextFormat.PlainText)
        head.setStyleSheet(
            f"background:{bg}; color:{fg}; font-weight:bold; font-size:13pt; "
            "padding:6px; border-radius:4px"
        )
        self.model: ListTableModel[SubScore] = ListTableModel(SUBSCORE_COLUMNS, card.subscores)
        table = QTableView()
        table.setModel(self.model)
        table.setWordWrap(True)
        table.verticalHeader().setVisible(False)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setSectionResizeMode(
            len(SUBSCORE_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch
        )
        table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.setTextElideMode(Qt.TextElideMode.ElideNone)  # formulas wrap, never cut
        table.resizeColumnsToContents()
        self.table = table
        self._fit_table()
        self.trace = QPlainTextEdit()
        self.trace.setReadOnly(True)
        self.trace.setObjectName("traceText")
        self.trace.setPlainText(scorecard_text(card))
        lay = QVBoxLayout(self)
        lay.addWidget(head)
        lay.addWidget(table)
        note = QLabel("Trace of every number (inputs → formula → result):")
        note.setTextFormat(Qt.TextFormat.PlainText)
        note.setStyleSheet("font-weight:bold")
        lay.addWidget(note)
        lay.addWidget(self.trace, 1)

    def _fit_table(self) -> None:
        table = self.table
        table.resizeRowsToContents()
        height = (
            table.horizontalHeader().sizeHint().height()
            + 4
            + sum(table.rowHeight(r) for r in range(self.model.rowCount()))
        )
        table.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_table()


def _strip_subscore(card: Scorecard, name: str) -> SubScore | None:
    return next((s for s in card.subscores if s.name == name), None)


def _subscore_cell(name: str) -> Callable[[Scorecard], str]:
    def text(card: Scorecard) -> str:
        s = _strip_subscore(card, name)
        if s is None:
            return "—"
        return f"{s.value:.2f}" + ("*" if _lowered(s) else "")

    return text


STRIP_SUBSCORES = ("coverage", "critical_items", "correctness", "prioritisation", "actionability")
STRIP_SHORT = {
    "coverage": "Coverage",
    "critical_items": "Critical",
    "correctness": "Correct",
    "prioritisation": "Priority",
    "actionability": "Action",
}
STRIP_FIRST_SUBSCORE = 2  # column of the first sub-score


def strip_tooltip(card: Scorecard, column: int) -> str:
    """The trace behind one number of the strip (plain text for a tooltip)."""
    if column == 1:
        return "\n".join(
            [
                f"Overall {card.overall:.1f} / 100, grade "
                f"{theme.grade_label(card.grade, card.cap_lowered)}",
                *trace_lines(card.overall_trace, ""),
            ]
        )
    n = column - STRIP_FIRST_SUBSCORE
    if 0 <= n < len(STRIP_SUBSCORES):
        s = _strip_subscore(card, STRIP_SUBSCORES[n])
        if s is not None:
            cap = f", capped at {s.cap:.2f} (before cap {s.raw_value:.2f})" if _lowered(s) else ""
            return "\n".join(
                [
                    f"{theme.subscore_title(s.name)} {s.value:.2f} × weight {s.weight:.2f}{cap}",
                    *trace_lines(s.trace, ""),
                ]
            )
    if column == STRIP_FIRST_SUBSCORE + len(STRIP_SUBSCORES):
        return "Human review: " + (
            "; ".join(card.review_reasons) or ("yes" if card.human_review else "not needed")
        )
    return ""


def _lowered_background(name: str) -> Callable[[Scorecard], str | None]:
    def background(card: Scorecard) -> str | None:
        s = _strip_subscore(card, name)
        return "#ffe0e0" if s is not None and _lowered(s) else None

    return background


def strip_columns(weights: dict[str, float]) -> list[Column[Scorecard]]:
    columns: list[Column[Scorecard]] = [
        Column("Specialist", lambda c: theme.agent_title(c.specialist), bold=lambda c: True),
        Column(
            "Overall\n& grade",
            lambda c: f"{c.overall:.0f} · {theme.grade_label(c.grade, c.cap_lowered)}",
            background=lambda c: theme.grade_colours(c.grade, c.cap_lowered)[0],
            foreground=lambda c: theme.grade_colours(c.grade, c.cap_lowered)[1],
            bold=lambda c: True,
            tooltip="Overall score (0–100) and the grade of the brief",
        ),
    ]
    for name in STRIP_SUBSCORES:
        weight = weights.get(name)
        head = STRIP_SHORT[name] + (f"\n×{weight:.2f}" if weight is not None else "")
        columns.append(
            Column(
                head,
                _subscore_cell(name),
                align_right=True,
                tooltip=f"{theme.subscore_title(name)}, 0–1 (× weight)",
                background=_lowered_background(name),
            )
        )
    columns.append(
        Column(
            "Review",
            lambda c: "YES" if c.human_review else "no",
            tooltip="Human review needed",
            foreground=lambda c: theme.RED if c.human_review else None,
            bold=lambda c: c.human_review,
        )
    )
    return columns


class ScoreStrip(QWidget):
    """The scorecard at a glance beside the briefs: one row per specialist, the overall
    score and grade, the five sub-scores (header: weight), the review flag. Hover a number
    for its trace; the Scorecard tab (Ctrl+3) has every trace in full."""

    specialist_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scoreStrip")
        self.cards: list[Scorecard] = []
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setStyleSheet("font-weight:bold; font-size:11pt")
        self.model: ListTableModel[Scorecard] = ListTableModel(strip_columns({}))
        self.table = QTableView()
        self.table.setObjectName("scoreStripTable")
        self.table.setModel(self.model)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setMouseTracking(True)
        self.table.clicked.connect(self._clicked)
        self.table.entered.connect(self._hover)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setMinimumSectionSize(34)
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color:{theme.GREY}")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.title)
        lay.addWidget(self.table)
        lay.addWidget(self.note)
        self.set_case(None)

    def set_case(self, case: Case | None, blind: bool = False) -> None:
        self.cards = list(case.scorecards) if case is not None else []
        weights = {s.name: s.weight for c in self.cards for s in c.subscores}
        self.model.columns = strip_columns(weights)
        self.model.set_rows([] if blind else self.cards)
        self.table.setVisible(bool(self.cards) and not blind)
        if blind and self.cards:
            self.title.setText("Scorecard")
            self.note.setText(
                "Scores hidden in blind mode until you have answered (B leaves blind mode)."
            )
        elif self.cards:
            self.title.setText("Scorecard — anaesthetist brief vs each specialist")
            self.note.setText(
                "Sub-scores 0–1 (× weight in the header); * = lowered by a cap; overall "
                "= 100 × Σ weight × sub-score. Hover a number for its trace; "
                "every trace in full: Scorecard tab (Ctrl+3)."
            )
        else:
            self.title.setText("Scorecard")
            self.note.setText(
                "No scorecard yet: run the agent panel (Ctrl+R)."
                if case is None
                else "No specialist was consulted, so there is nothing to score."
            )
        # the specialist and the overall as wide as they need; the sub-scores and the review
        # flag share what is left, so the strip fits the pane (no column ever cut off)
        header = self.table.horizontalHeader()
        for column in range(self.model.columnCount()):
            mode = (
                QHeaderView.ResizeMode.ResizeToContents
                if column < STRIP_FIRST_SUBSCORE
                else QHeaderView.ResizeMode.Stretch
            )
            header.setSectionResizeMode(column, mode)
        self.table.resizeRowsToContents()
        height = (
            self.table.horizontalHeader().sizeHint().height()
            + 4
            + sum(self.table.rowHeight(r) for r in range(self.model.rowCount()))
        )
        self.table.setFixedHeight(height)

    def _clicked(self, index: QModelIndex) -> None:
        if 0 <= index.row() < len(self.model.rows):
            self.specialist_clicked.emit(self.model.rows[index.row()].specialist)

    def _hover(self, index: QModelIndex) -> None:
        if 0 <= index.row() < len(self.model.rows):
            self.table.setToolTip(
                plain_tooltip(strip_tooltip(self.model.rows[index.row()], index.column()))
            )


class ScorecardView(QTabWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pages: dict[str, ScorecardPage] = {}

    def set_case(self, case: Case | None) -> None:
        self.clear()
        self.pages = {}
        if case is None or not case.scorecards:
            empty = QLabel(
                "No scorecard: the panel has not been run, or no specialist was consulted."
            )
            empty.setTextFormat(Qt.TextFormat.PlainText)
            empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self.addTab(empty, "—")
            return
        for card in case.scorecards:
            page = ScorecardPage(card)
            self.pages[card.specialist] = page
            # scrolled, so a page laid out while hidden (narrow: its formulas wrapped into
            # tall rows) never makes the window taller than the screen
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setWidget(page)
            self.addTab(
                scroll,
                f"{theme.agent_title(card.specialist)} — {card.overall:.0f} "
                f"({theme.grade_label(card.grade, card.cap_lowered)})",
            )
