"""What the database thread reads and writes for the EVAL grading page. The grading queue
itself is the core's `GradingQueue`, built and used here; the UI thread receives its items
as plain data."""

from __future__ import annotations

from dataclasses import dataclass

from concord.accounts.session import Session
from concord.domain import Decision
from concord.eval.eval_store import EvalStore
from concord.eval.grading_queue import GradingQueue, QueueItem
from concord.eval.rows import EvalSet, Question
from concord.store import Repository


@dataclass(frozen=True)
class GradingState:
    set_id: str
    user: str
    items: tuple[QueueItem, ...]
    position: int  # where this grader resumes: the first answer they have not graded
    questions: tuple[Question, ...]
    configs: dict[str, str]  # config hash -> label
    decision: Decision | None = None  # the grade just stored, if any

    @property
    def done(self) -> int:
        return sum(item.my_grade is not None for item in self.items)


def eval_sets(repo: Repository) -> list[EvalSet]:
    return EvalStore(repo).sets()


def _state(queue: GradingQueue, store: EvalStore, decision: Decision | None = None) -> GradingState:
    configs = {c.config_hash: c.label for c in store.configs(queue.set_id)}
    return GradingState(
        queue.set_id,
        queue.user,
        tuple(queue.items),
        queue.position,
        tuple(store.questions(queue.set_id)),
        configs,
        decision,
    )


def grading_state(repo: Repository, set_id: str, user: str) -> GradingState:
    store = EvalStore(repo)
    return _state(GradingQueue(store, set_id, user), store)


def grade_answer(
    repo: Repository,
    set_id: str,
    user: str,
    answer_id: str,
    grade: str,
    reason: str,
    *,
    blind: bool,
    session: Session,
) -> GradingState:
    """Record one grade (a decision) and return the queue, moved to the next answer this
    grader has not graded."""
    store = EvalStore(repo)
    queue = GradingQueue(store, set_id, user)
    positions = [n for n, item in enumerate(queue.items) if item.answer.answer_id == answer_id]
    if not positions:
        raise LookupError(f"answer {answer_id} is not in set {set_id}")
    queue.position = positions[0]
    decision = queue.grade(grade, reason, blind=blind, session=session)
    return _state(queue, store, decision)
