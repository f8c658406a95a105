"""Agreement: judge vs human per metric and model, and between annotators (Cohen's kappa
for two, Fleiss' kappa for more). Clicking a row lists the items where they disagree."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from concord.expert.agreement import Disagreement, between_annotators, judge_vs_human


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _table(headers: list[str], name: str) -> QTableWidget:
    table = QTableWidget(0, len(headers), objectName=name)
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.horizontalHeader().setStretchLastSection(True)
    return table


class AgreementView(QWidget):
    JUDGE_HEADERS = ["metric", "model", "n", "accuracy", "Cohen's kappa", "disagree"]
    ANNOTATOR_HEADERS = ["metric", "annotators", "kappa", "n", "agreement", "value", "disagree"]
    ITEM_HEADERS = ["case", "target", "values", "decisions", "reason"]

    def __init__(self, services, parent: QWidget | None = None) -> None:  # noqa: ANN001
        super().__init__(parent)
        self.services = services
        self.judge_rows: list[dict[str, Any]] = []
        self.annotator_rows: list[dict[str, Any]] = []
        self.judge = _table(self.JUDGE_HEADERS, "agreementJudge")
        self.annotators = _table(self.ANNOTATOR_HEADERS, "agreementAnnotators")
        self.items = _table(self.ITEM_HEADERS, "agreementItems")
        self.judge.cellClicked.connect(lambda row, _col: self.show_items(self.judge_rows, row))
        self.annotators.cellClicked.connect(
            lambda row, _col: self.show_items(self.annotator_rows, row))
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        head = QHBoxLayout()
        head.addWidget(QLabel("Judge vs human (per metric and model)"), 1)
        head.addWidget(refresh)
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(self.judge)
        layout.addWidget(QLabel("Between annotators"))
        layout.addWidget(self.annotators)
        self.items_title = QLabel("Click a row to list the items where they disagree")
        layout.addWidget(self.items_title)
        layout.addWidget(self.items)
        self.refresh()

    def refresh(self) -> None:
        decisions = self.services.repo.decisions()
        self.judge_rows = judge_vs_human(decisions)
        self.annotator_rows = between_annotators(decisions)
        self._fill(self.judge, [
            [r["metric"], r["model"], r["n"], r["accuracy"], r["kappa"], len(r["disagreements"])]
            for r in self.judge_rows])
        self._fill(self.annotators, [
            [r["metric"], ", ".join(r["annotators"]), r["kappa_kind"], r["n"], r["agreement"],
             r["kappa"], len(r["disagreements"])] for r in self.annotator_rows])
        self._fill(self.items, [])

    def show_items(self, rows: list[dict[str, Any]], index: int) -> None:
        if not 0 <= index < len(rows):
            return
        found: list[Disagreement] = rows[index]["disagreements"]
        self.items_title.setText(f"{len(found)} disagreeing item(s): {rows[index]['metric']}")
        self._fill(self.items, [
            [d.case_id, d.target_id, ", ".join(f"{k}: {v}" for k, v in d.values.items()),
             ", ".join(d.decision_ids), d.reason] for d in found])

    @staticmethod
    def _fill(table: QTableWidget, rows: list[list[Any]]) -> None:
        table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                table.setItem(r, c, QTableWidgetItem(_fmt(value)))
