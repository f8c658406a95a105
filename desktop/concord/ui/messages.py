"""Errors shown at the edge (STYLE rule 5): one clear line in the window, never a crash."""

from __future__ import annotations

import traceback

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from concord.errors import ConcordError


def error_text(error: BaseException) -> str:
    """One line for the user. Concord errors carry their own; anything else is unexpected
    and says so (with its type), so a bug is not mistaken for bad input."""
    if isinstance(error, ConcordError):
        return error.one_line()
    if isinstance(error, OSError):
        name = f"{error.filename}: " if error.filename else ""
        return f"{name}{error.strerror or error}"
    text = " ".join(str(error).split()) or type(error).__name__
    return f"Unexpected error ({type(error).__name__}): {text}"


def show_error(parent: QWidget | None, title: str, error: BaseException | str) -> None:
    text = error if isinstance(error, str) else error_text(error)
    if not isinstance(error, str | ConcordError):
        traceback.print_exception(error)
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setObjectName("errorBox")
    box.open()  # non-blocking: the event loop keeps running
