"""One agent's brief as a tree: sections -> bullets, then the evidence pack.

Item text is set with `setText` (plain text; QTreeWidget never interprets it). Tooltips,
which Qt may treat as rich text, are escaped with `plain_tooltip`.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from concord.adjudication.support import NOT_SUPPORTED
from concord.domain import AlignmentStatus, Brief, BriefItem, BriefSection, BriefStatus
from concord.ui import theme
from concord.workbench.marks import EvidenceMark, evidence_marks

ITEM_ROLE = Qt.ItemDataRole.UserRole + 1
EVIDENCE_ROLE = Qt.ItemDataRole.UserRole + 2


def plain_tooltip(text: str) -> str:
    """A tooltip that shows `text` literally even if it looks like HTML."""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"


def quote_check(mark: EvidenceMark) -> str:
    """What code found about a quote, in words: never a bare EXACT / FUZZY / FAILED."""
    if not mark.verified:
        return AlignmentStatus.FAILED.meaning
    return mark.status.meaning


def evidence_label(mark: EvidenceMark) -> str:
    status = quote_check(mark)
    flags = [f for f in mark.flags if f != "negated"]
    parts = [f"{mark.evidence_id} [{status}]"]
    if mark.negated:
        parts.append("¬ negated mention")
    if flags:
        parts.append("(" + ", ".join(f.replace("_", " ") for f in flags) + ")")
    return " ".join(parts)


class WrappingDelegate(QStyledItemDelegate):
    """Row heights from the text wrapped to the column's width: QTreeView wraps item text
    when painting but sizes rows as if it were one line, so long bullets would be cut."""

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self.tree = tree

    def sizeHint(
        self,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> QSize:
        opt = QStyleOptionViewItem(option)
        width = self.tree.header().sectionSize(index.column())
        if index.column() == 0:
            depth, parent = 0, index.parent()
            while parent.isValid():
                depth, parent = depth + 1, parent.parent()
            width -= self.tree.indentation() * (depth + 1)
        opt.rect = QRect(0, 0, max(40, width), 10_000)
        return super().sizeHint(opt, index)


class BriefTree(QTreeWidget):
    bullet_selected = Signal(object, object)  # Brief, BriefItem
    evidence_selected = Signal(object)  # EvidenceMark

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(2)
        self.setHeaderLabels(["Bullet", "Its quotes and what they support"])
        self.setWordWrap(True)
        self.setUniformRowHeights(False)
        self.setItemDelegate(WrappingDelegate(self))
        self.setAlternatingRowColors(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(1, 210)
        self.brief: Brief | None = None
        self._items: dict[str, QTreeWidgetItem] = {}
        self.currentItemChanged.connect(self._current_changed)
        header.sectionResized.connect(lambda *_: self.scheduleDelayedItemsLayout())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Row heights follow the width, so long bullets wrap instead of being cut."""
        super().resizeEvent(event)
        self.scheduleDelayedItemsLayout()

    def set_brief(self, brief: Brief | None) -> None:
        self.clear()
        self._items = {}
        self.brief = brief
        if brief is None:
            return
        if brief.status == BriefStatus.FAILED:
            node = QTreeWidgetItem([f"BRIEF FAILED: {brief.failure_reason}", ""])
            node.setForeground(0, QBrush(QColor(theme.RED)))
            self.addTopLevelItem(node)
        marks = {m.evidence_id: m for m in evidence_marks(brief)}
        unsupported = {i.item_id for i in brief.unsupported_items()}
        bold = QFont(self.font())
        bold.setBold(True)
        for section in BriefSection:
            items = brief.section(section)
            if not items:
                continue
            head = QTreeWidgetItem([f"{section.heading} ({len(items)})", ""])
            head.setFont(0, bold)
            head.setFlags(head.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            self.addTopLevelItem(head)
            for item in items:
                node = self._bullet_node(item, marks, item.item_id in unsupported)
                head.addChild(node)
                self._items[item.item_id] = node
            head.setExpanded(True)
        if marks:
            head = QTreeWidgetItem([f"Evidence pack ({len(marks)} extracts)", ""])
            head.setFont(0, bold)
            head.setFlags(head.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            self.addTopLevelItem(head)
            for mark in marks.values():
                head.addChild(self._evidence_node(mark))
            # open when something in it failed, so a FAILED extract is never hidden
            head.setExpanded(any(not m.verified for m in marks.values()))

    def _bullet_node(
        self, item: BriefItem, marks: dict[str, EvidenceMark], unsupported: bool
    ) -> QTreeWidgetItem:
        cited = [marks[c] for c in item.cites if c in marks]
        text = f"{item.rank}. {item.text}"
        quotes = ", ".join(
            f"{m.evidence_id}" + (" ¬neg" if m.negated else "") for m in cited if m.verified
        )
        found = any(m.verified for m in cited)
        not_supporting = unsupported and found and item.supported is not None
        if not_supporting:
            evidence = f"⚠ {quotes}: {NOT_SUPPORTED}"
        elif unsupported:
            evidence = "⚠ UNSUPPORTED: no quote is the record's text"
        elif cited:
            evidence = f"✓ {quotes}: supports it"
        else:
            evidence = "—"
        node = QTreeWidgetItem([text, evidence])
        node.setData(0, ITEM_ROLE, item.item_id)
        node.setToolTip(0, plain_tooltip(item.text))
        detail = "\n".join(f"{evidence_label(m)}: “{m.extract}”" for m in cited) or (
            "UNSUPPORTED: this bullet cites no evidence verified in the record"
        )
        if item.support_reason:
            detail += f"\n\nDoes it support the claim? {item.support_reason}"
        node.setToolTip(1, plain_tooltip(detail))
        if not_supporting:
            node.setForeground(1, QBrush(QColor(theme.NOT_SUPPORTED)))
            node.setBackground(0, QBrush(QColor("#fff6dc")))
        elif unsupported:
            node.setForeground(1, QBrush(QColor(theme.RED)))
            node.setBackground(0, QBrush(QColor("#fff0f0")))
        elif any(m.status == AlignmentStatus.FUZZY for m in cited):
            node.setForeground(1, QBrush(QColor(theme.FUZZY_UNDERLINE)))
        addressed = item.addresses if item.addresses is not None else ()
        if addressed:  # in the wide column, so it is not cut off
            text += "  [addresses: " + ", ".join(g.replace("_", " ") for g in addressed) + "]"
        elif item.gate_ids:
            text += "  [tagged " + ", ".join(g.replace("_", " ") for g in item.gate_ids)
            text += "; addresses none]" if item.addresses is not None else "]"
        node.setText(0, text)
        return node

    def _evidence_node(self, mark: EvidenceMark) -> QTreeWidgetItem:
        where = "not in record" if not mark.has_span else mark.source_id or ""
        text = f"{mark.evidence_id} · {mark.tag}: “{mark.extract}”"
        if mark.changes:  # a failed extract: what it changed against the record
            text += "\nrecord vs quote: " + mark.diff_text.replace("\n", "; ")
        node = QTreeWidgetItem(
            [text, f"{evidence_label(mark)[len(mark.evidence_id) + 1 :]} {where}"]
        )
        node.setData(0, EVIDENCE_ROLE, mark)
        node.setToolTip(0, plain_tooltip(text))
        if not mark.verified:
            node.setForeground(0, QBrush(QColor(theme.RED)))
            node.setForeground(1, QBrush(QColor(theme.RED)))
        if mark.negated:
            font = QFont(self.font())
            font.setItalic(True)
            node.setFont(0, font)
        return node

    def select_item(self, item_id: str) -> bool:
        node = self._items.get(item_id)
        if node is None:
            return False
        self.setCurrentItem(node)
        self.scrollToItem(node)
        return True

    def mark_citing(self, item_ids: set[str]) -> None:
        """Show (bold) the bullets that cite the text under the record's cursor."""
        for item_id, node in self._items.items():
            font = QFont(self.font())
            font.setBold(item_id in item_ids)
            node.setFont(0, font)

    def _current_changed(self, node: QTreeWidgetItem | None, _prev: object) -> None:
        if node is None or self.brief is None:
            return
        item_id = node.data(0, ITEM_ROLE)
        if item_id:
            for item in self.brief.items:
                if item.item_id == item_id:
                    self.bullet_selected.emit(self.brief, item)
                    return
        mark = node.data(0, EVIDENCE_ROLE)
        if isinstance(mark, EvidenceMark):
            self.evidence_selected.emit(mark)
