"""EVAL answers marked unsafe are counted (most severe mark per answer), undos withdraw."""

from __future__ import annotations

from concord.domain import TargetRef
from concord.domain.decision_history import standing_decisions
from concord.eval.grading import unsafe_answers
from concord.labels.harm import harm_decision
from concord.workbench.qa_session import withdrawal


def test_unsafe_answers_keep_the_most_severe_mark() -> None:
    def mark(answer: str, severity: str, user: str = "ann"):
        return harm_decision(
            TargetRef.eval_harm(answer), severity, case_id="EV-1", user=user, shown={}
        )

    marks = [mark("a1", "minor"), mark("a1", "major", "bob"), mark("a2", "moderate")]
    undone = mark("a3", "major")
    decisions = [*marks, undone, withdrawal(undone, "ann")]
    assert len(standing_decisions(decisions)) == 3
    got = unsafe_answers(decisions)
    assert got == {
        "answers": 2,
        "by_severity": {"major": 1, "moderate": 1},
        "marks": {"a1": "major", "a2": "moderate"},
    }
