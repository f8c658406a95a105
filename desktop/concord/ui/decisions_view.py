"""Decisions: the review queue (list + detail), the decision history, the always-visible
decision bar and the override dialog. All state lives in `ReviewQueue`.

The queue lists required judgements first, in order of harm (red flags missed by every
agent, major red flags missed, the other red flags, then the rest), with their count; a red
flag takes a disposition (proceed, postpone, refer, not relevant here) with a reason, never
an accept; a major finding is accepted only once its evidence was opened (E); the failed
quotes of a brief are one entry with the list inside; "Accept the remaining optional
judgements" (Ctrl+Shift+A) accepts what is optional and undecided, recorded as a bulk
accept; Ctrl+Z withdraws the last decision."""

from __future__ import annotations

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

from concord.domain import Decision, Disposition, TargetKind
from concord.errors import ConcordError
from concord.report.values import value_text
from concord.review import DISAGREEMENT_VALUES, GATE_VALUES, MATCH_VALUES, target_spans
from concord.ui import theme
from concord.ui.item_models import Column, ListTableModel
from concord.ui.messages import error_text
from concord.ui.review_queue import ReviewQueue
from concord.ui.theme import plain_label
from concord.workbench.case_queue import (
    QueueEntry,
    action_text,
    disagreement_of,
    disposition_title,
    entry_label,
    entry_verdict,
    judgement_words,
)


def _value_words(decision: Decision) -> str:
    if decision.target_kind == TargetKind.DISPOSITION and decision.new_value is not None:
        return disposition_title(decision.new_value)
    return value_text(decision.new_value)


