"""Help → Keyboard shortcuts: every menu action with its keys, read from the menus
themselves (so the list cannot drift from what the keys do), and the keyboard-only flow."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMenu,
    QMenuBar,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

FLOW = (
    "Keyboard-only flow. Patients: Ctrl+O import (Ctrl+Shift+I a folder; or drop files or "
    "folders) · ↑/↓ choose a "
    "patient (most urgent first; T: to do only), Enter opens it · Ctrl+R runs the agent "
    "panel, Esc cancels · Ctrl+1…4 dashboard, side-by-side review, scorecard, decisions · "
    "A accept / O override the current judgement (required ones come first), N / P next / "
    "previous · E shows its evidence in the record, E again comes back · Ctrl+Shift+A "
    "accepts the remaining optional judgements (recorded as a bulk accept) · R types a "
    "reason, Enter returns · Ctrl+Shift+S signs. QA review: 1 / 2 / 3 answer with the "
    "option printed on its button (overriding a verdict you can see opens the reason box: "
    "a / b / c take a reason, Esc cancels), A accepts the judge, Enter accepts the rest of "
    "the item (a bulk accept) and goes on, H marks unsafe, S skips, Ctrl+Z or Backspace "
    "undoes (a new decision). Answer grading: G good, X bad, L golden answers (this answer "
    "only), H unsafe. Alt+1…4 switch between Patients, QA review, Answer grading and "
    "Agreement; B is blind mode. Single-letter keys act on the page you are on and never "
    "while you type in a text box."
)


def shortcut_rows(menu_bar: QMenuBar) -> list[tuple[str, str, str]]:
    """(menu, action, keys) for every action of every menu that has a shortcut."""
    rows = []
    for menu_action in menu_bar.actions():
        menu = menu_action.menu()
        if not isinstance(menu, QMenu):
            continue
        title = menu_action.text().replace("&", "")
        for action in menu.actions():
            if not isinstance(action, QAction) or action.isSeparator():
                continue
            keys = " or ".join(
                k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()
            )
            if keys:
                rows.append((title, action.text().replace("&", ""), keys))
    return rows


class ShortcutsDialog(QDialog):
    def __init__(self, menu_bar: QMenuBar, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard shortcuts")
        self.resize(760, 640)
        rows = shortcut_rows(menu_bar)
        self.table = QTableWidget(len(rows), 3)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels(["Menu", "Action", "Keys"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        flow = QLabel(FLOW)
        flow.setTextFormat(Qt.TextFormat.PlainText)
        flow.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        lay = QVBoxLayout(self)
        lay.addWidget(flow)
        lay.addWidget(self.table, 1)
        lay.addWidget(buttons)

    def keys_for(self, action_text: str) -> str | None:
        for r in range(self.table.rowCount()):
            action, keys = self.table.item(r, 1), self.table.item(r, 2)
            if action is not None and keys is not None and action.text() == action_text:
                return keys.text()
        return None
