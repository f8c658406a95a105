"""pytest-qt fixtures: the real main window over a fresh CONCORD_HOME, with a scripted
runtime instead of a model."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from concord import paths
from concord.accounts.session import Session
from concord.adjudication.panel import judge_panel
from concord.domain import Alignment, AlignmentStatus, Brief, Case, Record
from concord.domain.evidence import AlignmentFlag
from concord.pipeline import PanelSettings, run_panel
from concord.records import load_record
from concord.services import Services
from tests.fake_agents import scripted_runtime

USER = "dr.tester"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "records"


def demo_record_path() -> Path:
    demo = sorted((paths.resources_dir() / "demo").glob("*.json"))
    return demo[0] if demo else FIXTURES / "multi_document.json"


def make_case(record: Record, *, unverified: int = 0) -> Case:
    """Run the real panel with the scripted runtime, on the test thread. With `unverified`,
    that many quotes of each brief fail verification (see `with_unverified_quotes`)."""
    svc = Services()
    try:
        case = None
        for event in run_panel(
            record,
            scripted_runtime(),
            profiles=svc.profiles,
            screen=svc.screen,
            lexicon=svc.lexicon,
            config=svc.config,
            settings=PanelSettings(judges=1, max_specialists=3),
        ):
            case = event.case or case
        assert case is not None
        if unverified:
            case = with_unverified_quotes(case, record, unverified, svc)
        svc.repo.save_record(record, USER)
        svc.repo.save_case(case, USER)
        return case
    finally:
        svc.close()


def with_unverified_quotes(case: Case, record: Record, per_brief: int, svc: Services) -> Case:
    """The case as if the first `per_brief` quotes of each brief had come from an imported
    evidence pack with words the record does not have (no number changed: moderate
    disagreements), its scorecards adjudicated again by the same code as the panel's."""
    failed = Alignment(status=AlignmentStatus.FAILED, flags=(AlignmentFlag.WORD_MISMATCH,))

    def degrade(brief: Brief) -> Brief:
        evidence = tuple(
            e.model_copy(update={"alignment": failed}) if n < per_brief else e
            for n, e in enumerate(brief.evidence)
        )
        return brief.model_copy(update={"evidence": evidence})

    briefs = tuple(degrade(b) for b in case.briefs)
    anaesthetist = next(b for b in briefs if b.agent == "anaesthetist")
    cards = tuple(
        judge_panel(
            record,
            anaesthetist,
            next(b for b in briefs if b.agent == card.specialist),
            case.gates,
            rules=svc.screen.definitions,
            lexicon=svc.lexicon,
            config=svc.config,
        )
        for card in case.scorecards
    )
    return case.model_copy(update={"briefs": briefs, "scorecards": cards})


def session_for(user: str, role: str = "clinician") -> Session:
    """The user signed in as the app's sign-in dialog would, enrolled first if needed."""
    from concord.accounts.session import sign_in
    from concord.store import Repository
    from tests.identity import PASSWORD, enrol

    with Repository.open() as repo:
        if any(u.name == user and u.enrolled for u in repo.list_users()):
            return sign_in(repo, user, PASSWORD)
        return enrol(repo, user, role)


@pytest.fixture
def make_window(qtbot) -> Iterator[Callable[..., object]]:
    from concord.ui.main_window import MainWindow

    windows = []

    def factory(runtime_factory=None, **kw):
        rf = runtime_factory or (lambda svc, model: scripted_runtime())
        session = session_for(kw.pop("user", USER), kw.pop("role", "clinician"))
        window = MainWindow(
            runtime_factory=rf,
            session=session,
            settings=kw.pop("settings", PanelSettings(judges=1, max_specialists=3)),
        )
        qtbot.addWidget(window)
        window.resize(1500, 950)
        window.show()
        windows.append(window)
        # the window's database thread opens (and on a new home, creates) the database
        # first: two connections creating one database at once can hit "locked"
        qtbot.waitUntil(lambda: window.db.pending == 0, timeout=10_000)
        return window

    yield factory
    for window in windows:
        window.runner.cancel()
        window.jobs.cancel()
        window.validation_jobs.cancel()
        window.job_host.shutdown(wait_ms=10_000)
        window.db.shutdown()


def idle(qtbot, window, until=lambda: True, timeout: int = 10_000) -> None:
    """Wait until the window's database thread has answered everything (and `until`)."""
    qtbot.waitUntil(lambda: window.db.pending == 0 and until(), timeout=timeout)


@pytest.fixture
def stored_case() -> tuple[Record, Case]:
    record = load_record(demo_record_path())
    return record, make_case(record, unverified=2)


@pytest.fixture
def case_window(make_window, stored_case, qtbot):
    record, case = stored_case
    window = make_window()
    window.open_case(case.case_id)
    qtbot.waitUntil(
        lambda: window.case_view.case is not None and window.db.pending == 0, timeout=10_000
    )
    return window


def decide_required(window, qtbot) -> None:
    """Decide every required judgement of the open case as a clinician does at the keyboard:
    E to the evidence and back, then a disposition (with a reason) for a red flag, else A."""
    from PySide6.QtCore import Qt

    from concord.domain import Disposition

    view = window.case_view
    queue = view.queue
    while queue.state.required_outstanding:
        index = next(i for i, e in enumerate(queue.entries) if e.required and not e.decided)
        queue.go(index)
        left = queue.state.required_outstanding
        qtbot.keyClick(window, Qt.Key.Key_E)
        qtbot.keyClick(window, Qt.Key.Key_E)
        if queue.current.is_disposition:
            view.bar.reason.setText("discussed with the surgeon")
            button = view.bar.disposition_buttons[Disposition.PROCEED]
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        else:
            qtbot.keyClick(window, Qt.Key.Key_A)
        idle(qtbot, window, lambda left=left: queue.state.required_outstanding == left - 1)
