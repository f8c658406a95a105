"""Errors shown at the edge (the core raises, the window shows): one clear line, never a
crash."""

from __future__ import annotations

import traceback

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from concord.errors import ConcordError
from concord.ui import theme

_BANNER_COLOURS = {
    "error": ("#fde2e2", theme.RED),
    "warning": ("#fff4d6", "#6b4e00"),
    "info": ("#e3efff", "#123a75"),
}


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


def show_banner(banner: QLabel, text: str, level: str = "info", *, bold: bool = False) -> None:
    """A page's in-window message line (error, warning or info); empty text hides it."""
    if not text:
        banner.hide()
        return
    bg, fg = _BANNER_COLOURS.get(level, _BANNER_COLOURS["info"])
    weight = "; font-weight:bold" if bold else ""
    banner.setStyleSheet(
        f"background:{bg}; color:{fg}; padding:6px; "
        f"border:1px solid {fg}; border-radius:4px{weight}"
    )
    banner.setText(text)
    banner.show()
