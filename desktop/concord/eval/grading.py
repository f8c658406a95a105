"""Clinicians' good/bad grades of generated answers, kept as ordinary decisions.

A grade is a `Decision` with target_kind `eval_grade` and target_id `eval/<answer_id>/grade`;
`original_value` is the reward model's predicted grade when one was shown, else null.
Decisions are appended, never edited: a later grade by the same user supersedes the earlier
one, and several users' grades are combined by majority (ties go to the latest grade).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from concord.domain import (
    Decision,
    DecisionAction,
    LabelProvenance,
    Severity,
    TargetKind,
    TargetRef,
    TargetRefError,
)
from concord.domain.decision import new_decision_id
from concord.domain.decision_history import standing_decisions
from concord.domain.decision_reason import Basis, decision_reason
from concord.errors import InputError
from concord.eval.eval_store import EvalStore, text_sha256
from concord.store import Repository
from concord.store.codec import utc_now

TARGET_KIND = TargetKind.EVAL_GRADE
if TYPE_CHECKING:
    from concord.accounts.session import Session


class Grade(StrEnum):
    GOOD = "good"
    BAD = "bad"


def grade_target(answer_id: str) -> str:
    return TargetRef.eval_grade(answer_id).format()


def answer_of_target(target_id: str) -> str | None:
    """The answer an EVAL grade's target id names, or None for any other id."""
    try:
        ref = TargetRef.parse(target_id)
    except TargetRefError:
        return None
    return ref.subject if ref.kind is TargetKind.EVAL_GRADE else None


def grade_basis(shown_prediction: str | None, grade: Grade, *, blind: bool) -> Basis:
    """What a grade is, for the reason rule (`concord.domain.decision_reason`): agreeing with
    the reward model's grade as shown, blind, or with none shown needs no words; a grade
    against the prediction the grader saw needs their reason."""
    if blind:
        return Basis.BLIND
    if shown_prediction is None:
        return Basis.NO_RUN
    return Basis.ACCEPT if shown_prediction == grade.value else Basis.OVERRIDE


def grade_decision(
    store: EvalStore,
    answer_id: str,
    grade: Grade | str,
    *,
    user: str,
    reason: str = "",
    shown_prediction: str | None = None,
    blind: bool = False,
    at: datetime | None = None,
) -> Decision:
    """Build the decision for one grade (not yet stored)."""
    try:
        grade = Grade(grade)
    except ValueError:
        raise InputError(f"a grade is 'good' or 'bad', not {grade!r}") from None
    if not user.strip():
        raise InputError("a grade needs a user")
    answer = store.get_answer(answer_id)
    question = store.question_of(answer_id)
    config = store.get_config(answer.config_hash)
    inputs = hashlib.sha256(
        "\n".join([question.text, answer.text, *(g.text for g in question.golden)]).encode()
    ).hexdigest()
    shown = {
        "model_sha256": config.model_sha256,
        "model_name": config.model_name,
        "prompt_sha256": config.prompt_sha256,
        "inputs_sha256": inputs,
        "answer_sha256": text_sha256(answer.text),
        "config_hash": config.config_hash,
    }
    if shown_prediction is not None:
        prediction = store.latest_prediction(answer_id)
        if prediction is not None:
            shown["reward_model_version"] = prediction.version
    same = shown_prediction is not None and shown_prediction == grade.value
    return Decision(
        decision_id=new_decision_id(),
        case_id=question.set_id,
        target_id=grade_target(answer_id),
        target_kind=TARGET_KIND,
        action=DecisionAction.ACCEPT if same else DecisionAction.OVERRIDE,
        original_value=shown_prediction,
        new_value=grade.value,
        reason=decision_reason(
            reason,
            grade_basis(shown_prediction, grade, blind=blind),
            subject=grade_target(answer_id),
        ),
        user=user,
        at=at or utc_now(),
        shown=shown,
        blind=blind,
    )


def record_grade(
    repo: Repository,
    session: Session,
    decision: Decision,
    provenance: LabelProvenance | None = None,
) -> Decision:
    """Store a grade: a decision like any other (`concord.decisions.record_decision`), with
    how it was given."""
    from concord.decisions import record_decision

    return record_decision(repo, session, decision, provenance=provenance).decision


def grade_decisions(repo: Repository, set_id: str | None = None) -> list[Decision]:
    decisions = repo.decisions(case_id=set_id)
    return [d for d in decisions if d.target_kind == TARGET_KIND]


def human_grades(repo: Repository, set_id: str | None = None) -> dict[str, Grade]:
    """answer_id -> the humans' grade: each user's latest, then the majority across users."""
    latest: dict[str, dict[str, tuple[int, str]]] = {}
    for order, decision in enumerate(grade_decisions(repo, set_id)):
        answer_id = answer_of_target(decision.target_id)
        if answer_id is None or decision.new_value not in ("good", "bad"):
            continue
        latest.setdefault(answer_id, {})[decision.user] = (order, decision.new_value)
    grades: dict[str, Grade] = {}
    for answer_id, by_user in latest.items():
        votes = Counter(value for _, value in by_user.values())
        top = max(votes.values())
        tied = {value for value, count in votes.items() if count == top}
        newest = max(item for item in by_user.values() if item[1] in tied)
        grades[answer_id] = Grade(newest[1])
    return grades


def unsafe_answers(decisions: Iterable[Decision]) -> dict[str, Any]:
    """The harm labels standing on EVAL answers: answer id -> the most severe mark, and the
    count per severity."""
    marks: dict[str, Severity] = {}
    for d in standing_decisions(decisions):
        if d.target_kind != TargetKind.EVAL_HARM:
            continue
        answer_id = TargetRef.parse(d.target_id).subject
        severity = Severity(str(d.new_value))
        if answer_id not in marks or severity.rank < marks[answer_id].rank:
            marks[answer_id] = severity
    return {
        "answers": len(marks),
        "by_severity": dict(Counter(s.value for s in marks.values())),
        "marks": {k: v.value for k, v in marks.items()},
    }
