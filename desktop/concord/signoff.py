"""Users with signing keys, and signing a reviewed case into a PAdES-signed PDF record.

Joins the store (users, decisions, audit head, signatures) and the report (keys, PDF,
signature). Only clinicians sign; a case must have every required judgement decided.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from concord import paths
from concord.domain import CaseStatus
from concord.errors import AuthError, InputError
from concord.pki.keys import (
    certificate_fingerprint,
    check_password,
    issue_user_certificate,
    load_signer,
    user_certificate,
)
from concord.report.pdf import render_review_pdf, signature_meaning
from concord.report.sign import sign_pdf
from concord.review import outstanding
from concord.store import Repository


def create_user(repo: Repository, name: str, role: str, password: str | None) -> dict[str, Any]:
    """Create a user; a clinician also gets a key and certificate from the installation root.

    The password is checked before anything is written, so a weak one leaves no user behind.
    """
    home = paths.concord_home()
    if role == "clinician":
        if password is None:
            raise InputError(
                "a clinician needs a password to protect the signing key", subject=name
            )
        check_password(password, name=name)
    repo.add_user(name, role)
    info: dict[str, Any] = {"name": name, "role": role, "fingerprint": None}
    if role == "clinician":
        assert password is not None
        issue_user_certificate(home, name, password)
        cert = user_certificate(home, name)
        assert cert is not None
        info["fingerprint"] = certificate_fingerprint(cert)
        repo.set_user_certificate(name, info["fingerprint"])
    return info


@dataclass(frozen=True)
class SignedRecord:
    path: Path
    meaning: str
    signed_at: datetime
    audit_head_seq: int
    audit_head_hash: str


def sign_case(
    repo: Repository, case_id: str, *, user: str, password: str, out: Path
) -> SignedRecord:
    """Render the review record, sign it as `user`, store the signature, mark the case signed."""
    account = repo.get_user(user)
    if account.role != "clinician":
        raise AuthError(f"{user} is a {account.role}: only clinicians can sign", subject=case_id)
    home = paths.concord_home()
    load_signer(home, user, password)  # wrong password: AuthError before anything is written
    case = repo.get_case(case_id)
    status = repo.case_status(case_id)
    decisions = repo.decisions(case_id=case_id)
    remaining = outstanding(case, decisions)
    if remaining:
        raise InputError(
            f"{len(remaining)} required judgement(s) not yet decided (first: {remaining[0].id})",
            subject=case_id,
        )
    if status not in (CaseStatus.REVIEWED, CaseStatus.SIGNED):
        raise InputError(f"case is '{status.value}', not reviewed", subject=case_id)
    record = repo.get_record(case.record_id)
    meaning = signature_meaning(decisions)
    signed_at = datetime.now(UTC)
    head = repo.audit_head()
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="concord-sign-") as tmp:
        unsigned = Path(tmp) / "unsigned.pdf"
        render_review_pdf(
            case,
            record,
            decisions,
            signer_name=user,
            meaning=meaning,
            signed_at=signed_at,
            audit_head=head,
            out=unsigned,
        )
        sign_pdf(unsigned, out, home=home, user=user, password=password, meaning=meaning)
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    repo.record_signature(case_id, user, meaning, digest, str(out), head, signed_at=signed_at)
    return SignedRecord(
        path=out,
        meaning=meaning,
        signed_at=signed_at,
        audit_head_seq=head[0],
        audit_head_hash=head[1],
    )
