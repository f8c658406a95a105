"""Scorecard: the five sub-scores with weights and caps, and the trace of every number
(inputs -> formula -> result), one tab per specialist."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from concord.domain import Case, Scorecard, SubScore, Trace
from concord.ui import theme
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
        f"{theme.grade_label(card.grade, card.capped)}",
    ]
    if card.capped:
        out.append("The overall score was CAPPED because a major red flag was missed.")
    if card.human_review:
        out.append("Human review needed: " + ("; ".join(card.review_reasons) or "yes"))
    out.append("")
    out.append("How the overall score was computed:")
    out += trace_lines(card.overall_trace)
    for s in card.subscores:
        out.append("")
        cap = f", capped at {s.cap:.2f} (before cap {s.raw_value:.2f})" if s.cap is not None else ""
        out.append(f"{theme.subscore_title(s.name)} — score {s.value:.2f} of 1, weight "
                   f"{s.weight:.2f}, contributes {100 * s.weight * s.value:.1f} points{cap}")
        out += trace_lines(s.trace)
        if s.extra:
            out.append("    also reported: " + _fmt(s.extra))
    out.append("")
    out.append(f"Scoring config {card.config_version}; judge runs {card.judge_runs}, "
               f"spread {card.judge_spread:.1f} points")
    return "\n".join(out)


SUBSCORE_COLUMNS: list[Column[SubScore]] = [
    Column("Sub-score", lambda s: theme.subscore_title(s.name), bold=lambda s: True),
    Column("Weight", lambda s: f"{s.weight:.2f}", align_right=True),
    Column("Score (0–1)", lambda s: f"{s.value:.2f}", align_right=True,
           background=lambda s: "#ffe0e0" if s.cap is not None else None),
    Column("Before cap", lambda s: f"{s.raw_value:.2f}", align_right=True),
    Column("Cap applied", lambda s: f"≤ {s.cap:.2f}" if s.cap is not None else "none",
           foreground=lambda s: theme.RED if s.cap is not None else None),
    Column("Points (100 × weight × score)", lambda s: f"{100 * s.weight * s.value:.1f}",
           align_right=True),
    Column("Formula", lambda s: s.trace.formula),
]


class ScorecardPage(QWidget):
    def __init__(self, card: Scorecard, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.card = card
        bg, fg = theme.grade_colours(card.grade, card.capped)
        head = QLabel(f"Overall {card.overall:.1f} / 100 — grade "
                      f"{theme.grade_label(card.grade, card.capped)}")
        head.setTextFormat(Qt.TextFormat.PlainText)
        head.setStyleSheet(f"background:{bg}; color:{fg}; font-weight:bold; font-size:13pt; "
                           "padding:6px; border-radius:4px")
        self.model: ListTableModel[SubScore] = ListTableModel(SUBSCORE_COLUMNS, card.subscores)
        table = QTableView()
        table.setModel(self.model)
        table.setWordWrap(True)
        table.verticalHeader().setVisible(False)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.resizeColumnsToContents()
        table.resizeRowsToContents()
        height = table.horizontalHeader().sizeHint().height() + 4 + sum(
            table.rowHeight(r) for r in range(self.model.rowCount()))
        table.setFixedHeight(height)
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


class ScorecardView(QTabWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pages: dict[str, ScorecardPage] = {}

    def set_case(self, case: Case | None) -> None:
        self.clear()
        self.pages = {}
        if case is None or not case.scorecards:
            empty = QLabel("No scorecard: the panel has not been run, or no specialist was "
                           "consulted.")
            empty.setTextFormat(Qt.TextFormat.PlainText)
            empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self.addTab(empty, "—")
            return
        for card in case.scorecards:
            page = ScorecardPage(card)
            self.pages[card.specialist] = page
            self.addTab(page, f"{theme.agent_title(card.specialist)} — {card.overall:.0f} "
                              f"({theme.grade_label(card.grade, card.capped)})")


def trace_json(trace: Trace) -> str:
    return json.dumps(trace.model_dump(mode="json"), indent=2)