class OverrideDialog(QDialog):
    """Asks for the human value and a reason; validates through the core before closing.
    Blind, nothing is preselected (a preselected value would be an answer the reviewer did
    not give) and the reason is optional."""

    def __init__(
        self,
        queue: ReviewQueue,
        entry: QueueEntry,
        reason: str,
        blind: bool,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("overrideDialog")
        self.queue = queue
        self.entry = entry
        target = entry.target
        self.decisions: list[Decision] = []
        disposition = entry.is_disposition
        self.setWindowTitle(
            "Disposition of the red flag"
            if disposition
            else ("Your answer (blind)" if blind else "Override judgement")
        )
        self.setMinimumWidth(520)
        form = QFormLayout(self)
        assert queue.case is not None
        form.addRow(plain_label(entry_label(queue.case, entry, visible=not blind), bold=True))
        if entry.is_group:
            form.addRow(
                plain_label(f"Your value applies to each of its {len(entry.targets)} judgements.")
            )
        if not blind and not disposition:
            form.addRow("Judge's value:", plain_label(entry_verdict(entry)))
        self.value_combo: QComboBox | None = None
        self.value_edit: QLineEdit | None = None
        self.blind = blind
        self.disposition = disposition
        if disposition:
            self.value_combo = QComboBox()
            for choice in Disposition:
                self.value_combo.addItem(choice.label, choice.value)
            self.value_combo.setObjectName("overrideValue")
            form.addRow("What will you do?", self.value_combo)
        choices = (
            None
            if disposition
            else {
                "gate": GATE_VALUES,
                "disagreement": DISAGREEMENT_VALUES,
                "match": MATCH_VALUES,
            }.get(target.kind)
        )
        if disposition:
            pass
        elif choices:
            self.value_combo = QComboBox()
            self.value_combo.addItems(list(choices))
            self.value_combo.setObjectName("overrideValue")
            if blind:
                self.value_combo.setCurrentIndex(-1)
                self.value_combo.setPlaceholderText("choose your answer")
            form.addRow("Your value:", self.value_combo)
        else:
            upper = "1" if target.kind == "subscore" else "100"
            self.value_edit = QLineEdit()
            self.value_edit.setObjectName("overrideValue")
            self.value_edit.setPlaceholderText(f"a number from 0 to {upper}")
            form.addRow(f"Your value (0–{upper}):", self.value_edit)
        self.reason_edit = QLineEdit(reason)
        self.reason_edit.setObjectName("overrideReason")
        self.reason_edit.setPlaceholderText(
            "why (optional for a blind answer)" if blind and not disposition else "why (required)"
        )
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
        # typing goes straight into the value (or the reason; a red flag's disposition
        # offers "proceed" first: the reason is what is typed)
        first = (
            self.reason_edit if disposition else self.value_combo or self.value_edit
        ) or self.reason_edit
        first.setFocus()

    def set_value(self, value: str) -> None:
        if self.value_combo is not None:
            index = self.value_combo.findData(value)
            if index >= 0:
                self.value_combo.setCurrentIndex(index)
            else:
                self.value_combo.setCurrentText(value)
        elif self.value_edit is not None:
            self.value_edit.setText(value)

    def value(self) -> str:
        if self.value_combo is not None:
            data = self.value_combo.currentData()
            return str(data) if data is not None else self.value_combo.currentText()
        assert self.value_edit is not None
        return self.value_edit.text()

    def try_accept(self) -> None:
        if not self.value().strip():
            self.error.setText("Choose or type your answer first.")
            return
        # without words: the core's rule (a blind answer may, a disposition never)
        reason = self.reason_edit.text().strip()
        try:
            self.decisions = self.queue.override(self.value(), reason)
        except (ConcordError, ValueError) as exc:
            self.error.setText(error_text(exc) if isinstance(exc, ConcordError) else str(exc))
            return
        self.accept()


class DecisionBar(QWidget):
    """One line, always visible under the case: the current judgement and its buttons; for
    a red flag, the four dispositions instead of Accept."""

    disposition_chosen = Signal(str)  # a Disposition value

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
        self.disposition_buttons: dict[Disposition, QPushButton] = {}
        for choice in Disposition:
            button = QPushButton(choice.short)
            button.setObjectName(f"disposition:{choice.value}")
            button.setToolTip(
                f"{choice.label}: record it for this red flag, with the reason typed on the left"
            )
            button.clicked.connect(lambda _=False, c=choice: self.disposition_chosen.emit(c.value))
            button.hide()
            self.disposition_buttons[choice] = button
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
        for b in (self.accept_button, *self.disposition_buttons.values()):
            bottom.addWidget(b)
        for b in (self.override_button, self.prev_button, self.next_button):
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
        entry = q.current
        self.progress.setMaximum(max(1, q.total))
        self.progress.setValue(q.done)
        self.progress.setFormat("%v / %m decided" if q.total else "no judgements")
        for b in (self.accept_button, self.override_button, self.prev_button, self.next_button):
            b.setEnabled(entry is not None)
        if entry is None or q.case is None:
            self.position.setText("No judgements")
            self.label.setText("")
            self.verdict.setText("")
            return
        self.position.setText(
            f"Judgement {q.index + 1} of {q.total}" + (" · required" if entry.required else "")
        )
        visible = q.visible(entry)
        self.label.setText(entry_label(q.case, entry, visible=visible))
        if visible:
            shown = entry.shown(q.blind)
            who = (
                "you"
                if shown is not None and shown.user == q.user
                else (shown.user if shown is not None else "")
            )
            state = (
                f" — {who}: {action_text(shown)} → {_value_words(shown)}"
                if shown is not None
                else ""
            )
            self.verdict.setText(f"Judge: {entry_verdict(entry)}{state}")
            self.verdict.setStyleSheet("font-weight:bold")
        else:
            self.verdict.setText("Judge's verdict hidden (blind) — answer first")
            self.verdict.setStyleSheet(f"font-weight:bold; color:{theme.GREY}")
        disposition = entry.is_disposition
        self.accept_button.setVisible(not disposition)
        for button in self.disposition_buttons.values():
            button.setVisible(disposition)
        self.accept_button.setEnabled(visible)
        if q.needs_evidence(entry):
            self.accept_button.setToolTip(
                "A major finding: open its evidence in the record first (E), then accept"
            )
        else:
            self.accept_button.setToolTip("Accept the judge's value — shortcut A")
        if disposition:
            self.override_button.setText("Disposition… (O)")
            self.reason.setPlaceholderText("Reason for your disposition (required)")
            self.verdict.setText(
                "Your disposition: " + _value_words(entry.latest[0])
                if entry.latest[0] is not None
                else "No disposition yet"
            )
        else:
            self.override_button.setText("Override… (O)" if visible else "Answer… (O)")
            self.reason.setPlaceholderText("Reason (optional for Accept, required for Override)")


def history_columns(queue: ReviewQueue) -> list[Column[Decision]]:
    return [
        Column("When (UTC)", lambda d: d.at.strftime("%Y-%m-%d %H:%M")),
        Column("Who", lambda d: d.user),
        Column("Judgement", lambda d: judgement_words(queue.case, d.target_id)),
        *_HISTORY_TAIL,
    ]


_HISTORY_TAIL: list[Column[Decision]] = [
    Column(
        "Action",
        action_text,
        bold=lambda d: d.action.value == "override",
        foreground=lambda d: theme.RED if d.action.value == "override" else None,
    ),
    Column(
        "Judge → human",
        lambda d: (
            _value_words(d)
            if d.target_kind == TargetKind.DISPOSITION
            else f"{value_text(d.original_value)} → {value_text(d.new_value)}"
        ),
        tooltip="The judge's value and the value the human recorded",
    ),
    Column("Reason", lambda d: d.reason),
]


def _status(entry: QueueEntry, blind: bool) -> str:
    decisions = entry.mine if blind else entry.latest
    done = sum(d is not None for d in decisions)
    if done == 0:
        return "• to do"
    if done < len(decisions):
        return f"◐ {done} of {len(decisions)}"
    if entry.is_disposition:
        return "✓ disposition given"
    overridden = any(d is not None and d.action.value == "override" for d in decisions)
    return "✎ overridden" if overridden else "✓ accepted"


class DecisionsPanel(QWidget):
    """The Decisions tab: queue list, detail of the current judgement, history."""

    evidence_requested = Signal()  # show the current judgement's evidence in the record
    accept_optional_requested = Signal()

    def __init__(self, queue: ReviewQueue, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.queue = queue
        self.blind_box = QCheckBox("Blind mode (B): hide the judge's verdicts until I answer")
        self.blind_box.setObjectName("blindBox")
        self.blind_box.toggled.connect(queue.set_blind)
        queue.blind_changed.connect(self._blind_changed)
        self.summary = plain_label(bold=True)
        self.summary.setObjectName("queueSummary")
        columns: list[Column[QueueEntry]] = [
            Column(
                "Status",
                lambda e: _status(e, queue.blind),
                bold=lambda e: queue.answered(e),
                foreground=lambda e: theme.GREEN if queue.answered(e) else None,
            ),
            Column("Judgement", self._row_label),
            Column("Judge's value", self._row_value),
            Column(
                "Required to sign",
                lambda e: "required" if e.required else "optional",
                foreground=lambda e: theme.RED if e.required and not e.decided else theme.GREY,
                bold=lambda e: e.required,
            ),
        ]
        self.model: ListTableModel[QueueEntry] = ListTableModel(columns)
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
        self.bulk_button = QPushButton("Accept the remaining optional judgements… (Ctrl+Shift+A)")
        self.bulk_button.setObjectName("acceptOptional")
        self.bulk_button.setToolTip(
            "Accept, as the judge gave them, every optional judgement nobody has decided. "
            "Recorded as a bulk accept, not as judgements reviewed one by one."
        )
        self.bulk_button.clicked.connect(self.accept_optional_requested.emit)
        self.detail = QPlainTextEdit()
        self.detail.setObjectName("targetDetail")
        self.detail.setReadOnly(True)
        self.show_button = QPushButton("Show evidence in the record (E)")
        self.show_button.setObjectName("showEvidence")
        self.show_button.clicked.connect(self.evidence_requested.emit)
        self.history_model: ListTableModel[Decision] = ListTableModel(history_columns(queue))
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
        ll.addWidget(self.bulk_button)
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
        split.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.addWidget(split)
        queue.changed.connect(self.refresh)

    def _row_label(self, entry: QueueEntry) -> str:
        case = self.queue.case
        return "" if case is None else entry_label(case, entry, visible=self.queue.visible(entry))

    def _row_value(self, entry: QueueEntry) -> str:
        return entry_verdict(entry) if self.queue.visible(entry) else "hidden"

    def _blind_changed(self, on: bool) -> None:
        if self.blind_box.isChecked() != on:
            self.blind_box.setChecked(on)

    def refresh(self) -> None:
        q = self.queue
        self.model.set_rows(q.entries)
        visible = q.visible_decisions()
        self.history_model.set_rows(visible)
        self.history_empty.setVisible(not visible)
        self.history.scrollToBottom()
        hidden = len(q.decisions) - len(visible)
        self.history_title.setText(
            "Decision history (appended, never edited; newest last)"
            + (f" — blind mode: only yours; {hidden} by other reviewers hidden" if hidden else "")
        )
        state = q.state
        optional = state.optional_open
        self.summary.setText(
            f"Required before signing: {state.required_total - state.required_outstanding} of "
            f"{state.required_total} decided ({state.required_outstanding} left), listed first, "
            "most harmful first"
            + (" · blind mode: your own answers count" if q.blind else "")
            + f"\nOptional: {len(optional)} of {state.total - state.required_total} undecided"
        )
        n = len(optional)  # judgements, counted as the queue, the sign dialog and the PDF do
        self.bulk_button.setText(
            f"Accept the remaining {n} optional judgement(s)… (Ctrl+Shift+A)"
            if n
            else "No optional judgement left to accept"
        )
        self.bulk_button.setEnabled(bool(n) and not q.blind)
        if q.entries:
            self.list.selectRow(q.index)
            self.list.scrollTo(self.model.index(q.index, 0))
        self.detail.setPlainText(self._detail_text())

    def _detail_text(self) -> str:
        q = self.queue
        entry = q.current
        if entry is None or q.case is None:
            return "No judgement selected."
        case = q.case
        visible = q.visible(entry)
        lines = [entry_label(case, entry, visible=visible), ""]
        if entry.is_disposition:
            lines.append(
                "A red flag from the record screen: record what you will do about it "
                "(proceed, postpone, refer, or not relevant here) and why."
            )
        else:
            lines.append(
                "Judge's value: "
                + (entry_verdict(entry) if visible else "hidden until you answer (blind mode)")
            )
        if entry.is_group:
            lines.append("")
            what = "quotes" if entry.is_quotes else "comparisons"
            lines.append(f"The {len(entry.targets)} {what} (deciding the entry decides each):")
            for target, last in zip(entry.targets, entry.shown_each(q.blind), strict=True):
                d = disagreement_of(case, target)
                state = "to do" if last is None else action_text(last)
                text = d.description if d is not None else target.label
                lines.append(f"  • [{state}] {target.ref.subject}: {text}")
        else:
            d = disagreement_of(case, entry.target)
            if d is not None:
                lines.append(f"Description: {d.description}")
                if d.items:
                    lines.append("Brief items: " + ", ".join(d.items))
        spans = [s for t in entry.targets for s in target_spans(case, t)]
        if spans:
            lines.append("")
            lines.append("Evidence in the record (E shows it):")
            lines += [f"  [{s['source_id']} {s['start']}–{s['end']}] “{s['text']}”" for s in spans]
        ids = {t.id for t in entry.targets}
        history = [d for d in q.visible_decisions() if d.target_id in ids]
        if history:
            lines.append("")
            lines.append("Decisions on this judgement:")
            for decision in history:
                lines.append(
                    f"  {decision.at:%Y-%m-%d %H:%M} {decision.user}: {action_text(decision)} → "
                    f"{_value_words(decision)} — {decision.reason}"
                )
        if q.needs_evidence(entry):
            lines.append("")
            lines.append("A major finding: open its evidence in the record (E) before deciding.")
        return "\n".join(lines)
