"""Small charts of the Agreement page, painted with QPainter (no chart library): a judge x
human confusion matrix, kappa with its confidence interval per pair of raters, and a bar per
annotator against a threshold. Each widget takes plain data and paints it; none computes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from concord.ui import theme

INK = QColor("#222222")
FAINT = QColor("#9aa3ad")
GOOD = QColor(theme.GREEN)
BAD = QColor(theme.RED)
BLUE = QColor("#2f6db5")


def _font(widget: QWidget, points: float, bold: bool = False) -> QFont:
    font = QFont(widget.font())
    font.setPointSizeF(points)
    font.setBold(bold)
    return font


class ConfusionChart(QWidget):
    """A judge (rows) x human (columns) matrix of counts, shaded by count; the diagonal
    (agreement) in green, the rest in red. Three lines above it: what was judged, by whom,
    and the agreement figures."""

    LEFT, TOP, CELL_W, CELL_H = 74.0, 76.0, 50.0, 24.0

    def __init__(
        self,
        title: str,
        lines: Sequence[str],
        categories: Sequence[str],
        counts: Sequence[Sequence[int]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("confusionChart")
        self.title, self.lines = title, list(lines)[:2]
        self.categories, self.counts = list(categories), [list(r) for r in counts]
        self.setMinimumSize(self.sizeHint())
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setToolTip("\n".join([title, *self.lines, "rows: judge · columns: human"]))

    def sizeHint(self) -> QSize:
        k = max(1, len(self.categories))
        return QSize(236, int(self.TOP + self.CELL_H * k + 8))

    def paintEvent(self, _event: object) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("#ffffff"))
        p.setPen(QPen(QColor("#d0d5db")))
        p.drawRect(self.rect().adjusted(0, 0, -1, -1))
        p.setFont(_font(self, 8, bold=True))
        p.setPen(INK)
        width = self.width() - 10
        p.drawText(QRectF(5, 2, width, 14), Qt.AlignmentFlag.AlignLeft, self.title)
        p.setFont(_font(self, 7))
        p.setPen(QColor("#444444"))
        for n, line in enumerate(self.lines):
            p.drawText(QRectF(5, 16 + 12 * n, width, 12), Qt.AlignmentFlag.AlignLeft, line)
        k = len(self.categories)
        if not k:
            return
        left, top, cell_w, cell_h = self.LEFT, self.TOP, self.CELL_W, self.CELL_H
        most = max(1, max(max(r) for r in self.counts))
        p.setFont(_font(self, 6.5))
        p.setPen(QColor("#555555"))
        p.drawText(QRectF(left, top - 30, cell_w * k, 11), Qt.AlignmentFlag.AlignCenter, "human")
        p.save()
        p.translate(9, top + cell_h * k / 2)
        p.rotate(-90)
        p.drawText(QRectF(-30, -6, 60, 12), Qt.AlignmentFlag.AlignCenter, "judge")
        p.restore()
        metrics = QFontMetrics(p.font())
        for c, name in enumerate(self.categories):
            head = metrics.elidedText(name, Qt.TextElideMode.ElideRight, int(cell_w) - 2)
            side = metrics.elidedText(name, Qt.TextElideMode.ElideRight, int(left) - 22)
            p.drawText(
                QRectF(left + c * cell_w, top - 15, cell_w, 12), Qt.AlignmentFlag.AlignCenter, head
            )
            p.drawText(
                QRectF(16, top + c * cell_h, left - 20, cell_h),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                side,
            )
        p.setFont(_font(self, 8, bold=True))
        for r in range(k):
            for c in range(k):
                n = self.counts[r][c]
                shade = QColor(GOOD if r == c else BAD)
                shade.setAlphaF(0.08 + 0.75 * n / most if n else 0.03)
                box = QRectF(left + c * cell_w, top + r * cell_h, cell_w - 2, cell_h - 2)
                p.fillRect(box, shade)
                p.setPen(QColor("#ffffff") if n / most > 0.55 else INK)
                p.drawText(box, Qt.AlignmentFlag.AlignCenter, str(n))


@dataclass(frozen=True)
class Interval:
    label: str
    kappa: float | None
    low: float | None
    high: float | None
    n: int


class KappaChart(QWidget):
    """Cohen's kappa per row with its 95% interval, on one axis from -0.2 to 1, with the
    chance line (0) and the 0.6 line ("substantial") drawn."""

    AXIS = (-0.2, 1.0)

    def __init__(self, title: str, rows: Sequence[Interval], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("kappaChart")
        self.title, self.rows = title, list(rows)
        self.setMinimumHeight(self.sizeHint().height())
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(420, 46 + 22 * max(1, len(self.rows)) + 20)

    def _x(self, value: float, left: float, width: float) -> float:
        lo, hi = self.AXIS
        value = min(hi, max(lo, value))
        return left + (value - lo) / (hi - lo) * width

    def paintEvent(self, _event: object) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("#ffffff"))
        p.setPen(QPen(QColor("#d0d5db")))
        p.drawRect(self.rect().adjusted(0, 0, -1, -1))
        p.setFont(_font(self, 8.5, bold=True))
        p.setPen(INK)
        p.drawText(QRectF(6, 3, self.width() - 12, 16), Qt.AlignmentFlag.AlignLeft, self.title)
        left, right, top = 190.0, 160.0, 30.0
        width = max(40.0, self.width() - left - right)
        bottom = top + 22 * max(1, len(self.rows))
        metrics = QFontMetrics(_font(self, 7.5))
        p.setFont(_font(self, 7))
        if not self.rows:  # a message, not an empty axis for it to be written over
            p.setPen(QColor("#555555"))
            p.drawText(
                QRectF(6, top, self.width() - 12, 20),
                Qt.AlignmentFlag.AlignCenter,
                "no two raters labelled the same items yet",
            )
            return
        for tick in (-0.2, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
            x = self._x(tick, left, width)
            pen = QPen(FAINT if tick not in (0.0, 0.6) else QColor("#555555"))
            pen.setStyle(Qt.PenStyle.DotLine if tick not in (0.0, 0.6) else Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.drawLine(int(x), int(top - 4), int(x), int(bottom))
            p.setPen(QColor("#555555"))
            p.drawText(
                QRectF(x - 15, bottom + 2, 30, 12), Qt.AlignmentFlag.AlignCenter, f"{tick:g}"
            )
        for i, row in enumerate(self.rows):
            y = top + 22 * i + 11
            p.setFont(_font(self, 7.5))
            p.setPen(INK)
            p.drawText(
                QRectF(4, y - 9, left - 10, 18),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                metrics.elidedText(row.label, Qt.TextElideMode.ElideMiddle, int(left) - 14),
            )
            text = "κ n/a" if row.kappa is None else f"κ {row.kappa:.2f}"
            if row.low is not None and row.high is not None:
                text += f" [{row.low:.2f}, {row.high:.2f}]"
                p.setPen(QPen(BLUE, 2))
                p.drawLine(
                    int(self._x(row.low, left, width)),
                    int(y),
                    int(self._x(row.high, left, width)),
                    int(y),
                )
            if row.kappa is not None:
                p.setBrush(BLUE)
                p.setPen(Qt.PenStyle.NoPen)
                p.drawEllipse(QRectF(self._x(row.kappa, left, width) - 4, y - 4, 8, 8))
            p.setPen(INK)
            p.drawText(
                QRectF(left + width + 6, y - 9, right - 6, 18),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                f"{text} n={row.n}",
            )


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    text: str


class BarChart(QWidget):
    """One bar per annotator against a threshold line; a bar on the wrong side of it red."""

    def __init__(
        self,
        title: str,
        bars: Sequence[Bar],
        *,
        top: float,
        threshold: float,
        threshold_text: str,
        bad: Callable[[float], bool],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("barChart")
        self.title, self.bars = title, list(bars)
        self.top, self.threshold, self.threshold_text, self.bad = (
            top,
            threshold,
            threshold_text,
            bad,
        )
        self.setMinimumHeight(self.sizeHint().height())
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(300, 46 + 22 * max(1, len(self.bars)) + 20)

    def paintEvent(self, _event: object) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("#ffffff"))
        p.setPen(QPen(QColor("#d0d5db")))
        p.drawRect(self.rect().adjusted(0, 0, -1, -1))
        p.setFont(_font(self, 8.5, bold=True))
        p.setPen(INK)
        p.drawText(QRectF(6, 3, self.width() - 12, 16), Qt.AlignmentFlag.AlignLeft, self.title)
        left, right, top = 110.0, 64.0, 30.0
        width = max(40.0, self.width() - left - right)
        bottom = top + 22 * max(1, len(self.bars))
        p.setFont(_font(self, 7.5))
        for i, bar in enumerate(self.bars):
            y = top + 22 * i
            p.setPen(INK)
            p.drawText(
                QRectF(4, y, left - 10, 18),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                bar.label,
            )
            if bar.value is not None:
                length = width * min(1.0, max(0.0, bar.value / self.top))
                colour = BAD if self.bad(bar.value) else BLUE
                p.fillRect(QRectF(left, y + 3, max(1.0, length), 13), colour)
            p.setPen(INK)
            p.drawText(
                QRectF(left + width + 4, y, right - 4, 18),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                bar.text,
            )
        x = left + width * min(1.0, self.threshold / self.top)
        pen = QPen(BAD, 1)
        pen.setStyle(Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.drawLine(int(x), int(top - 4), int(x), int(bottom))
        p.setFont(_font(self, 7))
        p.drawText(
            QRectF(x - 60, bottom + 2, 120, 12), Qt.AlignmentFlag.AlignCenter, self.threshold_text
        )
