"""One rule for a decision's reason, whoever records it (issue 25, item 4): an accept of
the AI's value as shown may come without words and says so; anything the clinician
decides themselves needs their reason — in the factory, so the CLI and the desktop agree."""

from __future__ import annotations

import pytest

from concord.adjudication.targets import case_targets
from concord.domain import Case, DecisionAction
from concord.domain.decision_reason import ACCEPT_REASON
from concord.errors import InputError
from concord.review import make_decision
from concord.workbench.case_queue import CaseQueue
from tests.report.report_fixtures import build_case, build_record


@pytest.fixture
def case() -> Case:
    return build_case(build_record())


def _optional(case: Case) -> str:
    return next(t.id for t in case_targets(case) if t.kind.value == "overall")


@pytest.mark.parametrize("said", ["", "   "])
def test_an_accept_without_words_is_recorded_as_accepted_as_shown(case: Case, said: str) -> None:
    made = make_decision(case, _optional(case), user="dr", reason=said)
    assert made.action is DecisionAction.ACCEPT and made.reason == ACCEPT_REASON


def test_an_override_or_a_disposition_needs_the_clinicians_reason(case: Case) -> None:
    with pytest.raises(InputError, match="needs a reason"):
        make_decision(case, _optional(case), user="dr", reason=" ", override="40")
    with pytest.raises(InputError, match="needs a reason"):
        make_decision(case, "gate/hyperkalaemia", user="dr", reason="", disposition="refer")


def test_the_desktop_queue_follows_the_same_rule(case: Case) -> None:
    queue = CaseQueue()
    queue.user = "dr"
    queue.set_case(case, [])
    target = _optional(case)
    index = queue.find(target)
    assert index is not None and queue.go(index)
    accepted = queue.accept("")
    assert [d.reason for d in accepted] == [ACCEPT_REASON] * len(accepted)
    with pytest.raises(InputError, match="needs a reason"):
        queue.override("40", "")
