"""Signing from the desktop: what the signer is shown before they sign (the patient, the red
flags with their dispositions, how much of the case was reviewed, and what the signature
means), then their password, checked (a clinician, whose key it unlocks) before anything else
is asked — where to save the PDF — then the core signs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from concord.accounts.session import Session, require_role, sign_in
from concord.domain import Disposition, TargetRef, UserRole
from concord.domain.decision_history import standing_decisions
from concord.records.patient_name import date_of_birth, display_name, record_number
from concord.report.pdf import signature_meaning
from concord.review import ReviewTally, review_tally
from concord.signoff import SignedRecord, sign_case
from concord.store import Repository
from concord.workbench.red_flags import red_flags

MEANING_NOTE = (
    "By signing you confirm, under your own name and key, that you reviewed this patient's "
    "red flags and recorded the disposition shown for each, and you sign the review record "
    "as it stands. The PDF states how many judgements you reviewed one by one, accepted in "
    "bulk or did not review; any later decision amends it and needs a new signature."
)


@dataclass(frozen=True)
class SignSummary:
    """What the sign dialog shows."""

    case_id: str
    patient: str
    identity: str  # date of birth and record number, as the record writes them
    operation: str
    red_flags: tuple[tuple[str, str, str], ...]  # (title, severity, disposition in words)
    tally: ReviewTally
    meaning: str  # the meaning of the signature printed in the PDF

    def counts(self) -> str:
        t = self.tally
        decided = t.required - t.required_left
        return f"{t.sentence()}; required: {decided} of {t.required} decided"


def sign_summary(repo: Repository, case_id: str) -> SignSummary:
    case = repo.get_case(case_id)
    record = repo.get_record(case.record_id)
    decisions = repo.decisions(case_id=case_id)
    standing = {d.target_id: d for d in standing_decisions(decisions) if d.counts_for_signoff}
    flags = []
    for flag in red_flags(case.gates):
        decided = standing.get(TargetRef.disposition(flag.gate_id).format())
        try:
            words = Disposition(str(decided.new_value)).label if decided else "no disposition"
        except ValueError:
            words = str(decided.new_value if decided else "")
        if decided is not None:
            words += f" — {decided.reason}"
        flags.append((flag.title, flag.severity.value, words))
    identity = " · ".join(
        p for p in (f"DOB {date_of_birth(record) or '—'}", record_number(record) or "") if p
    )
    return SignSummary(
        case_id=case_id,
        patient=display_name(record),
        identity=identity,
        operation=case.operation or record.operation or "not stated",
        red_flags=tuple(flags),
        tally=review_tally(case, decisions),
        meaning=signature_meaning(decisions),
    )


def check_signer(repo: Repository, name: str, password: str) -> Session:
    """The signer, signed in again with the password just typed; AuthError unless it is
    a clinician's right password."""
    signer = sign_in(repo, name, password)
    require_role(signer, UserRole.CLINICIAN, doing="sign")
    return signer


def sign(repo: Repository, signer: Session, case_id: str, out: Path) -> SignedRecord:
    return sign_case(repo, signer, case_id, out=out)
