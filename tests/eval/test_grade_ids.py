"""EVAL grades are decisions made by the one factory (`new_decision_id`): a new grade has
the `DEC-<32 hex>` id every decision has; grades stored before, with the old `D-<16 hex>`
ids, keep their ids and still verify (ids are signed data: stored rows are never rewritten)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from concord.domain.decision_reason import ACCEPT_REASON, BLIND_REASON
from concord.errors import InputError
from concord.eval.eval_store import EvalStore
from concord.eval.grading import grade_decision, grade_decisions, record_grade
from concord.integrity.verify import verify_installation
from tests.eval.helpers import make_answers
from tests.identity import enrol

NEW_ID = re.compile(r"DEC-[0-9a-f]{32}")


def test_a_new_grade_has_the_one_id_form_and_an_old_one_still_verifies(
    store: EvalStore, set_id: str, concord_home: Path
) -> None:
    make_answers(store, set_id, temperatures=(0.2,), k=1)
    first, second = store.answers(set_id)[:2]
    ann = enrol(store.repo, "ann", "annotator")
    new = record_grade(
        store.repo, ann, grade_decision(store, first.answer_id, "good", user="ann", blind=True)
    )
    assert NEW_ID.fullmatch(new.decision_id)
    assert new.reason == BLIND_REASON  # a blind grade may go without words

    # a grade as the old factory made it: `D-` and 16 hex digits, signed under that id
    made = grade_decision(store, second.answer_id, "bad", user="ann", reason="off topic")
    old = record_grade(
        store.repo, ann, made.model_copy(update={"decision_id": "D-0123456789abcdef"})
    )
    stored = {d.decision_id: d for d in grade_decisions(store.repo, set_id)}
    assert stored["D-0123456789abcdef"] == old and stored[new.decision_id] == new
    report = verify_installation(store.repo, home=concord_home)
    assert report.ok, report.problems
    assert report.checked["decisions"] == 2


def test_the_reason_rule_for_a_grade(store: EvalStore, set_id: str) -> None:
    """Agreeing with the reward model's grade as shown needs no words; a grade against the
    prediction the grader saw needs their reason."""
    make_answers(store, set_id, temperatures=(0.2,), k=1)
    answer = store.answers(set_id)[0]
    agreed = grade_decision(store, answer.answer_id, "good", user="ann", shown_prediction="good")
    assert agreed.action == "accept" and agreed.reason == ACCEPT_REASON
    with pytest.raises(InputError, match="needs a reason"):
        grade_decision(store, answer.answer_id, "bad", user="ann", shown_prediction="good")
