"""The window fits the screen down to 1280×800 and 1366×768 laptops — every page's decisive
parts (the decision bar, the scorecard's Review column, the ASTRID options and key legend,
the status bar, the blind badge) inside it — and remembers where the user left it."""

from __future__ import annotations

import ast
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QWidget

from concord.ui import window_geometry
from concord.ui.case_view import TAB_REVIEW
from tests.ui.helpers import idle
from tests.ui.test_qa_page import judged_set

SCREENS = [(1280, 800), (1366, 768)]


def inside(widget: QWidget, window: QWidget) -> bool:
    """Is the widget shown, and all of it within the window?"""
    if not widget.isVisible():
        return False
    top_left = widget.mapTo(window, QPoint(0, 0))
    return window.rect().contains(QRect(top_left, widget.size()))


@pytest.mark.parametrize(("width", "height"), SCREENS)
def test_every_page_fits_a_small_screen(case_window, qtbot, repo, width: int, height: int) -> None:
    window = case_window
    window_geometry.fit(window, QRect(0, 0, width, height))
    size = window.size()
    assert size.width() <= width - window_geometry.FRAME.width()
    assert size.height() <= height - window_geometry.FRAME.height()
    hint = window.minimumSizeHint()
    assert hint.width() <= size.width() and hint.height() <= size.height()
    view = window.case_view
    window.show_tab(TAB_REVIEW)
    QApplication.processEvents()
    assert inside(window.statusBar(), window)
    assert inside(view.bar, window)
    if view.queue.current is not None and view.queue.current.is_disposition:
        for button in view.bar.disposition_buttons.values():  # a red flag's dispositions
            assert inside(button, window)
    else:
        assert inside(view.bar.accept_button, window)
    assert inside(view.bar.progress, window) and inside(view.sign_button, window)
    strip = view.review.scores.table
    last = strip.model().columnCount() - 1
    assert strip.model().headerData(last, Qt.Orientation.Horizontal) == "Review"
    right = strip.columnViewportPosition(last) + strip.columnWidth(last)
    assert right <= strip.viewport().width()  # the Review column is not cut
    assert inside(strip, window)
    qtbot.keyClick(window, Qt.Key.Key_B)
    assert inside(window.blind_label, window)  # blind mode shows on every page
    qtbot.keyClick(window, Qt.Key.Key_B)

    judged_set(repo)
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    qa = window.qa_view
    idle(qtbot, window, lambda: qa.session is not None)
    QApplication.processEvents()
    for button in qa.item.option_buttons[:3]:
        assert inside(button, window)
    assert inside(qa.item.legend, window) and inside(qa.reason, window)
    assert inside(qa.item.targets, window)
    qtbot.keyClick(window, Qt.Key.Key_B)
    assert inside(window.blind_label, window)
    for key in (Qt.Key.Key_3, Qt.Key.Key_4, Qt.Key.Key_1):
        qtbot.keyClick(window, key, Qt.KeyboardModifier.AltModifier)
        idle(qtbot, window)
        assert inside(window.blind_label, window) and inside(window.statusBar(), window)


REMEMBER = """
from PySide6.QtWidgets import QApplication
app = QApplication([])
from concord.ui import window_geometry
from concord.ui.main_window import MainWindow
first = MainWindow(user="t")
first.show()
first.setGeometry(40, 60, 1100, 640)
app.processEvents()
print(first.geometry().getRect())
first.close()
again = MainWindow(user="t")
window_geometry.place(again)
again.show()
app.processEvents()
print(again.geometry().getRect())
again.close()
"""


