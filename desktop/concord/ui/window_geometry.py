"""The window fits the screen it opens on (down to 1280×800 and 1366×768 laptops) and
remembers where the user put it, per installation (CONCORD_HOME/desktop.ini)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSettings, QSize
from PySide6.QtWidgets import QWidget

from concord import paths

PREFERRED = QSize(1680, 1020)
FRAME = QSize(16, 48)  # room for the window manager's frame and title bar
GEOMETRY_KEY = "window/geometry"


def settings() -> QSettings:
    return QSettings(str(paths.concord_home() / "desktop.ini"), QSettings.Format.IniFormat)


def fitted_size(available: QRect) -> QSize:
    """The preferred size, made smaller to fit `available` with the window's frame."""
    return QSize(
        min(PREFERRED.width(), available.width() - FRAME.width()),
        min(PREFERRED.height(), available.height() - FRAME.height()),
    )


def fit(window: QWidget, available: QRect) -> None:
    """Size the window for `available` (a screen's available geometry) and centre it."""
    size = fitted_size(available)
    window.resize(size)
    window.move(
        available.left() + (available.width() - size.width()) // 2,
        available.top() + max(0, (available.height() - size.height() - FRAME.height()) // 2),
    )


def keep_inside(window: QWidget, available: QRect) -> None:
    """After restoring: never larger than the screen, never off it."""
    size = window.size().boundedTo(fitted_size(available))
    if size != window.size():
        window.resize(size)
    x = min(max(window.x(), available.left()), available.right() - size.width())
    y = min(max(window.y(), available.top()), available.bottom() - size.height())
    window.move(x, y)


def place(window: QWidget, available: QRect | None = None) -> None:
    """The saved geometry if there is one (kept inside `available`, by default the
    window's screen), else fitted."""
    available = available or window.screen().availableGeometry()
    saved = settings().value(GEOMETRY_KEY)
    if isinstance(saved, QByteArray) and window.restoreGeometry(saved):
        keep_inside(window, available)
    else:
        fit(window, available)


def remember(window: QWidget) -> None:
    settings().setValue(GEOMETRY_KEY, window.saveGeometry())
