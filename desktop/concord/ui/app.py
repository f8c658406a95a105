"""`concord gui`: create the application, open the window (fitted to the screen, or where
the user left it), optionally the demo case, and optionally render a screenshot of one
page and exit."""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from concord.accounts.session import Session
from concord.domain import GateStatus
from concord.errors import ConcordError
from concord.ui import window_geometry
from concord.ui.case_view import TAB_REVIEW
from concord.ui.main_window import PAGE_AGREEMENT, PAGE_GRADING, PAGE_QA, MainWindow, model_choices
from concord.ui.messages import error_text
from concord.ui.review_view import ReviewView
from concord.workbench.demo import DemoState, prepare_demo
from concord.workbench.marks import evidence_marks

SCREENSHOT_PAGES = ("case", "worklist", "qa", "grading", "agreement")
SCREENSHOT_TIMEOUT_S = float(os.environ.get("CONCORD_SCREENSHOT_TIMEOUT", "900"))
"""With --screenshot and no stored demo case, how long to wait for the demo run."""


class DemoController:
    """--demo: open the first demo record's latest case, running the panel first when there
    is none (and a model), then (with --screenshot) render the side-by-side view and exit."""

    def __init__(self, window: MainWindow, screenshot: Path | None, page: str = "case") -> None:
        self.window = window
        self.screenshot = screenshot
        self.page = page
        self.done = False
        self.exit_code = 0

    def start(self) -> None:
        user = self.window.user
        self.window.db.call(lambda repo: prepare_demo(repo, user), self._prepared, self._failed)
        if self.screenshot is not None:
            QTimer.singleShot(int(SCREENSHOT_TIMEOUT_S * 1000), self._timeout)

    def _prepared(self, state: DemoState) -> None:
        w = self.window
        if state.imported:
            w.statusBar().showMessage("Demo data imported: " + ", ".join(state.imported), 15_000)
        if state.note:
            print(f"concord gui: {state.note}", file=sys.stderr)
        if state.record_id is None:
            w.message(state.note, "warning")
            self._finish()
            return
        if state.case_id is not None:
            w.open_case(state.case_id, then=self._finish)
            return
        names, default, note = model_choices()
        if default is None or note:
            why = note or "no model is registered in the model store"
            w.open_record(state.record_id, then=lambda: self._no_model(why))
            return
        w.run_ended.connect(self._run_ended)
        w.open_record(state.record_id, then=lambda: w.run_current(default))

    def _no_model(self, why: str) -> None:
        self.window.case_view.show_message(
            f"No model available ({why}). Showing the record and the record-screen results "
            "only; register a model with `concord models add` to run the panel.",
            "warning",
        )
        self._finish()

    def _run_ended(self, how: str) -> None:
        if how == "finished":
            self.window.case_opened.connect(lambda _id: self._finish())
        else:
            self._finish()

    def _failed(self, exc: BaseException) -> None:
        self.window.message(f"Could not open the demo: {error_text(exc)}")
        self._finish()

    def _timeout(self) -> None:
        if not self.done:
            print(
                f"concord gui: the demo was not ready after {SCREENSHOT_TIMEOUT_S:.0f} s; "
                "taking the screenshot as it is",
                file=sys.stderr,
            )
            self._finish()

    def _finish(self) -> None:
        if self.done:
            return
        self.done = True
        w = self.window
        if w.case_view.bundle is not None:
            w.show_tab(TAB_REVIEW)
            show_first_evidence(w.case_view.review)
        if self.page == "worklist":
            w.show_worklist()
        elif self.page == "qa":
            w.qa_view.loaded.connect(self._page_ready)
            w.show_page(PAGE_QA)
            return
        elif self.page == "grading":
            w.grading_view.loaded.connect(self._page_ready)
            w.show_page(PAGE_GRADING)
            return
        elif self.page == "agreement":
            w.show_page(PAGE_AGREEMENT)
        self._page_ready()

    def _page_ready(self) -> None:
        if self.screenshot is not None:
            QTimer.singleShot(600, self._grab)

    def _grab(self) -> None:
        app = QApplication.instance()
        assert app is not None
        app.processEvents()
        path = self.screenshot
        assert path is not None
        path.parent.mkdir(parents=True, exist_ok=True)
        if not self.window.grab().save(str(path), "PNG"):
            print(f"concord gui: could not write the screenshot to {path}", file=sys.stderr)
            self.exit_code = 1
        else:
            print(f"screenshot written to {path}", file=sys.stderr)
        self.window.close()
        app.exit(self.exit_code)


