"""The scanned page beside OCR'd evidence: the crop of the page image where the selected
text was read, outlined, with the OCR confidence, so a clinician can check a number
against the scan. Hidden for text that was not read by OCR."""

from __future__ import annotations

import math

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from concord.domain import Record
from concord.ui.theme import plain_label

PADDING = 60  # pixels of page around the words, at the scan's resolution
MAX_WIDTH = 640  # the crop is scaled down to this width at most
UNCERTAIN = "#c62828"
READ = "#ef6c00"


class ScanCropView(QWidget):
    """Shows the scan crop for a span of an OCR'd document (`show_span`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scanCrop")
        self.caption = plain_label("")
        self.caption.setWordWrap(True)
        self.image = QLabel()
        self.image.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.image)
        self.shown: tuple[str, int, int] | None = None
        self.hide()

    def clear(self) -> None:
        self.shown = None
        self.image.clear()
        self.caption.setText("")
        self.hide()

    def show_span(self, record: Record | None, source_id: str, start: int, end: int) -> bool:
        """Show where text[start:end] of the document is on its scan. False (and hidden)
        when the document was not read by OCR or the span has no word on the scan."""
        if record is None:
            self.clear()
            return False
        try:
            document = record.document(source_id)
        except KeyError:
            self.clear()
            return False
        layer = document.ocr
        region = layer.region(start, end) if layer is not None else None
        page = layer.page_image(region.page) if layer is not None and region is not None else None
        if layer is None or region is None or page is None:
            self.clear()
            return False
        image = QImage.fromData(page.data)
        if image.isNull():
            self.clear()
            return False
        x0, y0, x1, y1 = region.box
        crop = QRect(x0 - PADDING, y0 - PADDING, x1 - x0 + 2 * PADDING, y1 - y0 + 2 * PADDING)
        crop = crop.intersected(image.rect())
        pixmap = QPixmap.fromImage(image.copy(crop).convertToFormat(QImage.Format.Format_RGB32))
        painter = QPainter(pixmap)
        pen = QPen(QColor(UNCERTAIN if region.uncertain else READ))
        pen.setWidth(3)
        painter.setPen(pen)
        painter.drawRect(QRect(x0 - crop.x() - 4, y0 - crop.y() - 4, x1 - x0 + 8, y1 - y0 + 8))
        painter.end()
        if pixmap.width() > MAX_WIDTH:
            pixmap = pixmap.scaledToWidth(MAX_WIDTH, Qt.TransformationMode.SmoothTransformation)
        self.image.setPixmap(pixmap)
        check = (
            f" - below {layer.threshold:.2f}: check this value on the scan"
            if region.uncertain
            else ""
        )
        self.caption.setText(
            f"Scanned page {region.page} of {source_id} (read by OCR, {layer.engine}); "
            f"lowest word confidence {math.floor(region.lowest_confidence * 100) / 100:.2f}"
            f"{check}"
        )
        self.shown = (source_id, start, end)
        self.show()
        return True
