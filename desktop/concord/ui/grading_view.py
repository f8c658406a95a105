"""EVAL grading queue: a clinician grades generated answers good or bad, by keyboard.

Keys: G good, X bad, N / P next / previous, B blind mode (hides the reward model's
prediction), L golden labels on/off. The reason box keeps its text between answers until
cleared; Enter in it returns the keys to the queue. Each grade is a decision.
"""

from __future__ import annotations

import getpass
import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from concord.expert.eval_store import EvalStore
from concord.expert.grading import Grade
from concord.expert.grading_queue import GradingQueue
from concord.ui.messages import show_error


def _default_user() -> str:
    return os.environ.get("CONCORD_USER") or getpass.getuser()


class GradingView(QWidget):
    graded = Signal(str)  # decision id

    def __init__(self, services, user: str | None = None, parent: QWidget | None = None):  # noqa: ANN001
        super().__init__(parent)
        self.services = services
        self.user = user or _default_user()
        self.store = EvalStore(services.repo)
        self.queue: GradingQueue | None = None
        self.blind = True
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self.sets = QComboBox(objectName="gradingSets")
        self.sets.currentIndexChanged.connect(self._set_changed)
        self.progress = QLabel(objectName="gradingProgress")
        self.meta = QLabel(objectName="gradingMeta")
        self.question = QLabel(objectName="gradingQuestion", wordWrap=True)
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.answer = QPlainTextEdit(objectName="gradingAnswer", readOnly=True)
        self.answer.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.golden = QLabel(objectName="gradingGolden", wordWrap=True)
        self.golden.setTextFormat(Qt.TextFormat.PlainText)
        self.golden.setVisible(False)
        self.prediction = QLabel(objectName="gradingPrediction")
        self.reason = QLineEdit(objectName="gradingReason", placeholderText="reason (optional)")
        self.reason.returnPressed.connect(self.setFocus)

        buttons = QHBoxLayout()
        for text, slot in [("Good (G)", lambda: self.grade(Grade.GOOD)),
                           ("Bad (X)", lambda: self.grade(Grade.BAD)),
                           ("Prev (P)", self.previous), ("Next (N)", self.next),
                           ("Golden labels (L)", self.toggle_golden),
                           ("Blind (B)", self.toggle_blind)]:
            button = QPushButton(text)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(slot)
            buttons.addWidget(button)

        top = QHBoxLayout()
        top.addWidget(self.sets, 1)
        top.addWidget(self.progress)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.meta)
        layout.addWidget(self.question)
        layout.addWidget(self.answer, 1)
        layout.addWidget(self.golden)
        layout.addWidget(self.prediction)
        layout.addWidget(self.reason)
        layout.addLayout(buttons)
        self.refresh_sets()

    # data ------------------------------------------------------------------------------

    def refresh_sets(self) -> None:
        self.sets.blockSignals(True)
        self.sets.clear()
        for s in self.store.sets():
            self.sets.addItem(f"{s.name}  ({s.set_id})", s.set_id)
        self.sets.blockSignals(False)
        self._set_changed()

    def _set_changed(self) -> None:
        set_id = self.sets.currentData()
        self.queue = GradingQueue(self.store, set_id, self.user) if set_id else None
        self.show_current()

    def show_current(self) -> None:
        item = self.queue.current() if self.queue else None
        total = self.queue.total if self.queue else 0
        done = self.queue.done if self.queue else 0
        self.progress.setText(f"{done}/{total} graded")
        if item is None:
            self.meta.setText("No answers to grade: generate some with `concord eval generate`.")
            for widget in (self.question, self.golden, self.prediction):
                widget.setText("")
            self.answer.setPlainText("")
            return
        assert self.queue is not None
        mine = f"  your grade: {item.my_grade}" if item.my_grade else ""
        self.meta.setText(f"{self.queue.position + 1} of {total}  ·  {item.question.label}  "
                          f"·  T={item.answer.temperature:g}  ·  {item.answer.answer_id}{mine}")
        self.question.setText(item.question.text)
        self.answer.setPlainText(item.answer.text)
        self.golden.setText("\n".join(
            f"• {g.expert or 'expert'}: {g.text}" for g in item.question.golden))
        if item.prediction is None:
            self.prediction.setText("Reward model: no prediction")
        elif self.blind:
            self.prediction.setText("Reward model: hidden (blind mode, B to show)")
        else:
            p = item.prediction
            self.prediction.setText(f"Reward model {p.version}: {p.grade} ({p.score:.2f})")

    # actions ---------------------------------------------------------------------------

    def grade(self, grade: Grade) -> None:
        if self.queue is None or self.queue.current() is None:
            return
        try:
            decision = self.queue.grade(grade, self.reason.text().strip(), blind=self.blind)
        except Exception as exc:  # noqa: BLE001 - shown at the edge
            show_error(self, "Grade not saved", exc)
            return
        self.graded.emit(decision.decision_id)
        self.show_current()

    def next(self) -> None:
        if self.queue:
            self.queue.next()
            self.show_current()

    def previous(self) -> None:
        if self.queue:
            self.queue.previous()
            self.show_current()

    def toggle_golden(self) -> None:
        self.golden.setVisible(not self.golden.isVisible())

    def toggle_blind(self) -> None:
        self.blind = not self.blind
        self.show_current()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt API
        actions = {
            Qt.Key.Key_G: lambda: self.grade(Grade.GOOD),
            Qt.Key.Key_X: lambda: self.grade(Grade.BAD),
            Qt.Key.Key_N: self.next,
            Qt.Key.Key_P: self.previous,
            Qt.Key.Key_B: self.toggle_blind,
            Qt.Key.Key_L: self.toggle_golden,
        }
        action = actions.get(Qt.Key(event.key()))
        if action is None or event.modifiers() not in (Qt.KeyboardModifier.NoModifier,):
            super().keyPressEvent(event)
            return
        action()