def test_the_window_comes_back_where_it_was_left(concord_home: Path, tmp_path: Path) -> None:
    """On a 1366×768 laptop (Qt's offscreen screen, configured), a new window opens where
    and as large as the last one was left (kept per installation, in CONCORD_HOME)."""
    env = dict(
        os.environ,
        QT_QPA_PLATFORM=f"offscreen:configfile={screen_config(tmp_path, 1366, 768)}",
        CONCORD_HOME=str(concord_home),
    )
    done = subprocess.run(
        [sys.executable, "-c", REMEMBER], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    left, again = (ast.literal_eval(line) for line in done.stdout.split("\n")[:2])
    assert left == (40, 60, 1100, 640)
    assert again[2:] == left[2:]  # as large
    assert abs(again[0] - left[0]) <= 4 and abs(again[1] - left[1]) <= 4  # where (± a frame)
    assert (concord_home / "desktop.ini").exists()


def screen_config(folder: Path, width: int, height: int) -> Path:
    config = folder / "screen.json"
    config.write_text(
        '{"screens": [{"name": "laptop", "x": 0, "y": 0, '
        f'"width": {width}, "height": {height}, "logicalDpi": 96, "logicalBaseDpi": 96, '
        '"dpr": 1}]}'
    )
    return config


def test_a_remembered_window_larger_than_the_screen_is_made_to_fit(make_window) -> None:
    window = make_window()
    window.setGeometry(0, 0, 1600, 1000)
    window_geometry.keep_inside(window, QRect(0, 0, 1280, 800))
    assert window.width() <= 1280 and window.height() <= 800
    assert QRect(0, 0, 1280, 800).contains(window.frameGeometry().topLeft())


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize(("width", "height"), SCREENS)
def test_concord_gui_opens_fitted_to_the_screen(
    concord_home: Path, tmp_path: Path, width: int, height: int
) -> None:
    """`concord gui` on a screen of that size (Qt's offscreen screen, configured)."""
    from concord.records import load_record
    from tests.ui.helpers import demo_record_path, make_case

    make_case(load_record(demo_record_path()))
    config = screen_config(tmp_path, width, height)
    out = tmp_path / "case.png"
    env = dict(
        os.environ,
        QT_QPA_PLATFORM=f"offscreen:configfile={config}",
        CONCORD_HOME=str(concord_home),
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from concord.cli import main; raise SystemExit(main())",
            "gui",
            "--demo",
            "--screenshot",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    shot = png_size(out)
    assert shot[0] <= width and shot[1] <= height
    assert shot[0] >= width - 100 and shot[1] >= height - 100  # it uses the screen


CREEP = """
from PySide6.QtWidgets import QApplication
app = QApplication([])
from concord.ui import window_geometry
from concord.ui.main_window import MainWindow
for launch in range(4):
    window = MainWindow(user="t")
    window_geometry.place(window)
    window.show()
    app.processEvents()
    if launch == 0:
        window.setGeometry(60, 90, 1100, 600)
        app.processEvents()
    print(window.geometry().getRect())
    window.close()
"""


def test_the_window_does_not_creep_at_each_launch(concord_home: Path, tmp_path: Path) -> None:
    """Launch after launch, the window comes back exactly where it was left (it used to
    come back one frame lower each time, until its status bar was off the screen)."""
    env = dict(
        os.environ,
        QT_QPA_PLATFORM=f"offscreen:configfile={screen_config(tmp_path, 1280, 800)}",
        CONCORD_HOME=str(concord_home),
    )
    done = subprocess.run(
        [sys.executable, "-c", CREEP], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    launches = [ast.literal_eval(line) for line in done.stdout.split("\n") if line.strip()]
    assert launches[0] == (60, 90, 1100, 600)
    assert launches[1:] == [launches[0]] * 3


def test_a_window_that_fits_is_never_moved() -> None:
    screen = QRect(0, 0, 1280, 800)
    for rect in (QRect(10, 40, 1000, 600), QRect(0, 0, 1264, 752), QRect(200, 100, 900, 500)):
        assert window_geometry.inside(rect, screen) == rect
    moved = window_geometry.inside(QRect(900, 700, 1000, 600), screen)
    assert screen.contains(moved) and moved.size() == QRect(0, 0, 1000, 600).size()


def test_no_page_makes_the_window_taller_than_the_screen(case_window) -> None:
    """Every tab of a case, each drawn (a grab lays out the hidden pages too): the window
    keeps its size (a scorecard laid out while hidden, its formulas wrapped into tall rows,
    used to stretch the window to 1531 px on a 800 px screen)."""
    window = case_window
    window_geometry.fit(window, QRect(0, 0, 1280, 800))
    QApplication.processEvents()
    size = window.size()
    for tab in range(window.case_view.tabs.count()):
        window.show_tab(tab)
        window.grab()
        QApplication.processEvents()
        assert window.size() == size, (tab, window.size())
        assert window.minimumSizeHint().height() <= size.height()
