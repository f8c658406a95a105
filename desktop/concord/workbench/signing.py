"""Signing from the desktop: the signer's password is checked before anything else is asked
(where to save the PDF), then the core's `sign_case` signs."""

from __future__ import annotations

from pathlib import Path

from concord import paths
from concord.errors import AuthError
from concord.pki.keys import load_signer
from concord.signoff import SignedRecord, sign_case
from concord.store import Repository


def check_signer(repo: Repository, user: str, password: str) -> None:
    """AuthError unless `user` is a clinician whose signing key this password unlocks."""
    account = repo.get_user(user)
    if account.role != "clinician":
        raise AuthError(f"{user} is a {account.role}: only clinicians can sign", subject=user)
    load_signer(paths.concord_home(), user, password)


def sign(repo: Repository, case_id: str, user: str, password: str, out: Path) -> SignedRecord:
    return sign_case(repo, case_id, user=user, password=password, out=out)
