"""One ASTRID item on screen: the question, the retrieved context with where code finds each
answer sentence, the verdicts to decide (one per sentence, context relevance, refusal), the
options of the current verdict as buttons with their key printed on them, and the key
legend. Every piece of QA text is shown as plain text.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from concord.astrid.items import QaItem
from concord.report.values import value_text
from concord.ui import theme
from concord.ui.theme import plain_label
from concord.ui.utf16 import Utf16Map
from concord.workbench.qa_session import CR, RA, SENTENCE, QaRow, QaSession

VERDICT_TINTS = {
    "grounded": "#cdeecd",
    "ungrounded": "#f7c6c6",
    "conversational": "#e4e4e4",
    "failed": "#ffe0a0",
}
SELECTED_TINT = "#ffd36b"
QUESTIONS = {
    CR: "CR — is the retrieved context relevant to the question?",
    RA: "RA — does the answer refuse (decline to answer)?",
}
KEY_LEGEND = (
    "Keys: 1 / 2 / 3 answer with the option printed on the button · A accept the judge's "
    "verdict · Enter accept the rest of this item and go on (recorded as a bulk accept) · "
    "S skip (unsure) · H mark unsafe · Ctrl+Z or Backspace undo · J / K verdict · N / P item · "
    "R reason · B blind mode"
)
BLIND_LEGEND = (
    "Blind mode: answer each verdict with 1 / 2 / 3 (the options are on the buttons); the "
    "judge's verdict shows once you have answered · S skip · H mark unsafe · Ctrl+Z undo · "
    "J / K verdict · N / P item · R reason (optional) · B leaves blind mode"
)
CONTEXT_LEGEND = (
    "Where code finds each answer sentence in the context: green = grounded · red = NOT "
    "grounded · grey = conversational · amber = no verdict · orange = the current sentence"
)


def file_labels_text(item: QaItem) -> str:
    labels = item.labels.present()
    if not labels:
        return "Labels in the file: none"
    words = {
        "cf": "CF",
        "cr": "context relevant",
        "ra": "answer refuses",
        "harmful": "harmful",
        "helpful": "helpful",
        "inappropriate": "inappropriate",
    }
    parts = [f"{words.get(key, key)}: {value_text(value)}" for key, value in labels.items()]
    return "Labels in the file: " + " · ".join(parts)


def context_text(item: QaItem) -> tuple[str, list[int]]:
    """The chunks as one plain text, and where (Python offsets) each chunk's text starts."""
    parts, starts, at = [], [], 0
    for n, chunk in enumerate(item.context, start=1):
        head = f"[C{n}] "
        starts.append(at + len(head))
        parts.append(head + chunk)
        at += len(head + chunk) + 2
    return "\n\n".join(parts), starts