def show_first_evidence(review: ReviewView) -> None:
    """Select the first bullet whose evidence is in the record (anaesthetist first), so the
    record opens on highlighted evidence; when no bullet cites verified evidence, show the
    first red flag the record screen found instead (unless blind)."""
    case = review.case
    if case is not None:
        briefs = sorted(case.briefs, key=lambda b: b.agent != "anaesthetist")
        for brief in briefs:
            spans = {m.evidence_id for m in evidence_marks(brief) if m.has_span and m.verified}
            for item in brief.items:
                if spans.intersection(item.cites):
                    review.select_bullet(brief.agent, item.item_id)
                    return
    fired = [(g, s) for g in review.gates if g.status == GateStatus.TRIGGERED for s in g.evidence]
    if fired and not review.blind:
        gate, span = fired[0]
        review.show_span(span.source_id, span.start, span.end)
        review.cited_by_label.setText(
            f"Showing the record-screen red flag “{gate.title or gate.gate_id}”"
            + (": no brief cites evidence verified in the record." if case is not None else ".")
        )


def _excepthook(window: MainWindow) -> Callable[..., None]:
    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        traceback.print_exception(kind, value, tb)
        with contextlib.suppress(Exception):  # the hook itself must never crash the app
            window.message(f"Internal error: {error_text(value)}")

    return hook


def _check_qt_binding() -> None:
    """PySide6 6.12.0 on Python 3.11 loses a reference to None/True on every void call or
    emit, so a long session ends in "Fatal Python error: none_dealloc". Say so plainly."""
    import PySide6

    if PySide6.__version__.startswith("6.12.0") and sys.version_info < (3, 12):
        print(
            "concord gui: warning: PySide6 6.12.0 has a reference-counting bug on Python "
            "3.11 that crashes long sessions; install PySide6-Essentials 6.11.3",
            file=sys.stderr,
        )


def _signed_in(screenshot: Path | None) -> tuple[Session | None, bool]:
    """(session, go on). CONCORD_USER + CONCORD_PASSWORD sign in without a dialog (scripts);
    otherwise the sign-in dialog. A screenshot run on an installation with no enrolled user
    yet (a development checkout) opens without a session: it can look, not decide."""
    from concord.accounts.session import sign_in
    from concord.store import Repository
    from concord.ui.signin import SignInDialog

    with Repository.open() as repo:
        enrolled = any(u.enrolled for u in repo.list_users())
        name, password = os.environ.get("CONCORD_USER"), os.environ.get("CONCORD_PASSWORD")
        if name and password:
            return sign_in(repo, name, password), True
    if not enrolled:
        if screenshot is not None:
            return None, True
        note = (
            "No user is enrolled in this installation yet: create the first (its admin) "
            "with `concord users add NAME --role admin`, then clinicians with "
            "`concord users add NAME --role clinician --admin ADMIN`."
        )
        SignInDialog(note=note).exec()
        return None, False
    dialog = SignInDialog()
    if dialog.exec() != SignInDialog.DialogCode.Accepted or dialog.session is None:
        return None, False
    return dialog.session, True


def run_app(
    demo: bool = False,
    screenshot: Path | None = None,
    page: str = "case",
    size: tuple[int, int] | None = None,
) -> int:
    """Open the window. With `screenshot`, render `page` ("case", "worklist", "qa",
    "grading" or "agreement") of the demo data to a PNG and exit; `size` forces the
    window's size (else it fits the screen, or comes back where the user left it)."""
    from concord.accounts.settings import installation_servers
    from concord.netguard import install_network_guard  # before Qt: no internet sockets

    install_network_guard()
    try:
        install_network_guard(signed=installation_servers())  # the admin-signed list
    except ConcordError as exc:
        print(f"concord gui: {exc.one_line()}", file=sys.stderr)
        return 1
    _check_qt_binding()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("Concord")
    try:
        session, go_on = _signed_in(screenshot)
    except ConcordError as exc:
        print(f"concord gui: {exc.one_line()}", file=sys.stderr)
        return 1
    if not go_on:
        return 0
    window = MainWindow(session=session)
    if session is not None:
        from concord.ui.signin import SessionLock

        window.session_lock = SessionLock(window, session)
    if size is not None:
        window.resize(*size)
    elif screenshot is not None:
        window_geometry.fit(window, window.screen().availableGeometry())
    else:
        window_geometry.place(window)
    sys.excepthook = _excepthook(window)
    window.show()
    controller = None
    if demo or screenshot is not None:
        controller = DemoController(window, screenshot, page)
        QTimer.singleShot(0, controller.start)
    code = app.exec()
    return controller.exit_code if controller is not None and screenshot else code
