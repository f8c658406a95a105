"""Agreement: what the labels say about the judges and about the labellers.

From the top: the answers and sentences marked unsafe (most severe first); a warning for
any annotator who accepts the judge more than 95% of the time or spends under 2 s an item;
the charts — a judge x human confusion matrix per metric and judge (blind labels apart from
those given with the judge's value on screen; bulk accepts left out), Cohen's kappa with its
95% interval for every pair of annotators (across workstations once packages are merged),
and each annotator's acceptance rate and seconds per item; then the tables: judge vs human,
between annotators, per annotator, gold items, and the disagreeing items of the row clicked
(unsafe items first; double-click or Enter opens one where it can be reviewed again).

Everything is computed in the database thread (`workbench.agreement`, `labels.agreement`).
Every row shows its n; a kappa over fewer than `MIN_ITEMS_FOR_KAPPA` items says it is too
few to mean anything. In blind mode the page is hidden: it shows the judge's values on items
the reviewer may not have answered yet. "Export labels…" writes every label with its
provenance (JSONL and CSV, as `concord export-labels`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from concord.domain import TargetKind, TargetRef
from concord.eval.agreement import LabelDisagreement
from concord.labels.agreement import MAX_ACCEPTANCE, MIN_SECONDS, AgreementReport
from concord.ui import theme
from concord.ui.charts import Bar, BarChart, ConfusionChart, Interval, KappaChart
from concord.ui.commands import Command
from concord.ui.db import DbThread
from concord.ui.messages import error_text, show_banner
from concord.ui.theme import plain_label
from concord.workbench.agreement import MIN_ITEMS_FOR_KAPPA, agreement_tables, kappa_text

METRIC_NAMES = {
    "gate": "Record-screen red flag",
    "overall": "Overall score",
    "subscore": "Sub-score",
    "disagreement": "Disagreement (kind, severity)",
    "match": "Item match",
    "astrid_cf_sentence": "ASTRID: sentence",
    "astrid_cf": "ASTRID: CF (High/Low)",
    "astrid_cr": "ASTRID: context relevant?",
    "astrid_ra": "ASTRID: answer refuses?",
    "eval_grade": "EVAL: answer good/bad",
    "astrid_harm": "Harm: answer (severity)",
    "astrid_harm_sentence": "Harm: sentence (severity)",
    "eval_harm": "Harm: EVAL answer (severity)",
}
EXPLANATION = (
    "Blind = the judge's value was not on screen when the label was given (hidden, or the "
    "judge had not run yet): those labels are compared with every judge run over their set. "
    "Bulk accepts (Enter on the rest of an item, Ctrl+Shift+A) are left out. Cohen's κ "
    "corrects agreement for chance (1 perfect, 0 chance), with its 95% bootstrap interval; "
    f"below n = {MIN_ITEMS_FOR_KAPPA} it is too few to mean anything."
)
SHORT_NAMES = {
    "astrid_cf_sentence": "QA sentence",
    "astrid_cf": "QA CF High/Low",
    "astrid_cr": "QA context relevant",
    "astrid_ra": "QA refuses",
    "eval_grade": "EVAL good/bad",
    "astrid_harm": "harm (answer)",
    "astrid_harm_sentence": "harm (sentence)",
    "eval_harm": "harm (EVAL)",
}
"""Metric names short enough for a chart's title."""
MAX_ROWS_SHOWN = 8
CHARTS_PER_ROW = 5


def metric_name(kind: str) -> str:
    return METRIC_NAMES.get(kind, kind)


def _fmt(value: Any) -> str:
    if value is None:
        return "n/a"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _ci(row: dict[str, Any]) -> str:
    ci = row.get("ci95")
    return "" if not ci else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def _table(headers: list[str], name: str, stretch: int = 0) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(headers)
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
    if kind in (TargetKind.EVAL_GRADE, TargetKind.EVAL_HARM):
        return f"question set {d.case_id}"
    return f"case {d.case_id}"


def _clear(layout: QGridLayout | QHBoxLayout) -> None:
    while layout.count():
        item = layout.takeAt(0)
        widget = item.widget() if item is not None else None
        if widget is not None:
            widget.deleteLater()


def _heading(text: str) -> QLabel:
    return plain_label(text, bold=True, style="font-size:11pt")


