"""ASTRID QA review: one item at a time, the context with each answer sentence's grounding
highlighted, the judge's verdicts, and accept / override from the keyboard.

Keys: A accept the selected verdict, O override it with the value chosen, B blind mode
(the judge's verdicts are hidden until the reviewer has answered), N / P next / previous
item. Every piece of QA text is shown as plain text. The view reads and appends through
`services.repo`; judging itself runs from the command line (`concord astrid FILE`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QKeySequence, QShortcut, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from concord.astrid.grounding import GroundingSpan, align_sentence
from concord.astrid.items import QaItem
from concord.astrid.results import QaRun
from concord.astrid.sentences import split_sentences
from concord.astrid.store import AstridStore
from concord.astrid.targets import KIND_VALUES, make_astrid_decision, parse_target_id
from concord.astrid.targets import astrid_targets as list_targets
from concord.domain import Decision, Target
from concord.errors import ConcordError
from concord.store.codec import system_user

VERDICT_TINTS = {"grounded": "#cdeecd", "ungrounded": "#f7c6c6", "conversational": "#e4e4e4",
                 "failed": "#ffe0a0"}
SELECTED_TINT = "#ffd36b"
CF_OVERRIDE_DEFAULT = "0.0"


@dataclass
class _Row:
    target: Target
    item_id: str
    sentence: int | None  # 0-based for sentence targets
    last: Decision | None


class QaReviewView(QWidget):
    """Review queue over the verdicts of one ASTRID run."""

    decided = Signal(str)  # target id, after a decision was appended

    def __init__(self, services: Any, parent: QWidget | None = None, *,
                 user: str | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.user = user or system_user()
        self.store = AstridStore(services.repo)
        self.run: QaRun | None = None
        self.items: list[QaItem] = []
        self.rows: list[_Row] = []
        self.item_index = 0
        self._build()
        self.reload_runs()

    # -- layout --------------------------------------------------------------------------

    def _build(self) -> None:
        self.run_box = QComboBox(objectName="qaRunBox")
        self.run_box.currentIndexChanged.connect(self._run_chosen)
        self.blind_box = QCheckBox("Blind (B)", objectName="qaBlind")
        self.blind_box.toggled.connect(lambda _: self._show_item())
        self.progress = QProgressBar(objectName="qaProgress")
        self.progress_label = QLabel(objectName="qaProgressLabel")
        top = QHBoxLayout()
        top.addWidget(QLabel("Run:"))
        top.addWidget(self.run_box, 1)
        top.addWidget(self.blind_box)
        top.addWidget(self.progress_label)
        top.addWidget(self.progress)

        self.queue = QListWidget(objectName="qaQueue")
        self.queue.currentRowChanged.connect(self._item_chosen)
        self.question = QPlainTextEdit(readOnly=True, objectName="qaQuestion")
        self.question.setMaximumHeight(70)
        self.context = QPlainTextEdit(readOnly=True, objectName="qaContext")
        self.targets = QListWidget(objectName="qaTargets")
        self.targets.currentRowChanged.connect(lambda _: self._target_chosen())
        self.item_label = QLabel(objectName="qaItemLabel")
        self.item_label.setTextFormat(Qt.TextFormat.PlainText)
        self.reason_label = QLabel(objectName="qaJudgeReason")
        self.reason_label.setTextFormat(Qt.TextFormat.PlainText)
        self.reason_label.setWordWrap(True)

        self.value_box = QComboBox(objectName="qaValue")
        self.value_box.setEditable(False)
        self.reason = QLineEdit(objectName="qaReason", placeholderText="Reason (required)")
        self.accept_button = QPushButton("Accept (A)", objectName="qaAccept")
        self.accept_button.clicked.connect(self.accept_current)
        self.override_button = QPushButton("Record value (O)", objectName="qaOverride")
        self.override_button.clicked.connect(self.override_current)
        self.status = QLabel(objectName="qaStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        decide = QHBoxLayout()
        for widget in (self.value_box, self.reason, self.accept_button, self.override_button):
            decide.addWidget(widget)

        centre = QWidget()
        column = QVBoxLayout(centre)
        column.addWidget(self.item_label)
        column.addWidget(QLabel("Question"))
        column.addWidget(self.question)
        column.addWidget(QLabel("Retrieved context (highlight: where each answer sentence "
                                "is grounded; selected sentence in orange)"))
        column.addWidget(self.context, 2)
        column.addWidget(QLabel("Answer sentences and verdicts"))
        column.addWidget(self.targets, 2)
        column.addWidget(self.reason_label)
        column.addLayout(decide)
        column.addWidget(self.status)
        split = QSplitter()
        split.addWidget(self.queue)
        split.addWidget(centre)
        split.setStretchFactor(1, 4)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)

        for key, slot in (("A", self.accept_current), ("O", self.override_current),
                          ("B", self.blind_box.toggle), ("N", self.next_item),
                          ("P", self.previous_item)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)

    # -- data ----------------------------------------------------------------------------

    def reload_runs(self) -> None:
        self.run_box.blockSignals(True)
        self.run_box.clear()
        for run_id in reversed(self.store.run_ids()):
            run = self.store.get_run(run_id)
            name = self.store.get_set(run.set_id)["name"]
            self.run_box.addItem(f"{name} — {run.model_name} — {run_id}", run_id)
        self.run_box.blockSignals(False)
        if self.run_box.count():
            self._run_chosen(0)
        else:
            self.status.setText("No ASTRID run yet: run `concord astrid FILE` first.")

    def open_run(self, run_id: str) -> None:
        index = self.run_box.findData(run_id)
        if index < 0:
            self.reload_runs()
            index = self.run_box.findData(run_id)
        self.run_box.setCurrentIndex(index)
        self._run_chosen(index)

    def _run_chosen(self, index: int) -> None:
        run_id = self.run_box.itemData(index)
        if run_id is None:
            return
        self.run = self.store.get_run(run_id)
        self.items = self.store.items(self.run.set_id)
        self.item_index = 0
        self._refresh_rows()
        self.queue.blockSignals(True)
        self.queue.clear()
        for item in self.items:
            self.queue.addItem(QListWidgetItem(item.item_id))
        self.queue.blockSignals(False)
        self._show_item()

    def _refresh_rows(self) -> None:
        assert self.run is not None
        latest: dict[str, Decision] = {}
        for d in self.services.repo.decisions(case_id=self.run.run_id):
            latest[d.target_id] = d
        self.rows = []
        for target in list_targets(self.run, self.items):
            parsed = parse_target_id(target.id)
            assert parsed is not None
            self.rows.append(_Row(target, parsed[0], parsed[2], latest.get(target.id)))
        done = sum(r.last is not None for r in self.rows)
        self.progress.setRange(0, max(1, len(self.rows)))
        self.progress.setValue(done)
        self.progress_label.setText(f"{done} / {len(self.rows)} verdicts decided")

    # -- showing -------------------------------------------------------------------------

    @property
    def blind(self) -> bool:
        return self.blind_box.isChecked()

    def current_item(self) -> QaItem | None:
        return self.items[self.item_index] if self.items else None

    def item_rows(self) -> list[_Row]:
        item = self.current_item()
        return [r for r in self.rows if item is not None and r.item_id == item.item_id]

    def current_row(self) -> _Row | None:
        rows = self.item_rows()
        index = self.targets.currentRow()
        return rows[index] if 0 <= index < len(rows) else None

    def _row_text(self, row: _Row) -> str:
        target = row.target
        hidden = self.blind and row.last is None
        judge = "(hidden)" if hidden else str(target.value)
        human = "" if row.last is None else f"   human: {row.last.new_value}"
        item = self.current_item()
        if row.sentence is not None and item is not None:
            text = self.sentence_text(item, row.sentence)
            return f"S{row.sentence + 1}  judge: {judge}{human}   {text}"
        name = {"astrid_cf": "CF (computed)", "astrid_cr": "Context relevant",
                "astrid_ra": "Answer refuses"}[target.kind]
        scope = f"   scope: {item.scope or '?'}" if target.kind == "astrid_ra" and item else ""
        return f"{name}  judge: {judge}{human}{scope}"

    def _show_item(self) -> None:
        item = self.current_item()
        if item is None or self.run is None:
            return
        self.queue.blockSignals(True)
        self.queue.setCurrentRow(self.item_index)
        self.queue.blockSignals(False)
        rows = self.item_rows()
        decided = sum(r.last is not None for r in rows)
        self.item_label.setText(f"Item {self.item_index + 1} of {len(self.items)}: {item.item_id}"
                                f"   scope: {item.scope or 'not given'}   "
                                f"decided {decided}/{len(rows)}")
        self.question.setPlainText(item.question)
        keep = max(0, self.targets.currentRow())
        self.targets.blockSignals(True)
        self.targets.clear()
        for row in rows:
            entry = QListWidgetItem(self._row_text(row))
            if not (self.blind and row.last is None):
                entry.setBackground(QColor(VERDICT_TINTS.get(str(row.target.value), "#ffffff")))
            self.targets.addItem(entry)
        self.targets.blockSignals(False)
        self.targets.setCurrentRow(min(keep, len(rows) - 1))
        self._target_chosen()

    @staticmethod
    def sentence_text(item: QaItem, index: int) -> str:
        return split_sentences(item.answer)[index].text

    def _context_text(self, item: QaItem) -> tuple[str, list[int]]:
        """The chunks as one plain text, and where each chunk starts in it."""
        parts, offsets, at = [], [], 0
        for n, chunk in enumerate(item.context, start=1):
            head = f"[C{n}] "
            offsets.append(at + len(head))
            parts.append(head + chunk)
            at += len(head) + len(chunk) + 2
        return "\n\n".join(parts), offsets

    def grounding_spans(self, item: QaItem) -> dict[int, GroundingSpan]:
        spans = {}
        for row in self.item_rows():
            if row.sentence is None:
                continue
            span = align_sentence(self.sentence_text(item, row.sentence), item.context)
            if span is not None:
                spans[row.sentence] = span
        return spans

    def _paint_context(self, item: QaItem, selected: int | None) -> None:
        text, offsets = self._context_text(item)
        self.context.setPlainText(text)
        by_sentence = {r.sentence: r for r in self.item_rows() if r.sentence is not None}
        for sentence, span in self.grounding_spans(item).items():
            row = by_sentence[sentence]
            shown = str(row.last.new_value) if row.last else (
                "" if self.blind else str(row.target.value))
            tint = SELECTED_TINT if sentence == selected else VERDICT_TINTS.get(shown)
            if tint is None:
                continue
            cursor = QTextCursor(self.context.document())
            cursor.setPosition(offsets[span.chunk] + span.start)
            cursor.setPosition(offsets[span.chunk] + span.end, QTextCursor.MoveMode.KeepAnchor)
            fmt = QTextCharFormat()
            fmt.setBackground(QColor(tint))
            cursor.mergeCharFormat(fmt)

    def _judge_reason(self, row: _Row) -> str:
        assert self.run is not None
        metric = {"astrid_cr": "cr", "astrid_ra": "ra"}.get(row.target.kind)
        if metric is None:
            return ""
        for v in self.run.repeat(0).verdicts:
            if v.item_id == row.item_id and v.metric == metric:
                return v.reason or v.error
        return ""

    def _target_chosen(self) -> None:
        item, row = self.current_item(), self.current_row()
        if item is None:
            return
        self._paint_context(item, None if row is None else row.sentence)
        self.value_box.clear()
        if row is None:
            return
        values = KIND_VALUES.get(row.target.kind)
        if values is None:  # CF: a number
            self.value_box.setEditable(True)
            self.value_box.addItems(["1.0", "0.5", CF_OVERRIDE_DEFAULT])
        else:
            self.value_box.setEditable(False)
            self.value_box.addItems(list(values))
            others = [v for v in values if v != row.target.value]
            if others and not self.blind:
                self.value_box.setCurrentText(others[0])
        hidden = self.blind and row.last is None
        reason = "" if hidden else self._judge_reason(row)
        self.reason_label.setText(f"Judge's reason: {reason}" if reason else "")
        self.accept_button.setEnabled(not hidden and row.target.value != "failed")

    # -- navigation ----------------------------------------------------------------------

    def _item_chosen(self, index: int) -> None:
        if 0 <= index < len(self.items):
            self.item_index = index
            self._show_item()

    def next_item(self) -> None:
        if self.item_index + 1 < len(self.items):
            self.item_index += 1
            self.targets.setCurrentRow(0)
            self._show_item()

    def previous_item(self) -> None:
        if self.item_index > 0:
            self.item_index -= 1
            self.targets.setCurrentRow(0)
            self._show_item()

    def select_target(self, target_id: str) -> None:
        for row in self.rows:
            if row.target.id == target_id:
                self.item_index = next(i for i, it in enumerate(self.items)
                                       if it.item_id == row.item_id)
                self._show_item()
                self.targets.setCurrentRow(
                    [r.target.id for r in self.item_rows()].index(target_id))
                return
        raise KeyError(target_id)

    # -- deciding ------------------------------------------------------------------------

    def accept_current(self) -> None:
        if self.accept_button.isEnabled():
            self._decide(None)

    def override_current(self) -> None:
        self._decide(self.value_box.currentText())

    def _decide(self, value: str | None) -> None:
        row = self.current_row()
        if row is None or self.run is None:
            return
        try:
            decision = make_astrid_decision(
                self.run, self.items, row.target.id, user=self.user, reason=self.reason.text(),
                override=value, blind=self.blind and row.last is None)
            self.services.repo.append_decision(decision)
        except ConcordError as exc:
            self.status.setText(exc.one_line())
            return
        self.status.setText(f"{decision.action.value}: {row.target.id} = {decision.new_value}")
        position = self.targets.currentRow()
        self._refresh_rows()
        self._show_item()
        rows = self.item_rows()
        following = [n for n in range(position + 1, len(rows)) if rows[n].last is None]
        self.targets.setCurrentRow(following[0] if following else position)
        self.decided.emit(row.target.id)
