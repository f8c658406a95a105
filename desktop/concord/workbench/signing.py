"""Signing from the desktop: the signer's password is checked (a clinician, whose key it
unlocks) before anything else is asked — where to save the PDF — then the core signs."""

from __future__ import annotations

from pathlib import Path

from concord.accounts.session import Session, require_role, sign_in
from concord.domain import UserRole
from concord.signoff import SignedRecord, sign_case
from concord.store import Repository


def check_signer(repo: Repository, name: str, password: str) -> Session:
    """The signer, signed in again with the password just typed; AuthError unless it is
    a clinician's right password."""
    signer = sign_in(repo, name, password)
    require_role(signer, UserRole.CLINICIAN, doing="sign")
    return signer


def sign(repo: Repository, signer: Session, case_id: str, out: Path) -> SignedRecord:
    return sign_case(repo, signer, case_id, out=out)
