"""The window fits the screen it opens on (down to 1280×800 and 1366×768 laptops) and
remembers where the user put it, per installation (CONCORD_HOME/desktop.ini).

What is remembered is the client area (`geometry()`: x, y, width, height, without the
window manager's frame), and it is put back with `setGeometry`, which places the client
area: the same rectangle both ways. (Saving `saveGeometry()` and putting it back, then
moving the window by its frame position before the frame was known, put the client area
one title bar lower at each launch: the window crept down until its status bar was off the
screen.) A remembered window is moved only when it does not fit the screen."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QPoint, QRect, QSettings, QSize
from PySide6.QtWidgets import QWidget

from concord import paths

PREFERRED = QSize(1680, 1020)
FRAME = QSize(16, 48)  # room for the window manager's frame and title bar
RECT_KEY = "window/rect"  # the client area: x, y, width, height
MAXIMIZED_KEY = "window/maximized"
LEGACY_KEY = "window/geometry"  # Qt's saveGeometry() blob, read once if no rect is kept


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


def inside(rect: QRect, available: QRect, frame: QPoint | None = None) -> QRect:
    """`rect` (a client area) made to fit `available` with room for the frame (`frame`: how
    far the client area sits inside the window's frame, when known): smaller if it is
    larger, moved only as far as it sticks out; a rect that fits is returned as it is."""
    offset = frame or QPoint(0, 0)
    size = rect.size().boundedTo(fitted_size(available))
    border = FRAME.width() // 2
    most_x = available.x() + available.width() - size.width() - border
    most_y = available.y() + available.height() - size.height() - border
    x = max(available.x() + offset.x(), min(rect.x(), most_x))
    y = max(available.y() + offset.y(), min(rect.y(), most_y))
    return QRect(x, y, size.width(), size.height())


def keep_inside(window: QWidget, available: QRect) -> None:
    """After restoring: never larger than the screen, never off it; not moved otherwise."""
    frame = window.geometry().topLeft() - window.frameGeometry().topLeft()
    fitted = inside(window.geometry(), available, frame)
    if fitted != window.geometry():
        window.setGeometry(fitted)


def saved_rect() -> QRect | None:
    value = settings().value(RECT_KEY)
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple) or len(value) != 4:
        return None
    try:
        x, y, width, height = (int(v) for v in value)
    except (TypeError, ValueError):
        return None
    if width < 200 or height < 200:
        return None
    return QRect(x, y, width, height)


def place(window: QWidget, available: QRect | None = None) -> None:
    """The remembered client area if there is one (kept inside `available`, by default the
    window's screen), else fitted."""
    available = available or window.screen().availableGeometry()
    rect = saved_rect()
    if rect is not None:
        window.setGeometry(inside(rect, available))
        return
    legacy = settings().value(LEGACY_KEY)
    if isinstance(legacy, QByteArray) and window.restoreGeometry(legacy):
        keep_inside(window, available)
    else:
        fit(window, available)


def remember(window: QWidget) -> None:
    """Keep the client area (of the normal, not maximised, window)."""
    rect = window.normalGeometry() if window.isMaximized() else window.geometry()
    if not rect.isValid():
        rect = window.geometry()
    store = settings()
    store.setValue(RECT_KEY, [rect.x(), rect.y(), rect.width(), rect.height()])
    store.setValue(MAXIMIZED_KEY, window.isMaximized())
    store.remove(LEGACY_KEY)