class QaItemView(QWidget):
    row_chosen = Signal(int)  # the current verdict row changed
    option_clicked = Signal(int)  # 1-based option of the current row

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.item_label = plain_label("", wrap=True)
        self.item_label.setObjectName("qaItemLabel")
        self.item_label.setStyleSheet("font-weight:bold; font-size:12pt")
        self.labels_label = plain_label()
        self.labels_label.setObjectName("qaFileLabels")
        self.labels_label.setStyleSheet(f"color:{theme.GREY}")
        self.question = QPlainTextEdit()
        self.question.setObjectName("qaQuestion")
        self.question.setReadOnly(True)
        self.question.setMaximumHeight(56)
        self.question.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.context = QPlainTextEdit()
        self.context.setObjectName("qaContext")
        self.context.setReadOnly(True)
        self.context.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.targets = QListWidget()
        self.targets.setObjectName("qaTargets")
        self.targets.setWordWrap(True)
        self.targets.setSpacing(1)
        self.targets.currentRowChanged.connect(self.row_chosen.emit)
        self.cf_label = plain_label()
        self.cf_label.setObjectName("qaCf")
        self.reason_label = plain_label()
        self.reason_label.setObjectName("qaJudgeReason")
        self.option_buttons: list[QPushButton] = []
        options = QHBoxLayout()
        options.addWidget(plain_label("Your answer:", bold=True, wrap=False))
        for n in (1, 2, 3):
            button = QPushButton()
            button.setObjectName(f"qaOption{n}")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(lambda _=False, n=n: self.option_clicked.emit(n))
            self.option_buttons.append(button)
            options.addWidget(button)
        options.addStretch(1)
        self.options = options
        self.legend = plain_label(KEY_LEGEND)
        self.legend.setObjectName("qaKeyLegend")
        self.legend.setStyleSheet("color:#222; font-size:9pt; background:#eef2f7; padding:3px")

        context_box = QWidget()
        cl = QVBoxLayout(context_box)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(plain_label("Retrieved context", bold=True))
        context_legend = plain_label(CONTEXT_LEGEND)
        context_legend.setStyleSheet("color:#333; font-size:9pt")
        cl.addWidget(context_legend)
        cl.addWidget(self.context, 1)
        targets_box = QWidget()
        tl = QVBoxLayout(targets_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(plain_label("The answer, sentence by sentence, and the item", bold=True))
        tl.addWidget(self.targets, 1)
        tl.addWidget(self.cf_label)
        middle = QSplitter(Qt.Orientation.Horizontal)
        middle.addWidget(context_box)
        middle.addWidget(targets_box)
        middle.setStretchFactor(0, 1)
        middle.setStretchFactor(1, 1)
        middle.setChildrenCollapsible(False)

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.item_label)
        column.addWidget(self.labels_label)
        column.addWidget(plain_label("Question", bold=True))
        column.addWidget(self.question)
        column.addWidget(middle, 1)
        column.addWidget(self.reason_label)
        column.addLayout(options)
        column.addWidget(self.legend)

    # what is shown ---------------------------------------------------------------------

    @staticmethod
    def hidden(session: QaSession, row: QaRow, blind: bool) -> bool:
        """Is the judge's verdict on this row hidden (blind, not yet answered)?"""
        return blind and not session.decided(row)

    def row_text(self, session: QaSession, row: QaRow, blind: bool) -> str:
        if row.judge is None:
            judge = "no judge verdict"
        elif self.hidden(session, row, blind):
            judge = "judge: hidden (blind)"
        else:
            judge = f"judge: {value_text(row.judge_value)}"
        mine = session.mine.get(row.target_id)
        you = "you: —" if mine is None else f"you: {value_text(mine.new_value)}"
        if row.kind == SENTENCE and row.sentence is not None:
            text = session.sentences[row.item_id][row.sentence].text
            harm = session.harm(row.item_id, row.sentence)
            unsafe = f" · ⚠ UNSAFE ({harm})" if harm else ""
            return f"S{row.sentence + 1}   [{judge} · {you}{unsafe}]\n“{text}”"
        extra = ""
        if row.kind == RA:
            item = session.items[session.item_index(row.item_id)]
            extra = (
                f"\nscope: {item.scope or 'not given'} — refusing is right only for an "
                "out-of-scope question"
            )
        return f"{QUESTIONS[row.kind]}   [{judge} · {you}]{extra}"

    @staticmethod
    def row_tint(session: QaSession, row: QaRow, blind: bool) -> str | None:
        mine = session.mine.get(row.target_id)
        if mine is not None:
            return VERDICT_TINTS.get(str(mine.new_value))
        if blind or row.judge is None:
            return None
        return VERDICT_TINTS.get(str(row.judge_value))

    def show_item(self, session: QaSession, index: int, row: int, blind: bool) -> None:
        item = session.items[index]
        rows = session.item_rows(item.item_id)
        decided = sum(session.decided(r) for r in rows)
        scope = {"in": "in scope", "out": "OUT OF SCOPE"}.get(str(item.scope or ""), "scope ?")
        harm = session.harm(item.item_id)
        self.item_label.setText(
            f"Item {index + 1} of {len(session.items)}: {item.item_id} · {scope} · "
            f"you decided {decided} of {len(rows)}"
            + (f" · ⚠ you marked the answer UNSAFE ({harm})" if harm else "")
        )
        self.labels_label.setText(
            "Labels in the file: hidden in blind mode" if blind else file_labels_text(item)
        )
        self.question.setPlainText(item.question)
        self.targets.blockSignals(True)
        self.targets.clear()
        for r in rows:
            entry = QListWidgetItem(self.row_text(session, r, blind))
            tint = self.row_tint(session, r, blind)
            if tint:
                entry.setBackground(QColor(tint))
            self.targets.addItem(entry)
        self.targets.setCurrentRow(min(max(0, row), len(rows) - 1))
        self.targets.blockSignals(False)
        self.legend.setText(BLIND_LEGEND if blind else KEY_LEGEND)
        self._show_cf(session, item, blind)
        self.show_row(session, item, blind)

    def _show_cf(self, session: QaSession, item: QaItem, blind: bool) -> None:
        mine = session.cf_mine(item.item_id)
        judge = session.cf_judge.get(item.item_id)
        yours = (
            f"{mine:.2f} from your sentence verdicts"
            if mine is not None
            else "computed from your sentence verdicts once each is decided"
        )
        shown = "" if judge is None or (blind and mine is None) else f" · judge's CF {judge:.2f}"
        self.cf_label.setText(f"CF (conversational faithfulness): {yours}{shown}")

    def current_row(self, session: QaSession, item: QaItem) -> QaRow | None:
        rows = session.item_rows(item.item_id)
        n = self.targets.currentRow()
        return rows[n] if 0 <= n < len(rows) else None

    def show_row(self, session: QaSession, item: QaItem, blind: bool) -> None:
        """The current row: its options on the buttons, the judge's reason, the context."""
        row = self.current_row(session, item)
        self._paint_context(session, item, None if row is None else row.sentence, blind)
        mine = None if row is None else session.mine.get(row.target_id)
        hidden = row is not None and self.hidden(session, row, blind)
        options = row.options if row is not None else ()
        for n, button in enumerate(self.option_buttons):
            button.setVisible(n < len(options))
            if n >= len(options):
                continue
            option = options[n]
            marks = []
            if (
                row is not None
                and row.judge is not None
                and not hidden
                and row.judge_value == option
            ):
                marks.append("◆ judge")
            if mine is not None and mine.new_value == option:
                marks.append("✓ you")
            button.setText(f"{n + 1}  {option}" + (f"   ({', '.join(marks)})" if marks else ""))
            button.setToolTip(f"Key {n + 1}: answer “{option}”")
        if row is None or row.judge is None:
            self.reason_label.setText(
                "No judge run on this item: your answers are labels" if row else ""
            )
        elif hidden:
            self.reason_label.setText("Judge's verdict and reason: hidden until you answer")
        else:
            self.reason_label.setText(f"Judge's reason: {row.judge_reason or '(none given)'}")

    def _paint_context(
        self, session: QaSession, item: QaItem, selected: int | None, blind: bool
    ) -> None:
        text, starts = context_text(item)
        positions = Utf16Map(text)
        self.context.setPlainText(text)
        rows = {r.sentence: r for r in session.item_rows(item.item_id) if r.sentence is not None}
        for (item_id, sentence), span in session.spans.items():
            if item_id != item.item_id:
                continue
            row = rows.get(sentence)
            tint = (
                SELECTED_TINT
                if sentence == selected
                else (self.row_tint(session, row, blind) if row is not None else None)
            )
            if tint is None:
                continue
            cursor = QTextCursor(self.context.document())
            cursor.setPosition(positions.qt(starts[span.chunk] + span.start))
            cursor.setPosition(
                positions.qt(starts[span.chunk] + span.end), QTextCursor.MoveMode.KeepAnchor
            )
            fmt = QTextCharFormat()
            fmt.setBackground(QColor(tint))
            cursor.mergeCharFormat(fmt)
            if sentence == selected:
                view = self.context.textCursor()
                view.setPosition(cursor.selectionStart())
                self.context.setTextCursor(view)
                self.context.ensureCursorVisible()

    def clear(self) -> None:
        self.targets.clear()
        self.question.setPlainText("")
        self.context.setPlainText("")
        self.item_label.setText("")
        self.labels_label.setText("")
        self.reason_label.setText("")
        self.cf_label.setText("")
        for button in self.option_buttons:
            button.setVisible(False)
