"""The case queue without Qt (issue 25, item 7): what the reviewer sees first, what a key
may decide, and that an undo is appended, never an edit."""

from __future__ import annotations

import pytest

from concord.domain import Case, DecisionAction
from concord.workbench.case_queue import CaseQueue, withdrawal_of
from tests.report.report_fixtures import build_case, build_record


@pytest.fixture
def queue() -> CaseQueue:
    made = CaseQueue()
    made.user = "dr"
    made.set_case(build_case(build_record()), [])
    return made


def _case(queue: CaseQueue) -> Case:
    assert queue.case is not None
    return queue.case


def test_required_judgements_come_first_and_start_with_a_red_flag(queue: CaseQueue) -> None:
    required = [e.required for e in queue.entries]
    assert required[0] and required == sorted(required, reverse=True)
    assert queue.index == 0 and queue.current is not None and queue.current.is_disposition
    assert queue.required_outstanding == queue.required_total > 0


def test_a_red_flag_takes_a_disposition_after_its_evidence_was_opened(queue: CaseQueue) -> None:
    with pytest.raises(ValueError, match="needs your disposition"):
        queue.accept("")
    if queue.needs_evidence():
        with pytest.raises(ValueError, match="open its evidence"):
            queue.dispose("proceed", "in the plan")
        queue.saw_evidence()
    made = queue.dispose("proceed", "in the plan")
    assert [d.new_value for d in made] == ["proceed"] and made[0].reason == "in the plan"
    queue.set_decisions(made, advance=True)
    assert queue.required_outstanding == queue.required_total - 1
    assert queue.index != 0  # moved on to the next undecided judgement


def test_blind_mode_never_accepts_a_verdict_the_reviewer_has_not_seen(queue: CaseQueue) -> None:
    queue.blind = True
    optional = next(i for i, e in enumerate(queue.entries) if not e.required)
    queue.go(optional)
    assert not queue.visible()
    with pytest.raises(ValueError, match="blind mode"):
        queue.accept("")
    with pytest.raises(ValueError, match="blind mode"):
        queue.accept_optional()


def test_an_undo_is_a_withdrawal_appended_after_the_decision(queue: CaseQueue) -> None:
    optional = next(i for i, e in enumerate(queue.entries) if not e.required)
    queue.go(optional)
    queue.saw_evidence()  # a major finding is accepted only after its evidence was opened
    accepted = queue.accept("")
    queue.set_decisions(accepted)
    undone = queue.undo()
    assert [u.target_id for u in undone] == [d.target_id for d in accepted]
    assert all(u.action is DecisionAction.OVERRIDE and u.new_value is None for u in undone)
    assert all(a.decision_id in u.reason for a, u in zip(accepted, undone, strict=True))
    queue.set_decisions([*accepted, *undone])
    assert not queue.entries[optional].decided  # the judgement is open again
    assert withdrawal_of(accepted[0], "dr").decision_id != accepted[0].decision_id
    assert _case(queue).case_id == accepted[0].case_id
