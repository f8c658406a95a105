"""Agreement: judge vs human per metric and model, and between annotators (Cohen's kappa
for two, Fleiss' kappa for more). Clicking a row lists the items where they disagree;
double-click (or Enter on) an item opens it where it can be reviewed.

The tables are computed in the database thread (`workbench.agreement`). Every row shows
its n; a kappa over fewer than `MIN_ITEMS_FOR_KAPPA` items says it is too few to mean
anything. The record screen's red flags are rules, and are credited to the rules, not to
a model. In blind mode the page is hidden: it shows the judge's values on items the
reviewer may not have answered yet.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from concord.domain import TargetKind, TargetRef
from concord.eval.agreement import LabelDisagreement
from concord.ui import theme
from concord.ui.commands import Command
from concord.ui.db import DbThread
from concord.ui.messages import error_text, show_banner
from concord.ui.theme import plain_label
from concord.workbench.agreement import (
    MIN_ITEMS_FOR_KAPPA,
    AgreementTables,
    agreement_tables,
    kappa_text,
)

METRIC_NAMES = {
    "gate": "Record-screen red flag",
    "overall": "Overall score",
    "subscore": "Sub-score",
    "disagreement": "Disagreement (kind, severity)",
    "match": "Item match",
    "astrid_cf_sentence": "ASTRID: sentence grounded?",
    "astrid_cf": "ASTRID: CF value",
    "astrid_cr": "ASTRID: context relevant?",
    "astrid_ra": "ASTRID: answer refuses?",
    "eval_grade": "EVAL: answer good/bad",
}
EXPLANATION = (
    "n = items compared. Accuracy = share of items where the human's value equals the "
    "judge's. Cohen's κ corrects agreement for chance: 1 = perfect, 0 = no better than "
    f"chance, < 0 = worse; below n = {MIN_ITEMS_FOR_KAPPA} it is too few to mean anything, "
    "“n/a” when one side used a single value only. Record-screen red flags are decided by "
    "rules, not by a model. Between annotators: Cohen's κ for a pair, Fleiss' κ for three "
    "or more, over the items each of them decided."
)


MAX_ROWS_SHOWN = 10


def metric_name(kind: str) -> str:
    return METRIC_NAMES.get(kind, kind)


def _fmt(value: Any) -> str:
    if value is None:
        return "n/a"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _table(
    headers: list[str], name: str, tips: dict[int, str] | None = None, stretch: int = 0
) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(headers)
    for column, tip in (tips or {}).items():
        header = table.horizontalHeaderItem(column)
        if header is not None:
            header.setToolTip(tip)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.verticalHeader().setVisible(False)
    table.setWordWrap(True)
    columns = table.horizontalHeader()
    columns.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    columns.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    return table


def where_text(d: LabelDisagreement) -> str:
    kind = TargetRef.parse(d.target_id).kind
    if kind.is_astrid:
        return f"QA run {d.case_id}" if d.case_id.startswith("QA-RUN") else f"QA set {d.case_id}"
    if kind is TargetKind.EVAL_GRADE:
        return f"question set {d.case_id}"
    return f"case {d.case_id}"


class AgreementView(QWidget):
    """The Agreement page."""

    title = "Agreement"
    tip = "Judge vs human and between-annotator agreement, with the disagreeing items (Alt+4)"
    commands_changed = Signal()
    JUDGE_HEADERS = [
        "What was judged",
        "Judged by",
        "n (items)",
        "Accuracy",
        "Cohen's κ",
        "Disagreements",
    ]
    ANNOTATOR_HEADERS = [
        "What was judged",
        "Annotators",
        "κ used",
        "n (items both decided)",
        "Agreement",
        "κ",
        "Disagreements",
    ]
    ITEM_HEADERS = ["Where", "Judgement", "Values (who: value)", "Reason"]
    open_item = Signal(object)  # LabelDisagreement

    def __init__(self, db: DbThread, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("agreementPage")
        self.db = db
        self.blind = False
        self.judge_rows: list[dict[str, Any]] = []
        self.annotator_rows: list[dict[str, Any]] = []
        self.shown_items: list[LabelDisagreement] = []
        self.judge = _table(
            self.JUDGE_HEADERS,
            "agreementJudge",
            {
                3: "Share of items where the human kept the judge's value",
                4: "Chance-corrected agreement (1 perfect, 0 chance)",
            },
        )
        self.annotators = _table(self.ANNOTATOR_HEADERS, "agreementAnnotators")
        self.items = _table(self.ITEM_HEADERS, "agreementItems", stretch=3)
        self.judge.cellClicked.connect(lambda row, _col: self.show_items(self.judge_rows, row))
        self.annotators.cellClicked.connect(
            lambda row, _col: self.show_items(self.annotator_rows, row)
        )
        self.items.activated.connect(lambda index: self.open_row(index.row()))
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.open_button = QPushButton("Open selected item (Enter)")
        self.open_button.clicked.connect(lambda: self.open_row(self.items.currentRow()))
        self.summary = plain_label()
        self.summary.setObjectName("agreementSummary")
        self.banner = plain_label()
        self.banner.setObjectName("agreementBanner")
        self.banner.hide()
        head = QHBoxLayout()
        head.addWidget(
            plain_label(
                "Judge vs human — per metric and judge model", bold=True, style="font-size:11pt"
            ),
            1,
        )
        head.addWidget(self.refresh_button)
        note = plain_label(EXPLANATION)
        note.setStyleSheet("color:#333; font-size:9pt")
        self.items_title = plain_label(
            "Click a row above to list the items where they disagree.", bold=True
        )
        items_head = QHBoxLayout()
        items_head.addWidget(self.items_title, 1)
        items_head.addWidget(self.open_button)
        self.cover = plain_label(
            "Agreement is hidden in blind mode: it shows the judge's values "
            "on items you may not have answered yet. Press B to leave blind "
            "mode."
        )
        self.cover.setObjectName("agreementBlindCover")
        self.cover.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.cover.setStyleSheet(f"color:{theme.GREY}; font-size:12pt; padding:40px")
        self.cover.hide()
        self.body = QWidget()
        layout = QVBoxLayout(self.body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(note)
        layout.addWidget(self.banner)
        layout.addWidget(self.summary)
        layout.addWidget(self.judge)
        layout.addWidget(plain_label("Between annotators", bold=True, style="font-size:11pt"))
        layout.addWidget(self.annotators)
        layout.addLayout(items_head)
        layout.addWidget(self.items, 1)
        outer = QVBoxLayout(self)
        outer.addWidget(self.cover)
        outer.addWidget(self.body, 1)

    # the page protocol ---------------------------------------------------------------

    def commands(self) -> frozenset[Command]:
        return frozenset()

    def run_command(self, command: Command) -> None:
        del command  # no keyboard command acts here

    def page_shown(self) -> None:
        self.refresh()  # decisions may have been added anywhere

    def show_message(self, text: str, level: str = "error") -> None:
        show_banner(self.banner, text, level)

    def set_blind(self, on: bool) -> None:
        self.blind = on
        self.cover.setVisible(on)
        self.body.setVisible(not on)

    def refresh(self) -> None:
        self.db.call(
            agreement_tables,
            self._loaded,
            lambda exc: self.summary.setText(f"Could not compute agreement: {error_text(exc)}"),
        )

    def _loaded(self, tables: AgreementTables) -> None:
        self.judge_rows = tables.judge
        self.annotator_rows = tables.annotators
        judged = sum(r["n"] for r in tables.judge)
        self.summary.setText(
            f"{tables.decisions} decision(s) in the database; {judged} compared with the "
            "judge's value."
            if tables.decisions
            else "No decisions yet: accept or override judgements (Patients, QA review) or "
            "grade answers (Answer grading), and the agreement appears here."
        )
        self._fill(
            self.judge,
            [
                [
                    metric_name(r["metric"]),
                    r["model"],
                    r["n"],
                    r["accuracy"],
                    kappa_text(r["kappa"], r["n"]),
                    len(r["disagreements"]),
                ]
                for r in self.judge_rows
            ],
        )
        if not self.judge_rows:
            self._fill(
                self.judge,
                [
                    [
                        "—",
                        "no human decision on a judge's shown value yet "
                        "(blind grades without a prediction do not count)",
                        "",
                        "",
                        "",
                        "",
                    ]
                ],
            )
        self._fill(
            self.annotators,
            [
                [
                    metric_name(r["metric"]),
                    ", ".join(r["annotators"]),
                    "Cohen" if r["kappa_kind"] == "cohen" else "Fleiss",
                    r["n"],
                    r["agreement"],
                    kappa_text(r["kappa"], r["n"]),
                    len(r["disagreements"]),
                ]
                for r in self.annotator_rows
            ],
        )
        if not self.annotator_rows:
            self._fill(
                self.annotators,
                [["—", "needs two or more reviewers deciding the same items", "", "", "", "", ""]],
            )
            self.annotator_rows = []
        self._fit(self.judge)
        self._fit(self.annotators)
        self.shown_items = []
        self._fill(self.items, [])
        self.items_title.setText("Click a row above to list the items where they disagree.")

    def show_items(self, rows: list[dict[str, Any]], index: int) -> None:
        if not 0 <= index < len(rows):
            return
        found: list[LabelDisagreement] = rows[index]["disagreements"]
        self.shown_items = list(found)
        self.items_title.setText(
            f"{len(found)} disagreeing item(s) — {metric_name(rows[index]['metric'])}. "
            "Double-click or Enter opens one."
        )
        self._fill(
            self.items,
            [
                [
                    where_text(d),
                    d.target_id,
                    ", ".join(f"{k}: {v}" for k, v in d.values.items()),
                    d.reason,
                ]
                for d in found
            ],
        )

    def open_row(self, row: int) -> None:
        if 0 <= row < len(self.shown_items):
            self.open_item.emit(self.shown_items[row])

    @staticmethod
    def _fit(table: QTableWidget, most: int = MAX_ROWS_SHOWN) -> None:
        """As tall as its rows (up to `most`), so no table is mostly blank."""
        rows = min(max(1, table.rowCount()), most)
        height = (
            table.horizontalHeader().sizeHint().height()
            + 2 * table.frameWidth()
            + sum(table.rowHeight(r) for r in range(min(rows, table.rowCount())))
        )
        if table.rowCount() == 0:
            height += table.verticalHeader().defaultSectionSize()
        table.setFixedHeight(height + 2)

    @staticmethod
    def _fill(table: QTableWidget, rows: list[list[Any]]) -> None:
        table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                item = QTableWidgetItem(_fmt(value))
                if isinstance(value, int | float) and not isinstance(value, bool):
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                table.setItem(r, c, item)
        table.resizeRowsToContents()
