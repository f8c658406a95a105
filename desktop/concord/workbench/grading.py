"""What the database thread reads and writes for the EVAL grading page. The grading queue
itself is the core's `GradingQueue`, built and used here; the UI thread receives its items
as plain data."""

from __future__ import annotations

from dataclasses import dataclass

from concord.accounts.session import Session
from concord.decisions import record_decision
from concord.domain import Decision, Severity, TargetRef
from concord.eval.eval_store import EvalStore, text_sha256
from concord.eval.grading_queue import GradingQueue, QueueItem
from concord.eval.rows import EvalSet, Question
from concord.labels.harm import harm_decision
from concord.labels.sets import set_provenance
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


def _queue_at(store: EvalStore, set_id: str, user: str, answer_id: str) -> GradingQueue:
    queue = GradingQueue(store, set_id, user)
    positions = [n for n, item in enumerate(queue.items) if item.answer.answer_id == answer_id]
    if not positions:
        raise LookupError(f"answer {answer_id} is not in set {set_id}")
    queue.position = positions[0]
    return queue


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
    golden_shown: bool | None = None,
    seconds: float | None = None,
) -> GradingState:
    """Record one grade (a decision, with how it was given: blind, the golden answers
    shown or not, the seconds on the answer, the reward model shown) and return the queue,
    moved to the next answer this grader has not graded."""
    store = EvalStore(repo)
    queue = _queue_at(store, set_id, user, answer_id)
    item = queue.current()
    shown = None if item is None or blind or item.prediction is None else item.prediction
    how = set_provenance(repo, set_id).model_copy(
        update={
            "bulk": False,
            "golden_shown": golden_shown,
            "seconds_on_item": None if seconds is None else round(max(0.0, seconds), 2),
            "judge_run": None if shown is None else shown.version,
        }
    )
    decision = queue.grade(grade, reason, blind=blind, session=session, provenance=how)
    return _state(queue, store, decision)


def mark_answer_harm(
    repo: Repository,
    set_id: str,
    user: str,
    answer_id: str,
    severity: Severity | str,
    reason: str,
    *,
    blind: bool,
    session: Session,
    seconds: float | None = None,
) -> GradingState:
    """H: mark an answer unsafe with a severity (a harm label), and return the queue where
    it was."""
    store = EvalStore(repo)
    queue = _queue_at(store, set_id, user, answer_id)
    answer = store.get_answer(answer_id)
    decision = harm_decision(
        TargetRef.eval_harm(answer_id),
        severity,
        case_id=set_id,
        user=user,
        shown={"answer_sha256": text_sha256(answer.text), "config_hash": answer.config_hash},
        reason=reason,
        blind=blind,
    )
    how = set_provenance(repo, set_id).model_copy(
        update={
            "bulk": False,
            "seconds_on_item": None if seconds is None else round(max(0.0, seconds), 2),
        }
    )
    stored = record_decision(repo, session, decision, provenance=how).decision
    position = queue.position
    queue.reload()
    queue.position = position
    return _state(queue, store, stored)
