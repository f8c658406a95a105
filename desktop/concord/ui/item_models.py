"""Qt item models: thin adapters over plain Python lists (napari style).

Each model holds a list of plain rows and a list of column functions; `set_rows` swaps the
list. Text is returned as DisplayRole strings, which views draw as plain text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

T = TypeVar("T")
Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class Column(Generic[T]):
    title: str
    text: Callable[[T], str]
    background: Callable[[T], str | None] | None = None
    foreground: Callable[[T], str | None] | None = None
    bold: Callable[[T], bool] | None = None
    tooltip: str = ""
    align_right: bool = False


class ListTableModel(QAbstractTableModel, Generic[T]):
    ROW_ROLE = Qt.ItemDataRole.UserRole + 10

    def __init__(self, columns: Sequence[Column[T]], rows: Sequence[T] = ()) -> None:
        super().__init__()
        self.columns = list(columns)
        self.rows: list[T] = list(rows)

    def set_rows(self, rows: Sequence[T]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def row(self, index: int) -> T:
        return self.rows[index]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        column = self.columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.title
        if role == Qt.ItemDataRole.ToolTipRole and column.tooltip:
            return column.tooltip
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(row)
        if role == Qt.ItemDataRole.BackgroundRole and column.background:
            colour = column.background(row)
            return QBrush(QColor(colour)) if colour else None
        if role == Qt.ItemDataRole.ForegroundRole and column.foreground:
            colour = column.foreground(row)
            return QBrush(QColor(colour)) if colour else None
        if role == Qt.ItemDataRole.FontRole and column.bold and column.bold(row):
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and column.align_right:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == self.ROW_ROLE:
            return row
        return None
