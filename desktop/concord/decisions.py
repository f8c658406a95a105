"""Recording a decision: the one way the CLI, the desktop app, and the ASTRID and EVAL pages
store a human's accept/override.

`record_decision` checks who decides (a signed-in, enrolled user; admins do not decide),
that there is a reason, signs the decision with the user's key, and in one transaction
appends it (with its full content in the audit chain), recounts what a clinician must still
decide on the case, and moves the case along its lifecycle:

* needs review -> reviewed, when no required judgement is left undecided by a clinician;
* reviewed -> needs review, when a withdrawal (an undo) leaves a required judgement open;
* signed -> amended (re-sign required), when a clinician decides anything on a signed case
  (a front end asks before it records such a decision: `amends_signed_case`).

An annotator's decision is a label: it is kept and exported, and never counts towards a
clinical sign-off or changes the case's status. How it was given (bulk or one by one, golden
answers shown, seconds on the item, the judge run shown: `LabelProvenance`) is stored beside
it in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass

from concord.accounts.revocation import require_active
from concord.accounts.session import Session
from concord.domain import Case, CaseStatus, Decision, LabelProvenance, Target, UserRole
from concord.domain.decision import PAYLOAD_VERSION
from concord.domain.decision_reason import require_reason
from concord.errors import AuthError, InputError, NotFoundError
from concord.review import outstanding
from concord.store import Repository, write_transaction
from concord.store.label_store import append_provenance

SILENT_REFUSAL = (
    "the case is a silent run (its model and resources are not accepted for patients): "
    "it is stored for comparison and is not for review"
)
REVIEWED_REASON = "every required judgement decided by a clinician"
REOPENED_REASON = "a decision was withdrawn: a required judgement is open again"
AMENDED_REASON = "a clinician decided after the case was signed: it must be signed again"


@dataclass(frozen=True)
class DecisionOutcome:
    """What recording a decision did."""

    decision: Decision
    created: bool
    """False when the same decision (a retry) was already stored: nothing was written."""
    status: CaseStatus | None
    """The case's status afterwards; None for a decision that is not on a clinical case."""
    outstanding: tuple[Target, ...] = ()
    """Required judgements of the case no clinician has decided yet."""
    became: CaseStatus | None = None
    """The status the case moved to, if it moved."""

    @property
    def became_reviewed(self) -> bool:
        return self.became == CaseStatus.REVIEWED


def _check_decider(session: Session, decision: Decision) -> None:
    if decision.user != session.name:
        raise AuthError(
            f"{session.name} is signed in: a decision cannot be recorded as {decision.user}"
        )
    if session.role == UserRole.ADMIN:
        raise AuthError(
            f"{session.name} is an admin: admins manage users and do not record decisions"
        )
    require_reason(decision.reason, subject=decision.target_id)


def sign_decision(session: Session, decision: Decision) -> Decision:
    """The decision with the decider's role and their signature over its content, signed
    under the current payload version."""
    unsigned = decision.model_copy(
        update={"role": session.role, "signature": "", "payload_version": PAYLOAD_VERSION}
    )
    return unsigned.model_copy(update={"signature": session.sign(unsigned.signed_payload())})


def record_decision(
    repo: Repository,
    session: Session,
    decision: Decision,
    *,
    case: Case | None = None,
    provenance: LabelProvenance | None = None,
) -> DecisionOutcome:
    """Check, sign and store one decision (and how it was given); keep its case's status.
    One transaction.

    `case` is the clinical case the decision is on, when the caller has it loaded; otherwise
    it is looked up (ASTRID runs and EVAL sets are not cases and have no status)."""
    _check_decider(session, decision)
    signed = sign_decision(session, decision)
    with write_transaction(repo.db):
        require_active(repo, session)  # revoked since signing in: nothing is recorded
        if case is None:
            case = _clinical_case(repo, signed.case_id)
        elif case.case_id != signed.case_id:
            raise InputError(
                f"the decision is on {signed.case_id}, not on {case.case_id}",
                subject=signed.decision_id,
            )
        if case is not None and case.silent:
            raise InputError(SILENT_REFUSAL, subject=case.case_id)
        created = repo.append_decision(signed, signer=session)
        if created and provenance is not None:
            append_provenance(repo.db.conn, signed, provenance)
        if case is None:
            return DecisionOutcome(signed, created, None)
        left = tuple(outstanding(case, repo.decisions(case_id=case.case_id)))
        status = repo.case_status(case.case_id)
        became = next_status(status, left, signed) if created else None
        if became is not None:
            reason = {
                CaseStatus.AMENDED: AMENDED_REASON,
                CaseStatus.NEEDS_REVIEW: REOPENED_REASON,
            }.get(became, REVIEWED_REASON)
            repo.set_case_status(case.case_id, became, session.name, reason=reason, signer=session)
            status = became
    return DecisionOutcome(signed, created, status, left, became)


def _clinical_case(repo: Repository, case_id: str) -> Case | None:
    try:
        return repo.get_case(case_id)
    except NotFoundError:
        return None


def next_status(
    status: CaseStatus, left: tuple[Target, ...], decision: Decision
) -> CaseStatus | None:
    """The status a recorded decision moves its case to (None: it stays). `audit verify`
    replays the chain through this same rule, so a status no decision led to is found."""
    if not decision.counts_for_signoff:
        return None  # a label
    if status == CaseStatus.SIGNED:
        return CaseStatus.AMENDED
    if status == CaseStatus.NEEDS_REVIEW and not left:
        return CaseStatus.REVIEWED
    if status == CaseStatus.REVIEWED and left:
        return CaseStatus.NEEDS_REVIEW
    return None


def amends_signed_case(status: CaseStatus) -> bool:
    """A clinician's decision now would amend a signed case (it must then be signed again):
    the front ends ask before recording one."""
    return status == CaseStatus.SIGNED