class AgreementView(QWidget):
    """The Agreement page."""

    title = "Agreement"
    tip = "Judge vs human and between-annotator agreement, with the disagreeing items (Alt+4)"
    commands_changed = Signal()
    open_item = Signal(object)  # LabelDisagreement
    export_requested = Signal()
    JUDGE_HEADERS = [
        "What was judged",
        "Judged by",
        "Labels",
        "n",
        "Accuracy",
        "Cohen's κ",
        "95% CI",
        "Bulk left out",
        "Disagreements",
    ]
    ANNOTATOR_HEADERS = [
        "What was judged",
        "Annotators",
        "κ used",
        "n (both labelled)",
        "Agreement",
        "κ",
        "95% CI",
        "Disagreements",
    ]
    RATER_HEADERS = [
        "Annotator",
        "Labels",
        "Items",
        "Blind",
        "Bulk",
        "Judge shown",
        "Accepted",
        "Acceptance",
        "Seconds / item",
    ]
    GOLD_HEADERS = ["Annotator", "Gold items", "Gold labels", "Correct", "Accuracy"]
    UNSAFE_HEADERS = ["Severity", "Where", "Item", "Sentence", "Marked by", "Reason"]
    ITEM_HEADERS = ["Where", "Judgement", "Values (who: value)", "Reason"]

    def __init__(self, db: DbThread, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("agreementPage")
        self.db = db
        self.blind = False
        self.report: AgreementReport | None = None
        self.judge_rows: list[dict[str, Any]] = []
        self.annotator_rows: list[dict[str, Any]] = []
        self.shown_items: list[LabelDisagreement] = []
        self.unsafe = _table(self.UNSAFE_HEADERS, "agreementUnsafe", stretch=5)
        self.judge = _table(self.JUDGE_HEADERS, "agreementJudge")
        self.annotators = _table(self.ANNOTATOR_HEADERS, "agreementAnnotators")
        self.raters = _table(self.RATER_HEADERS, "agreementRaters")
        self.gold = _table(self.GOLD_HEADERS, "agreementGold")
        self.items = _table(self.ITEM_HEADERS, "agreementItems", stretch=3)
        self.judge.cellClicked.connect(lambda row, _col: self.show_items(self.judge_rows, row))
        self.annotators.cellClicked.connect(
            lambda row, _col: self.show_items(self.annotator_rows, row)
        )
        self.items.activated.connect(lambda index: self.open_row(index.row()))
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.export_button = QPushButton("Export labels…")
        self.export_button.setObjectName("exportLabels")
        self.export_button.setToolTip(
            "Every label with how it was given (blind, bulk, golden answers shown, seconds "
            "on the item, the judge run, unsafe), as JSONL and CSV"
        )
        self.export_button.clicked.connect(self.export_requested.emit)
        self.open_button = QPushButton("Open selected item (Enter)")
        self.open_button.clicked.connect(lambda: self.open_row(self.items.currentRow()))
        self.summary = plain_label()
        self.summary.setObjectName("agreementSummary")
        self.banner = plain_label()
        self.banner.setObjectName("agreementBanner")
        self.banner.hide()
        self.warnings = plain_label()
        self.warnings.setObjectName("agreementWarnings")
        self.warnings.hide()
        head = QHBoxLayout()
        head.addWidget(
            plain_label(
                "Agreement — judge vs human, between annotators, per annotator",
                bold=True,
                style="font-size:12pt",
            ),
            1,
        )
        head.addWidget(self.export_button)
        head.addWidget(self.refresh_button)
        note = plain_label(EXPLANATION)
        note.setStyleSheet("color:#333; font-size:8.5pt")
        self.items_title = plain_label(
            "Click a row of the tables above to list the items where they disagree.", bold=True
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

        self.unsafe_title = _heading("Marked unsafe")
        self.confusion_box = QWidget()
        self.confusion_grid = QGridLayout(self.confusion_box)
        self.confusion_grid.setContentsMargins(0, 0, 0, 0)
        self.confusion_grid.setHorizontalSpacing(6)
        self.confusion_grid.setVerticalSpacing(6)
        self.people_box = QWidget()
        self.people = QHBoxLayout(self.people_box)
        self.people.setContentsMargins(0, 0, 0, 0)

        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.addWidget(self.unsafe_title)
        layout.addWidget(self.unsafe)
        layout.addWidget(_heading("Annotators: κ per pair (95% CI), acceptance of the judge, time"))
        layout.addWidget(self.people_box)
        layout.addWidget(
            _heading("Judge × human per metric (rows: judge · columns: human; bulk left out)")
        )
        layout.addWidget(self.confusion_box)
        layout.addWidget(_heading("Judge vs human"))
        layout.addWidget(self.judge)
        layout.addWidget(_heading("Between annotators"))
        layout.addWidget(self.annotators)
        layout.addWidget(_heading("Per annotator"))
        layout.addWidget(self.raters)
        self.gold_title = _heading("Gold items (honeypots)")
        layout.addWidget(self.gold_title)
        layout.addWidget(self.gold)
        layout.addLayout(items_head)
        layout.addWidget(self.items)
        layout.addStretch(1)
        self.scroller = QScrollArea()
        self.scroller.setObjectName("agreementScroll")
        self.scroller.setWidgetResizable(True)
        self.scroller.setWidget(content)

        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        body.addLayout(head)
        body.addWidget(note)
        body.addWidget(self.banner)
        body.addWidget(self.warnings)
        body.addWidget(self.summary)
        body.addWidget(self.scroller, 1)
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

    # showing ---------------------------------------------------------------------------

    def _loaded(self, report: AgreementReport) -> None:
        self.report = report
        self.judge_rows = report.judge
        self.annotator_rows = report.annotators
        compared = sum(r["n"] for r in report.judge)
        self.summary.setText(
            f"{report.labels} standing label(s); {compared} judge-vs-human pair(s) compared; "
            f"{report.bulk_left_out} bulk accept(s) left out; {len(report.unsafe)} unsafe "
            "mark(s)."
            if report.labels
            else "No labels yet: accept or override judgements (Patients, QA review), grade "
            "answers (Answer grading) or merge label packages, and the agreement appears here."
        )
        if report.warnings:
            show_banner(self.warnings, "⚠ " + "\n⚠ ".join(report.warnings), "warning")
        else:
            self.warnings.hide()
        self._fill_unsafe(report)
        self._fill_charts(report)
        self._fill_tables(report)
        self.shown_items = []
        self._fill(self.items, [])
        self.items_title.setText(
            "Click a row of the tables above to list the items where they disagree."
        )

    def _fill_unsafe(self, report: AgreementReport) -> None:
        marks = report.unsafe
        self.unsafe_title.setText(
            f"Marked unsafe ({len(marks)}) — most severe first"
            if marks
            else "Marked unsafe: none (H marks an answer or a sentence unsafe)"
        )
        self.unsafe.setVisible(bool(marks))
        self._fill(
            self.unsafe,
            [
                [
                    m["severity"].upper(),
                    m["scope"],
                    m["item"],
                    "" if m["sentence"] is None else f"S{m['sentence']}",
                    m["rater"],
                    m["reason"],
                ]
                for m in marks
            ],
        )
        for r, m in enumerate(marks):
            colours = theme.SEVERITY_COLOURS.get(m["severity"])
            cell = self.unsafe.item(r, 0)
            if colours and cell is not None:
                cell.setBackground(QColor(colours[0]))
                cell.setForeground(QColor(colours[1]))
        self._fit(self.unsafe)

    def _fill_charts(self, report: AgreementReport) -> None:
        _clear(self.confusion_grid)
        shown = [r for r in report.judge if r["n"]]
        for n, row in enumerate(shown):
            kappa = "κ n/a" if row["kappa"] is None else f"κ {row['kappa']:.2f} {_ci(row)}"
            chart = ConfusionChart(
                f"{SHORT_NAMES.get(row['metric'], metric_name(row['metric']))} · "
                + ("blind" if row["blind"] else "judge shown"),
                [
                    f"judge: {row['model']}",
                    f"n={row['n']} · accuracy {_fmt(row['accuracy'])} · {kappa}",
                ],
                row["confusion"]["categories"],
                row["confusion"]["rows_judge_cols_human"],
            )
            self.confusion_grid.addWidget(
                chart,
                n // CHARTS_PER_ROW,
                n % CHARTS_PER_ROW,
                Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft,
            )
        if not shown:
            self.confusion_grid.addWidget(
                plain_label("No label compared with a judge yet (bulk accepts do not count)."),
                0,
                0,
            )
        self.confusion_grid.setColumnStretch(CHARTS_PER_ROW, 1)
        _clear(self.people)
        pairs = [r for r in report.annotators if r["kappa_kind"] == "cohen"]
        self.people.addWidget(
            KappaChart(
                "Cohen's κ per annotator pair, with 95% CI",
                [
                    Interval(
                        f"{SHORT_NAMES.get(r['metric'], r['metric'])}: "
                        + " / ".join(r["annotators"]),
                        r["kappa"],
                        r["ci95"][0] if r["ci95"] else None,
                        r["ci95"][1] if r["ci95"] else None,
                        r["n"],
                    )
                    for r in pairs
                ],
            ),
            3,
            Qt.AlignmentFlag.AlignTop,
        )
        raters = report.per_annotator
        self.people.addWidget(
            BarChart(
                "Acceptance of the judge's shown value",
                [
                    Bar(
                        r["rater"],
                        r["acceptance_rate"],
                        "–" if r["acceptance_rate"] is None else f"{r['acceptance_rate']:.0%}",
                    )
                    for r in raters
                ],
                top=1.0,
                threshold=MAX_ACCEPTANCE,
                threshold_text=f"{MAX_ACCEPTANCE:.0%}",
                bad=lambda v: v > MAX_ACCEPTANCE,
            ),
            2,
            Qt.AlignmentFlag.AlignTop,
        )
        most = max([r["seconds_per_item"] or 0 for r in raters] + [10.0])
        self.people.addWidget(
            BarChart(
                "Seconds per item (median)",
                [
                    Bar(
                        r["rater"],
                        r["seconds_per_item"],
                        "–" if r["seconds_per_item"] is None else f"{r['seconds_per_item']:.1f} s",
                    )
                    for r in raters
                ],
                top=most,
                threshold=MIN_SECONDS,
                threshold_text=f"{MIN_SECONDS:g} s",
                bad=lambda v: v < MIN_SECONDS,
            ),
            2,
            Qt.AlignmentFlag.AlignTop,
        )

    def _fill_tables(self, report: AgreementReport) -> None:
        self._fill(
            self.judge,
            [
                [
                    metric_name(r["metric"]),
                    r["model"],
                    "blind" if r["blind"] else "judge shown",
                    r["n"],
                    r["accuracy"],
                    kappa_text(r["kappa"], r["n"]),
                    _ci(r),
                    r["bulk_left_out"],
                    len(r["disagreements"]),
                ]
                for r in self.judge_rows
            ]
            or [["—", "no label compared with a judge yet", "", "", "", "", "", "", ""]],
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
                    _ci(r),
                    len(r["disagreements"]),
                ]
                for r in self.annotator_rows
            ]
            or [["—", "needs two or more raters labelling the same items", "", "", "", "", "", ""]],
        )
        self._fill(
            self.raters,
            [
                [
                    r["rater"] + (" ⚠" if r["warnings"] else ""),
                    r["labels"],
                    r["items"],
                    r["blind"],
                    r["bulk"],
                    r["shown"],
                    r["accepted"],
                    "n/a" if r["acceptance_rate"] is None else f"{r['acceptance_rate']:.0%}",
                    "n/a" if r["seconds_per_item"] is None else f"{r['seconds_per_item']:.1f}",
                ]
                for r in report.per_annotator
            ],
        )
        self.gold_title.setVisible(bool(report.gold))
        self.gold.setVisible(bool(report.gold))
        self._fill(
            self.gold,
            [
                [g["rater"], g["gold_items"], g["n"], g["correct"], g["accuracy"]]
                for g in report.gold
            ],
        )
        for table in (self.judge, self.annotators, self.raters, self.gold):
            self._fit(table)

    def show_items(self, rows: list[dict[str, Any]], index: int) -> None:
        if not 0 <= index < len(rows):
            return
        found: list[LabelDisagreement] = rows[index]["disagreements"]
        self.shown_items = list(found)
        self.items_title.setText(
            f"{len(found)} disagreeing item(s) — {metric_name(rows[index]['metric'])} "
            "(unsafe items first). Double-click or Enter opens one."
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
        self._fit(self.items, most=20)

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
