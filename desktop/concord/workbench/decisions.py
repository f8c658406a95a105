"""Recording a clinician's decisions from the desktop: one judgement, a group (the failed
quotes of one brief) or a bulk accept, appended together in one transaction; when nothing
required is outstanding any more, the case becomes reviewed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from concord.domain import Case, CaseStatus, Decision
from concord.review import outstanding
from concord.store import Repository
from concord.store.connection import write_transaction


@dataclass(frozen=True)
class DecisionResult:
    decisions: tuple[Decision, ...]  # the case's whole decision history after the write
    status: CaseStatus
    outstanding: int  # required judgements still undecided
    became_reviewed: bool


def append_decisions(
    repo: Repository, case: Case, new: Sequence[Decision], user: str
) -> DecisionResult:
    """Append `new` (all or nothing); mark the case reviewed when every required judgement
    is decided."""
    with write_transaction(repo.db):
        for decision in new:
            repo.append_decision(decision)
        decisions = repo.decisions(case_id=case.case_id)
        status = repo.case_status(case.case_id)
        left = outstanding(case, decisions)
        became = False
        if not left and status == CaseStatus.NEEDS_REVIEW:
            repo.set_case_status(
                case.case_id, CaseStatus.REVIEWED, user, reason="every required judgement decided"
            )
            status, became = CaseStatus.REVIEWED, True
    return DecisionResult(tuple(decisions), status, len(left), became)
