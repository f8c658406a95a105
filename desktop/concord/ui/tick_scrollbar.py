"""A vertical scrollbar that shows where things are in a long text: one tick per red flag,
per piece of cited evidence and per span of the current judgement, at its place along the
groove, so a reviewer sees at a glance where to scroll (as code editors mark search hits)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QScrollBar, QStyle, QStyleOptionSlider, QWidget

TICK_HEIGHT = 3


@dataclass(frozen=True)
class Tick:
    fraction: float  # 0 = top of the text, 1 = its end
    colour: str
    kind: str  # "flag", "evidence" or "current"


class TickScrollBar(QScrollBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setObjectName("tickScrollBar")
        self.ticks: list[Tick] = []

    def set_ticks(self, ticks: Sequence[Tick]) -> None:
        # current last: drawn on top of the others
        self.ticks = sorted(ticks, key=lambda t: t.kind == "current")
        self.update()

    def groove(self) -> QRect:
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        return self.style().subControlRect(
            QStyle.ComplexControl.CC_ScrollBar,
            option,
            QStyle.SubControl.SC_ScrollBarGroove,
            self,
        )

    def tick_rect(self, tick: Tick) -> QRect:
        groove = self.groove()
        y = groove.top() + round(min(1.0, max(0.0, tick.fraction)) * (groove.height() - 1))
        inset = 1 if tick.kind == "current" else 3
        return QRect(groove.left() + inset, y - 1, max(2, groove.width() - 2 * inset), TICK_HEIGHT)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self.ticks:
            return
        painter = QPainter(self)
        for tick in self.ticks:
            painter.fillRect(self.tick_rect(tick), QColor(tick.colour))
        painter.end()
