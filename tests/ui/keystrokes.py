"""Keystrokes per decided item, for a reviewer who agrees with the judge, counted by driving
the real window with key presses: the clinician queue (every required judgement, then the
rest), the ASTRID queue and the EVAL grading queue.

Used by tests/ui/test_keystrokes.py on scripted data, and by hand on a home with the demo
sets (`concord demo`, `concord astrid`, `concord eval generate`) for the README:

    CONCORD_HOME=<a copy of that home> QT_QPA_PLATFORM=offscreen \\
        python -m tests.ui.keystrokes [CASE_ID ...]     (default: every case)

It decides as CONCORD_USER (password CONCORD_PASSWORD), or enrols a clinician of its own
in that copy. A key that stops deciding anything ends the count with the page's message.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox

from concord.accounts.session import Session, sign_in
from concord.store import Repository
from concord.ui.main_window import PAGE_GRADING, PAGE_PATIENTS, PAGE_QA, MainWindow

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


@dataclass
class Count:
    keys: int = 0
    items: int = 0

    @property
    def per_item(self) -> float:
        return self.keys / self.items if self.items else 0.0


@dataclass
class CaseCount:
    case_id: str
    judgements: int  # every decidable judgement of the case
    lines: int  # lines of the queue (the failed quotes of a brief are one line)
    required: int
    keys_required: int  # keys until every required judgement is decided
    keys_all: int  # keys until every judgement is decided


def wait(window: MainWindow, until: Callable[[], bool] = lambda: True, limit: float = 30) -> None:
    app = QApplication.instance()
    assert app is not None
    end = time.monotonic() + limit
    while time.monotonic() < end:
        app.processEvents()
        busy = window.db.pending or window.qa_view.busy or window.grading_view.busy
        if not busy and until():
            return
        time.sleep(0.002)
    raise TimeoutError("the window did not settle")


class Keyboard:
    """Presses keys on the window, counting each one (a chord counts as one key)."""

    def __init__(self, window: MainWindow, limit: int = 10_000) -> None:
        self.window = window
        self.keys = 0
        self.limit = limit

    def check(self, progress: int, messages: Callable[[], str]) -> None:
        """Stop when keys no longer move anything on (something refuses them)."""
        if self.keys > self.limit or self.keys > 4 * (progress + 5):
            raise RuntimeError(f"{self.keys} keys for {progress} decided: {messages()}")

    def press(
        self, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier
    ) -> None:
        self.keys += 1
        QTest.keyClick(self.window, key, modifier)
        wait(self.window)

    def type_into(self, widget: object, text: str) -> None:
        """A reason typed into a box: counted as one key (the words are the clinician's)."""
        self.keys += 1
        QTest.keyClicks(widget, text)  # type: ignore[arg-type]
        wait(self.window)

    def press_on(self, widget: object, key: Qt.Key) -> None:
        self.keys += 1
        QTest.keyClick(widget, key)  # type: ignore[arg-type]
        wait(self.window)

    def confirm(self) -> None:
        """Enter on the message box the last key opened (a confirmation)."""
        box = self.window.findChild(QMessageBox, "acceptOptionalBox")
        assert box is not None and box.isVisible(), "no confirmation was asked"
        self.keys += 1
        QTest.keyClick(box, Qt.Key.Key_Return)
        wait(self.window)


def view_messages(window: MainWindow) -> Callable[[], str]:
    return lambda: window.case_view.banner.text() or window.statusBar().currentMessage()


def clinician_queue(window: MainWindow, case_id: str) -> CaseCount:
    """Every required judgement decided at the keyboard, then the optional rest accepted: E
    to the evidence and E back (a major finding is decided only once its evidence was
    opened), then A, or for a red flag O, a typed reason and Enter (its disposition: the
    dialog offers "proceed" first)."""
    window.show_page(PAGE_PATIENTS)
    window.open_case(case_id)
    wait(window, lambda: (c := window.case_view.case) is not None and c.case_id == case_id)
    queue = window.case_view.queue
    judgements = sum(len(e.targets) for e in queue.entries)
    lines = len(queue.entries)
    required = sum(len(e.targets) for e in queue.entries if e.required)
    keyboard = Keyboard(window)
    while queue.state.required_outstanding:
        keyboard.check(required - queue.state.required_outstanding, view_messages(window))
        keyboard.press(Qt.Key.Key_E)
        keyboard.press(Qt.Key.Key_E)
        entry = queue.current
        if entry is not None and entry.is_disposition:
            keyboard.press(Qt.Key.Key_O)
            dialog = window.patients.override_dialog
            assert dialog is not None, view_messages(window)()
            keyboard.type_into(dialog.reason_edit, "discussed with the surgeon")
            keyboard.press_on(dialog.reason_edit, Qt.Key.Key_Return)
        else:
            keyboard.press(Qt.Key.Key_A)
    keys_required = keyboard.keys
    if queue.state.optional_open:
        keyboard.press(Qt.Key.Key_A, CTRL_SHIFT)
        keyboard.confirm()
    wait(window, lambda: all(e.decided for e in queue.entries))
    return CaseCount(case_id, judgements, lines, required, keys_required, keyboard.keys)


def astrid_queue(window: MainWindow) -> Count:
    """Agree with the judge on every item of the QA run shown: Enter per item; a verdict
    the judge failed to give is answered with its first option (one key)."""
    window.show_page(PAGE_QA)
    view = window.qa_view
    wait(window, lambda: view.session is not None)
    session = view.session
    assert session is not None and session.run is not None, "no judge run to agree with"
    keyboard = Keyboard(window)
    while view.session is not None and view.session.items_done < len(view.session.items):
        keyboard.check(view.session.items_done, lambda: view.status.text())
        row = view.current_row()
        if row is not None and not view.session.decided(row) and not row.acceptable:
            keyboard.press(Qt.Key.Key_1)
        else:
            keyboard.press(Qt.Key.Key_Return)
    return Count(keyboard.keys, len(session.items))


def eval_queue(window: MainWindow) -> Count:
    """G on every answer of the question set shown."""
    window.show_page(PAGE_GRADING)
    view = window.grading_view
    wait(window, lambda: view.state is not None)
    keyboard = Keyboard(window)
    while view.done < view.total:
        keyboard.check(view.done, lambda: view.status.text())
        keyboard.press(Qt.Key.Key_G)
    return Count(keyboard.keys, view.total)


def _signed_in() -> Session:
    name, password = os.environ.get("CONCORD_USER"), os.environ.get("CONCORD_PASSWORD")
    with Repository.open() as repo:
        if name and password:
            return sign_in(repo, name, password)
        from tests.identity import enrol

        return enrol(repo, "keystroke.count", "clinician")


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow(session=_signed_in())
    window.resize(1500, 950)
    window.show()
    wait(window)
    with Repository.open() as repo:
        cases = sys.argv[1:] or [c.case_id for c in repo.list_cases()]
    rows = [clinician_queue(window, case_id) for case_id in cases]
    print("case              judgements  queue lines  required  keys (required)  keys (all)")
    for r in rows:
        print(
            f"{r.case_id:18}{r.judgements:>10}{r.lines:>13}{r.required:>10}"
            f"{r.keys_required:>17}{r.keys_all:>12}"
        )
    required = sum(r.required for r in rows)
    keys_required = sum(r.keys_required for r in rows)
    total = sum(r.judgements for r in rows)
    keys_all = sum(r.keys_all for r in rows)
    print(
        f"clinician queue: {keys_required} keys for {required} required judgements "
        f"({keys_required / max(1, required):.2f} per required judgement); "
        f"{keys_all} keys for all {total} judgements"
    )
    astrid = astrid_queue(window)
    print(f"ASTRID: {astrid.keys} keys for {astrid.items} items ({astrid.per_item:.2f} per item)")
    grading = eval_queue(window)
    print(f"EVAL: {grading.keys} keys for {grading.items} answers ({grading.per_item:.2f} each)")
    window.close()
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
