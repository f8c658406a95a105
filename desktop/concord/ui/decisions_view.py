"""Decisions: the annotator queue (list + detail), the decision history, the always-visible
decision bar and the override dialog. All state lives in `ReviewQueue`."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from concord.domain import Case, Decision, Target
from concord.errors import ConcordError
from concord.review import DISAGREEMENT_VALUES, GATE_VALUES, MATCH_VALUES, target_spans
from concord.ui import theme
from concord.ui.item_models import Column, ListTableModel
from concord.ui.messages import error_text
from concord.ui.review_queue import QueueRow, ReviewQueue, action_text, neutral_label, verdict_text
from concord.ui.theme import plain_label


def _value(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return ", ".join(f"{v}" for v in value.values())
    return str(value)


class OverrideDialog(QDialog):
    """Asks for the human value and a reason; validates through the core before closing."""

    def __init__(
        self,
        queue: ReviewQueue,
        target: Target,
        reason: str,
        blind: bool,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("overrideDialog")
        self.queue = queue
        self.target = target
        self.decision: Decision | None = None
        self.setWindowTitle("Your answer (blind)" if blind else "Override judgement")
        self.setMinimumWidth(520)
        form = QFormLayout(self)
        label = neutral_label(target) if blind else target.label
        form.addRow(plain_label(label, bold=True))
        if not blind:
            form.addRow("Judge's value:", plain_label(verdict_text(target)))
        choices = {
            "gate": GATE_VALUES,
            "disagreement": DISAGREEMENT_VALUES,
            "match": MATCH_VALUES,
        }.get(target.kind)
        self.value_combo: QComboBox | None = None
        self.value_edit: QLineEdit | None = None
        if choices:
            self.value_combo = QComboBox()
            self.value_combo.addItems(list(choices))
            self.value_combo.setObjectName("overrideValue")
            form.addRow("Your value:", self.value_combo)
        else:
            upper = "1" if target.kind == "subscore" else "100"
            self.value_edit = QLineEdit()
            self.value_edit.setObjectName("overrideValue")
            self.value_edit.setPlaceholderText(f"a number from 0 to {upper}")
            form.addRow(f"Your value (0–{upper}):", self.value_edit)
        self.reason_edit = QLineEdit(reason)
        self.reason_edit.setObjectName("overrideReason")
        self.reason_edit.setPlaceholderText("why (required)")
        form.addRow("Reason:", self.reason_edit)
        self.error = plain_label()
        self.error.setStyleSheet(f"color:{theme.RED}")
        form.addRow(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.try_accept)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Record decision")
        form.addRow(buttons)

    def set_value(self, value: str) -> None:
        if self.value_combo is not None:
            self.value_combo.setCurrentText(value)
        elif self.value_edit is not None:
            self.value_edit.setText(value)

    def value(self) -> str:
        if self.value_combo is not None:
            return self.value_combo.currentText()
        assert self.value_edit is not None
        return self.value_edit.text()

    def try_accept(self) -> None:
        try:
            self.decision = self.queue.override(self.value(), self.reason_edit.text())
        except ConcordError as exc:
            self.error.setText(error_text(exc))
            return
        self.accept()


class DecisionBar(QWidget):
    """One line, always visible under the case: the current judgement and its buttons."""

    def __init__(self, queue: ReviewQueue, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("decisionBar")
        self.queue = queue
        self.position = plain_label(bold=True)
        self.position.setWordWrap(False)
        self.label = plain_label()
        self.verdict = plain_label(bold=True)
        self.verdict.setWordWrap(False)
        self.reason = QLineEdit()
        self.reason.setObjectName("decisionReason")
        self.reason.setPlaceholderText("Reason (optional for Accept, required for Override)")
        self.accept_button = QPushButton("Accept (A)")
        self.accept_button.setToolTip("Accept the judge's value — shortcut A")
        self.override_button = QPushButton("Override… (O)")
        self.override_button.setToolTip("Give your own value and a reason — shortcut O")
        self.prev_button = QPushButton("◀ Previous (P)")
        self.prev_button.setToolTip("Previous judgement — P or K")
        self.next_button = QPushButton("Next (N) ▶")
        self.next_button.setToolTip("Next judgement — N or J")
        self.progress = QProgressBar()
        self.progress.setObjectName("queueProgress")
        self.progress.setFormat("%v / %m decided")
        self.progress.setMinimumWidth(160)
        top = QHBoxLayout()
        top.addWidget(self.position)
        top.addWidget(self.label, 1)
        top.addWidget(self.verdict)
        bottom = QHBoxLayout()
        bottom.addWidget(self.reason, 1)
        for b in (self.accept_button, self.override_button, self.prev_button, self.next_button):
            bottom.addWidget(b)
        bottom.addWidget(self.progress)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addLayout(top)
        lay.addLayout(bottom)
        self.setStyleSheet("#decisionBar { background:#f3f6fa; border-top:1px solid #9aa; }")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        queue.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        q = self.queue
        row = q.current_row
        self.progress.setMaximum(max(1, q.total))
        self.progress.setValue(q.done)
        for b in (self.accept_button, self.override_button, self.prev_button, self.next_button):
            b.setEnabled(row is not None)
        if row is None:
            self.position.setText("No judgements")
            self.label.setText("")
            self.verdict.setText("")
            return
        self.position.setText(
            f"Judgement {q.index + 1} of {q.total}" + (" · required" if row.required else "")
        )
        visible = q.verdict_visible(row)
        self.label.setText(row.target.label if visible else neutral_label(row.target))
        if visible:
            shown = q.shown_decision(row)
            who = (
                "you"
                if shown is not None and shown.user == q.user
                else (shown.user if shown is not None else "")
            )
            state = (
                f" — {who}: {action_text(shown)} → {_value(shown.new_value)}"
                if shown is not None
                else ""
            )
            self.verdict.setText(f"Judge: {verdict_text(row.target)}{state}")
            self.verdict.setStyleSheet("font-weight:bold")
        else:
            self.verdict.setText("Judge's verdict hidden (blind) — answer first")
            self.verdict.setStyleSheet(f"font-weight:bold; color:{theme.GREY}")
        self.accept_button.setEnabled(visible)
        self.override_button.setText("Override… (O)" if visible else "Answer… (O)")


HISTORY_COLUMNS: list[Column[Decision]] = [
    Column("When (UTC)", lambda d: d.at.strftime("%Y-%m-%d %H:%M")),
    Column("Who", lambda d: d.user),
    Column("Judgement", lambda d: d.target_id),
    Column(
        "Action",
        action_text,
        bold=lambda d: d.action.value == "override",
        foreground=lambda d: theme.RED if d.action.value == "override" else None,
    ),
    Column(
        "Judge → human",
        lambda d: f"{_value(d.original_value)} → {_value(d.new_value)}",
        tooltip="The judge's value and the value the human recorded",
    ),
    Column("Reason", lambda d: d.reason),
]


def _status(decision: Decision | None) -> str:
    if decision is None:
        return "• to do"
    return "✓ accepted" if decision.action.value == "accept" else "✎ overridden"


class DecisionsPanel(QWidget):
    """The Decisions tab: queue list, detail of the current judgement, history."""

    target_activated = Signal(object)  # Target: show its evidence

    def __init__(self, queue: ReviewQueue, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.queue = queue
        self.case: Case | None = None
        self.blind_box = QCheckBox("Blind mode (B): hide the judge's verdicts until I answer")
        self.blind_box.setObjectName("blindBox")
        self.blind_box.toggled.connect(queue.set_blind)
        queue.blind_changed.connect(self._blind_changed)
        self.summary = plain_label(bold=True)
        columns: list[Column[QueueRow]] = [
            Column(
                "Status",
                lambda r: _status(queue.shown_decision(r)),
                bold=lambda r: queue.answered(r),
                foreground=lambda r: theme.GREEN if queue.answered(r) else None,
            ),
            Column("Judgement", self._row_label),
            Column("Judge's value", self._row_value),
            Column(
                "Required to sign",
                lambda r: "required" if r.required else "",
                foreground=lambda r: theme.RED if r.required and not r.decided else None,
            ),
        ]
        self.model: ListTableModel[QueueRow] = ListTableModel(columns)
        self.list = QTableView()
        self.list.setObjectName("queueTable")
        self.list.setModel(self.model)
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.verticalHeader().setVisible(False)
        self.list.setWordWrap(True)
        h = self.list.horizontalHeader()
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.list.clicked.connect(lambda idx: queue.go(idx.row()))
        self.detail = QPlainTextEdit()
        self.detail.setObjectName("targetDetail")
        self.detail.setReadOnly(True)
        self.show_button = QPushButton("Show evidence in the record")
        self.show_button.clicked.connect(lambda: self.target_activated.emit(queue.current))
        self.history_model: ListTableModel[Decision] = ListTableModel(HISTORY_COLUMNS)
        self.history = QTableView()
        self.history.setObjectName("historyTable")
        self.history.setModel(self.history_model)
        self.history.verticalHeader().setVisible(False)
        self.history.setWordWrap(True)
        hh = self.history.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        hh.setStretchLastSection(True)

        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.blind_box)
        ll.addWidget(self.summary)
        ll.addWidget(self.list, 1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(plain_label("Current judgement", bold=True))
        rl.addWidget(self.detail, 1)
        rl.addWidget(self.show_button)
        self.history_title = plain_label(
            "Decision history (appended, never edited; newest last)", bold=True
        )
        rl.addWidget(self.history_title)
        self.history_empty = plain_label(
            "No decision on this case yet: A accepts the current "
            "judgement, O overrides it (with a reason)."
        )
        self.history_empty.setStyleSheet(f"color:{theme.GREY}")
        rl.addWidget(self.history_empty)
        rl.addWidget(self.history, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([1100, 900])
        lay = QVBoxLayout(self)
        lay.addWidget(split)
        queue.changed.connect(self.refresh)

    def _row_label(self, row: QueueRow) -> str:
        return row.target.label if self.queue.verdict_visible(row) else neutral_label(row.target)

    def _row_value(self, row: QueueRow) -> str:
        return verdict_text(row.target) if self.queue.verdict_visible(row) else "hidden"

    def _blind_changed(self, on: bool) -> None:
        if self.blind_box.isChecked() != on:
            self.blind_box.setChecked(on)

    def refresh(self) -> None:
        q = self.queue
        self.model.set_rows(q.rows)
        visible = q.visible_decisions()
        self.history_model.set_rows(visible)
        self.history_empty.setVisible(not visible)
        self.history.scrollToBottom()
        hidden = len(q.decisions) - len(visible)
        self.history_title.setText(
            "Decision history (appended, never edited; newest last)"
            + (f" — blind mode: only yours; {hidden} by other reviewers hidden" if hidden else "")
        )
        self.summary.setText(
            (
                f"You answered {q.done} / {q.total} (blind mode)"
                if q.blind
                else f"Decided {q.done} / {q.total}"
            )
            + f"; required before signing: {q.required_outstanding} outstanding"
        )
        if q.rows:
            self.list.selectRow(q.index)
            self.list.scrollTo(self.model.index(q.index, 0))
        self.detail.setPlainText(self._detail_text())

    def _detail_text(self) -> str:
        q = self.queue
        row = q.current_row
        if row is None or q.case is None:
            return "No judgement selected."
        target = row.target
        visible = q.verdict_visible(row)
        lines = [target.label if visible else neutral_label(target), ""]
        lines.append(
            "Judge's value: "
            + (verdict_text(target) if visible else "hidden until you answer (blind mode)")
        )
        if target.kind == "disagreement":
            who, _, did = target.id.split("/", 2)
            for card in q.case.scorecards:
                if card.specialist == who:
                    for d in card.disagreements:
                        if d.disagreement_id == did:
                            lines.append(f"Description: {d.description}")
                            if d.items:
                                lines.append("Brief items: " + ", ".join(d.items))
        spans = target_spans(q.case, target)
        if spans:
            lines.append("")
            lines.append("Evidence in the record:")
            lines += [f"  [{s['source_id']} {s['start']}–{s['end']}] “{s['text']}”" for s in spans]
        history = [d for d in q.visible_decisions() if d.target_id == target.id]
        if history:
            lines.append("")
            lines.append("Decisions on this judgement:")
            for d in history:
                lines.append(
                    f"  {d.at:%Y-%m-%d %H:%M} {d.user}: {action_text(d)} → "
                    f"{_value(d.new_value)} — {d.reason}"
                )
        lines.append("")
        lines.append(f"Target id: {target.id}")
        return "\n".join(lines)


def decision_json(decision: Decision) -> str:
    return json.dumps(decision.model_dump(mode="json"), indent=2)
