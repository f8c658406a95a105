"""The grading queue behind the grading view, Qt-free: the answers of a set in order, the
grader's position, and whether each answer has been graded by this grader."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from concord.domain import Decision, LabelProvenance, TargetKind, TargetRef
from concord.domain.decision_history import standing_decisions
from concord.eval.eval_store import EvalStore
from concord.eval.grading import (
    Grade,
    answer_of_target,
    grade_decision,
    grade_decisions,
    record_grade,
)
from concord.eval.rows import Answer, Prediction, Question

if TYPE_CHECKING:
    from concord.accounts.session import Session


@dataclass(frozen=True)
class QueueItem:
    answer: Answer
    question: Question
    prediction: Prediction | None
    my_grade: str | None
    my_harm: str | None = None  # the severity of my harm mark on the answer, if any


class GradingQueue:
    def __init__(self, store: EvalStore, set_id: str, user: str) -> None:
        self.store = store
        self.set_id = set_id
        self.user = user
        self.position = 0
        self.reload()
        self.position = self.first_ungraded()

    def reload(self) -> None:
        questions = {q.question_id: q for q in self.store.questions(self.set_id)}
        mine: dict[str, str] = {}
        for d in grade_decisions(self.store.repo, self.set_id):
            answer_id = answer_of_target(d.target_id)
            if answer_id and d.user == self.user:
                mine[answer_id] = str(d.new_value)
        harms: dict[str, str] = {}
        logged = [d for d in self.store.repo.decisions(case_id=self.set_id) if d.user == self.user]
        for d in standing_decisions(logged):
            if d.target_kind == TargetKind.EVAL_HARM:
                harms[TargetRef.parse(d.target_id).subject] = str(d.new_value)
        self.items = [
            QueueItem(
                a,
                questions[a.question_id],
                self.store.latest_prediction(a.answer_id),
                mine.get(a.answer_id),
                harms.get(a.answer_id),
            )
            for a in self.store.answers(self.set_id)
        ]

    @property
    def total(self) -> int:
        return len(self.items)

    @property
    def done(self) -> int:
        return sum(item.my_grade is not None for item in self.items)

    def current(self) -> QueueItem | None:
        return self.items[self.position] if self.items else None

    def first_ungraded(self) -> int:
        for i, item in enumerate(self.items):
            if item.my_grade is None:
                return i
        return 0

    def next(self) -> None:
        if self.items:
            self.position = min(self.position + 1, self.total - 1)

    def previous(self) -> None:
        self.position = max(self.position - 1, 0)

    def grade(
        self,
        grade: Grade | str,
        reason: str,
        *,
        blind: bool,
        session: Session,
        provenance: LabelProvenance | None = None,
    ) -> Decision:
        """Record the grade, blind or not (the prediction counts as shown only when not
        blind), with how it was given."""
        item = self.current()
        if item is None:
            raise IndexError("the queue is empty")
        shown = None if blind or item.prediction is None else item.prediction.grade
        decision = grade_decision(
            self.store,
            item.answer.answer_id,
            grade,
            user=self.user,
            reason=reason,
            shown_prediction=shown,
            blind=blind,
        )
        decision = record_grade(self.store.repo, session, decision, provenance)
        self.reload()
        following = next(
            (i for i in range(self.position + 1, self.total) if self.items[i].my_grade is None),
            None,
        )
        if following is not None:
            self.position = following
        return decision
