"""Run-and-save is written once (issue 25, item 4): the loop that turns a run's events into
its case, shared by the CLI, the desktop's jobs, the batch runner and `run_and_save`."""

from __future__ import annotations

import pytest

from concord.errors import Cancelled
from concord.pipeline import RunEvent, Stage, final_case
from tests.report.report_fixtures import build_case, build_record


def test_the_case_is_the_last_events_and_every_event_is_seen() -> None:
    case = build_case(build_record())
    events = [
        RunEvent(Stage.SCREEN, "screen", 0, 1),
        RunEvent(Stage.ANAESTHETIST, "brief", 1, 1, agent="anaesthetist"),
        RunEvent(Stage.DONE, "case complete", 1, 1, case=case),
    ]
    seen: list[str] = []
    assert final_case(iter(events), lambda e: seen.append(e.message)) is case
    assert seen == ["screen", "brief", "case complete"]


def test_a_run_that_ends_without_a_case_is_cancelled_not_a_clean_patient() -> None:
    with pytest.raises(Cancelled, match="without a case"):
        final_case(iter([RunEvent(Stage.SCREEN, "screen", 0, 1)]))
