"""Recording a clinician's decisions from the desktop: one judgement, a group (a brief's
failed quotes, one finding repeated in several comparisons) or a bulk accept, each through
the core's `record_decision` as the signed-in user, all in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from concord.accounts.session import Session
from concord.decisions import record_decision
from concord.domain import Case, CaseStatus, Decision, LabelProvenance
from concord.labels.reasons import legacy_bulk
from concord.store import Repository
from concord.store.transaction import write_transaction


@dataclass(frozen=True)
class DecisionResult:
    decisions: tuple[Decision, ...]  # the case's whole decision history after the write
    status: CaseStatus
    outstanding: int  # required judgements no clinician has decided yet
    became: CaseStatus | None = None  # the status the case moved to, if it moved

    @property
    def became_reviewed(self) -> bool:
        return self.became == CaseStatus.REVIEWED


def append_decisions(
    repo: Repository,
    case: Case,
    new: Sequence[Decision],
    signed_in: Session,
    *,
    seconds: float | None = None,
) -> DecisionResult:
    """Record `new` as `signed_in` (all or nothing): each is checked and signed by the core,
    which moves the case along its lifecycle (reviewed; amended after a signature). Each is
    stored with how it was given: a bulk accept or not, the seconds the judgement had been
    current, the case (run) whose judge's values were shown."""
    if not new:
        raise ValueError("no decision to record")
    became: CaseStatus | None = None
    with write_transaction(repo.db):
        for decision in new:
            how = LabelProvenance(
                bulk=legacy_bulk(decision.reason),
                seconds_on_item=None if seconds is None else round(max(0.0, seconds), 2),
                judge_run=case.case_id,
            )
            outcome = record_decision(repo, signed_in, decision, case=case, provenance=how)
            became = became or outcome.became
        status = outcome.status or repo.case_status(case.case_id)
        decisions = tuple(repo.decisions(case_id=case.case_id))
    return DecisionResult(decisions, status, len(outcome.outstanding), became)
