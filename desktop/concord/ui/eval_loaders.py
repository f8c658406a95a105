"""What the database thread reads and writes for the EVAL grading and agreement pages
(no Qt). The grading queue itself is the core's `GradingQueue`, built and used here, in
the database thread; the UI thread receives its items as plain data."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from concord.accounts.session import Session
from concord.domain import Decision
from concord.eval.agreement import between_annotators, judge_vs_human
from concord.eval.eval_store import EvalStore
from concord.eval.grading_queue import GradingQueue, QueueItem
from concord.eval.questions import load_question_set
from concord.eval.rows import EvalSet, Question
from concord.store import Repository


@dataclass
class GradingState:
    set_id: str
    user: str
    items: list[QueueItem]
    position: int  # where this grader resumes: the first answer they have not graded
    questions: list[Question]
    configs: dict[str, str] = field(default_factory=dict)  # config hash -> label
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
        list(queue.items),
        queue.position,
        store.questions(queue.set_id),
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


@dataclass(frozen=True)
class EvalImport:
    set_id: str
    created: bool
    questions: int


def import_question_file(repo: Repository, path: Path, user: str) -> EvalImport:
    qset = load_question_set(path)  # a bad file raises here: nothing is written
    set_id, created = EvalStore(repo).import_set(qset, str(path.resolve()), user)
    return EvalImport(set_id, created, len(qset.questions))


@dataclass
class AgreementTables:
    judge: list[dict[str, Any]]
    annotators: list[dict[str, Any]]
    decisions: int


def model_names(repo: Repository) -> dict[str, str]:
    """SHA-256 -> a model's name: the model store's entries and the ASTRID judge runs."""
    from concord.astrid.store import AstridStore
    from concord.errors import ConcordError
    from concord.llm.registry import ModelStore
    from concord.llm.scripted import SCRIPTED_SHA256

    names = {SCRIPTED_SHA256: "scripted (test runtime)"}
    with contextlib.suppress(ConcordError, OSError):  # no model store: the hash is shown
        names.update({e.sha256: e.name for e in ModelStore.open().entries()})
    store = AstridStore(repo)
    for run_id in store.run_ids():
        run = store.get_run(run_id)
        names.setdefault(run.model_sha256, run.model_name)
    return names


def agreement_tables(repo: Repository) -> AgreementTables:
    decisions = repo.decisions()
    judge = judge_vs_human(decisions)
    names = model_names(repo)
    for row in judge:  # the core keys a model without a name by its hash prefix
        found = [n for sha, n in names.items() if row["model"] and sha.startswith(row["model"])]
        if found:
            row["model"] = found[0]
    return AgreementTables(judge, between_annotators(decisions), len(decisions))
