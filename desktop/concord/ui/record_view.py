"""The patient record as plain text with every evidence span highlighted.

Patient text is only ever given to `setPlainText`: nothing in it is interpreted as HTML.
Documents are shown one after another under a header line; `_base[source_id]` is where a
document's text starts, so a span (source_id, start, end) maps to a text position (in
UTF-16 units for Qt, through `utf16.Utf16Map`).

Red flags the record screen fired are white on red, bold (never only red text); the
evidence of the current judgement or bullet is orange. The scrollbar carries a tick for each
red flag, each cited piece of evidence and each span of the current judgement.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from concord.domain import AlignmentStatus, GateStatus, Record, Severity
from concord.ui import theme
from concord.ui.tick_scrollbar import Tick, TickScrollBar
from concord.ui.utf16 import Utf16Map
from concord.workbench.marks import EvidenceMark, GateMark

_CONTROL = {c: " " for c in range(32) if chr(c) not in "\n\t"}
_CONTROL[0x7F] = " "


def _display_text(text: str) -> str:
    """Same length as `text` (so offsets hold); control characters (\\r, \\f, NUL...) are
    shown as spaces, since Qt would otherwise split or drop them."""
    return text.translate(_CONTROL)


class RecordView(QPlainTextEdit):
    """Read-only record. Emits `marks_at_cursor` with the evidence under the cursor."""

    marks_at_cursor = Signal(object)  # list[EvidenceMark]

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recordView")
        self.setReadOnly(True)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        font = QFont(self.font())
        font.setPointSizeF(max(font.pointSizeF(), 10.5))
        self.setFont(font)
        palette = self.palette()  # the selected evidence is orange, as the legend says
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            palette.setColor(group, QPalette.ColorRole.Highlight, QColor(theme.CURRENT_SELECTION))
            palette.setColor(group, QPalette.ColorRole.HighlightedText, QColor("#000000"))
        self.setPalette(palette)
        self.ticks = TickScrollBar(self)
        self.setVerticalScrollBar(self.ticks)
        self.record: Record | None = None
        self._base: dict[str, int] = {}
        self._text = ""
        self._positions = Utf16Map("")
        self._header_selections: list[QTextEdit.ExtraSelection] = []
        self._evidence: list[EvidenceMark] = []
        self._gates: list[GateMark] = []
        self._current: list[tuple[str, int, int]] = []
        self.cursorPositionChanged.connect(self._cursor_moved)

    # content -------------------------------------------------------------------------

    def set_record(self, record: Record | None) -> None:
        self.record = record
        self._base = {}
        parts: list[str] = []
        offset = 0
        for doc in record.documents if record else ():
            header = f"━━ {doc.title or doc.source_id}  [{doc.source_id}, {doc.kind}] ━━\n"
            parts.append(header)
            offset += len(header)
            self._base[doc.source_id] = offset
            body = _display_text(doc.text)
            if not body.endswith("\n"):
                body += "\n"
            body += "\n"
            parts.append(body)
            offset += len(body)
        self._text = "".join(parts)
        self._positions = Utf16Map(self._text)
        self._evidence, self._gates, self._current = [], [], []
        self.setPlainText(self._text)
        self._bold_headers()
        self._refresh()

    def _bold_headers(self) -> None:
        header = QTextCharFormat()
        header.setFontWeight(QFont.Weight.Bold)
        header.setForeground(QColor("#303030"))
        header.setBackground(QColor("#eeeeee"))
        self._header_selections = []
        for source_id, base in self._base.items():
            line_start = self._text.rfind("\n", 0, base - 1) + 1
            sel = QTextEdit.ExtraSelection()
            cur = self.textCursor()
            cur.setPosition(self._qt(line_start))
            cur.setPosition(self._qt(base - 1), QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cur
            sel.format = header
            self._header_selections.append(sel)
            del source_id

    def set_marks(self, evidence: Sequence[EvidenceMark], gates: Sequence[GateMark]) -> None:
        self._evidence = [m for m in evidence if m.has_span and m.source_id in self._base]
        self._gates = [g for g in gates if g.source_id in self._base]
        self._refresh()

    # positions -----------------------------------------------------------------------

    def _qt(self, index: int) -> int:
        return self._positions.qt(index)

    def _py(self, position: int) -> int:
        return self._positions.py(position)

    def position_of(self, source_id: str, offset: int) -> int:
        return self._qt(self._base[source_id] + offset)

    def select_span(self, source_id: str, start: int, end: int) -> bool:
        """Select the span and scroll to it. False if the record has no such document."""
        if source_id not in self._base:
            return False
        cursor = self.textCursor()
        cursor.setPosition(self.position_of(source_id, start))
        cursor.setPosition(self.position_of(source_id, end), QTextCursor.MoveMode.KeepAnchor)
        self.blockSignals(True)
        self.setTextCursor(cursor)
        self.blockSignals(False)
        self.centerCursor()
        self.ensureCursorVisible()
        return True

    def clear_selection(self) -> None:
        """No text selected (the selection is drawn orange, as the current evidence)."""
        cursor = self.textCursor()
        if cursor.hasSelection():
            cursor.clearSelection()
            self.blockSignals(True)
            self.setTextCursor(cursor)
            self.blockSignals(False)

    def show_current(self, spans: Sequence[tuple[str, int, int]]) -> None:
        """Outline the spans of the selected bullet (all of them, not just the first)."""
        self._current = [s for s in spans if s[0] in self._base]
        self._refresh()

    def selected_source_span(self) -> tuple[str, int, int] | None:
        cursor = self.textCursor()
        lo, hi = self._py(cursor.selectionStart()), self._py(cursor.selectionEnd())
        for source_id, base in self._base.items():
            doc_len = len(self.record.document(source_id).text) if self.record else 0
            if base <= lo <= base + doc_len:
                return source_id, lo - base, min(hi, base + doc_len) - base
        return None

    def marks_at(self, position: int) -> list[EvidenceMark]:
        index = self._py(position)
        found = []
        for m in self._evidence:
            base = self._base[m.source_id or ""]
            assert m.start is not None and m.end is not None
            if base + m.start <= index <= base + m.end:
                found.append(m)
        return found

    def _cursor_moved(self) -> None:
        cursor = self.textCursor()
        lo, hi = cursor.selectionStart(), cursor.selectionEnd()
        marks = self.marks_at(lo)
        if hi != lo:
            for m in self.marks_at(hi):
                if m not in marks:
                    marks.append(m)
        self.marks_at_cursor.emit(marks)

    # painting ------------------------------------------------------------------------

    def _selection(
        self, source_id: str, start: int, end: int, fmt: QTextCharFormat
    ) -> QTextEdit.ExtraSelection:
        sel = QTextEdit.ExtraSelection()
        cursor = self.textCursor()
        cursor.setPosition(self.position_of(source_id, start))
        cursor.setPosition(self.position_of(source_id, end), QTextCursor.MoveMode.KeepAnchor)
        sel.cursor = cursor
        sel.format = fmt
        return sel

    @staticmethod
    def evidence_format(mark: EvidenceMark) -> QTextCharFormat:
        fmt = QTextCharFormat()
        if mark.status == AlignmentStatus.EXACT and mark.verified:
            fmt.setBackground(theme.agent_tint(mark.agent))
        elif mark.status == AlignmentStatus.FUZZY and mark.verified:
            tint = theme.agent_tint(mark.agent)
            fmt.setBackground(tint.lighter(108))
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DashUnderline)
            fmt.setUnderlineColor(QColor(theme.FUZZY_UNDERLINE))
        else:  # FAILED or a number/negation mismatch: the nearest text, not evidence
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(QColor(theme.FAILED_UNDERLINE))
        if mark.negated:
            fmt.setFontStrikeOut(True)
            fmt.setFontItalic(True)
        return fmt

    @staticmethod
    def gate_format(status: GateStatus, severity: Severity = Severity.MAJOR) -> QTextCharFormat:
        """A fired major red flag: white bold text on red, so it cannot be missed (nor
        mistaken for an agent's tint); a moderate one: black bold text on amber; a negated
        mention: grey, struck through."""
        fmt = QTextCharFormat()
        if status == GateStatus.TRIGGERED and severity != Severity.MAJOR:
            fmt.setBackground(QColor(theme.AMBER))
            fmt.setForeground(QColor("#000000"))
            fmt.setFontWeight(QFont.Weight.Bold)
        elif status == GateStatus.TRIGGERED:
            fmt.setBackground(QColor(theme.RED_FLAG_BACKGROUND))
            fmt.setForeground(QColor("#ffffff"))
            fmt.setFontWeight(QFont.Weight.Bold)
        else:
            fmt.setForeground(QColor(theme.GREY))
            fmt.setFontStrikeOut(True)
        return fmt

    def _refresh(self) -> None:
        selections = list(self._header_selections)
        for m in self._evidence:
            assert m.source_id is not None and m.start is not None and m.end is not None
            selections.append(self._selection(m.source_id, m.start, m.end, self.evidence_format(m)))
        for g in self._gates:
            selections.append(
                self._selection(g.source_id, g.start, g.end, self.gate_format(g.status, g.severity))
            )
        for source_id, start, end in self._current:
            fmt = QTextCharFormat()
            fmt.setBackground(QColor(theme.CURRENT_SELECTION))
            fmt.setForeground(QColor("#000000"))
            fmt.setProperty(QTextFormat.Property.OutlinePen, QColor("#000000"))
            selections.append(self._selection(source_id, start, end, fmt))
        self.setExtraSelections(selections)
        self._update_ticks()

    # scrollbar ticks -----------------------------------------------------------------

    def fraction_of(self, source_id: str, offset: int) -> float:
        """Where a span starts, from 0 (top) to 1 (end of the text), by lines."""
        block = self.document().findBlock(self.position_of(source_id, offset))
        return block.blockNumber() / max(1, self.document().blockCount() - 1)

    def tick_list(self) -> list[Tick]:
        ticks = []
        for m in self._evidence:
            if m.verified:
                assert m.source_id is not None and m.start is not None
                colour = theme.agent_tint(m.agent).darker(140).name()
                ticks.append(Tick(self.fraction_of(m.source_id, m.start), colour, "evidence"))
        for g in self._gates:
            if g.status == GateStatus.TRIGGERED:
                ticks.append(Tick(self.fraction_of(g.source_id, g.start), theme.RED, "flag"))
        for source_id, start, _end in self._current:
            ticks.append(
                Tick(self.fraction_of(source_id, start), theme.CURRENT_SELECTION, "current")
            )
        return ticks

    def _update_ticks(self) -> None:
        self.ticks.set_ticks(self.tick_list())
