"""Revoking a user's account: an admin ends it, for good, with a reason.

A revocation is a statement (who, by whom, why, when) signed by the revoking admin's key and
kept in the audit chain. From then on the user cannot sign in, a session they already hold
cannot record a decision or sign a review record, and `concord audit verify` reports any
decision or signature of theirs that the chain holds after the revocation, and any
revocation not signed by an admin. What they decided and signed before stays valid: it was
theirs when they did it. The name stays taken (a new account needs a new name), and the last
admin cannot be revoked (nobody could enrol or revoke any more).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from concord import paths
from concord.accounts.session import (
    Session,
    require_role,
    revocation_note,
    revocation_of,
    revoked_accounts,
)
from concord.domain import UserRole
from concord.errors import AuthError, InputError
from concord.pki.credentials import statement_bytes
from concord.pki.keys import holds_own_root_copy, shared_root_key_present, withdraw_root_key
from concord.store import Repository, write_transaction

MAX_REASON_CHARS = 500


@dataclass(frozen=True)
class Revoked:
    name: str
    revoked_by: str
    reason: str
    at: str


def revoke_user(
    repo: Repository, name: str, reason: str, *, admin: Session, home: Path | None = None
) -> Revoked:
    """End `name`'s account (see the module doc). Everything is checked before anything is
    written; the check and the write are one transaction. Revoking an admin also destroys
    their copy of the root key (and the shared copy of an older installation), so their
    credential and password no longer decrypt it (`pki.keys`)."""
    home = Path(home) if home is not None else paths.concord_home()
    require_role(admin, UserRole.ADMIN, doing="revoke users")
    reason = " ".join(reason.split())
    if not reason:
        raise InputError("a revocation needs a reason (--reason)", subject=name)
    if len(reason) > MAX_REASON_CHARS:
        raise InputError(f"the reason is longer than {MAX_REASON_CHARS} characters", subject=name)
    statement = {
        "name": name,
        "revoked_by": admin.name,
        "reason": reason,
        "at": datetime.now(UTC).isoformat(timespec="microseconds"),
    }
    signature = admin.sign(statement_bytes(statement))
    with write_transaction(repo.db):
        require_active(repo, admin)
        user = repo.get_user(name)
        if not user.enrolled:
            raise InputError(
                "the user was never enrolled: there is no account to revoke", subject=name
            )
        revoked = revoked_accounts(repo)
        if name in revoked:
            raise InputError("the account is already revoked", subject=name)
        if user.role == UserRole.ADMIN:
            admins = [
                u.name
                for u in repo.list_users()
                if u.role == UserRole.ADMIN and u.enrolled and u.name not in revoked
            ]
            if admins == [name]:
                raise InputError(
                    "the last admin cannot be revoked: enrol another admin first", subject=name
                )
            stranded = [a for a in admins if a != name and not holds_own_root_copy(home, a)]
            if stranded and shared_root_key_present(home):
                raise InputError(
                    f"revoking an admin destroys the shared copy of the root key, which "
                    f"{', '.join(stranded)} still use: each signs in once first (that gives "
                    "them their own copy), then revoke",
                    subject=name,
                )
        repo.revoke_user(statement, signature)
    if user.role == UserRole.ADMIN:
        withdraw_root_key(home, name)
    return Revoked(name, admin.name, reason, statement["at"])


def require_active(repo: Repository, session: Session) -> None:
    """Refuse a session whose account was revoked after it signed in."""
    statement = revocation_of(repo, session.name)
    if statement is not None:
        raise AuthError(f"{session.name}'s account was {revocation_note(statement)}")
