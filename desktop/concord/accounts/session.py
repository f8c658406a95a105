"""Signing in: a registered, enrolled user unlocks their credential with their password.

A `Session` is what the CLI (one command) and the desktop app (until sign-out or lock) hold
for the person at the keyboard: every decision, import, run and signature is attributed to
`session.name`, and decisions are signed with the session's key.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from concord import paths
from concord.domain import UserRole
from concord.errors import AuthError, NotFoundError
from concord.pki.credentials import (
    Credential,
    seal,
    statement_bytes,
    unseal,
    verify_signature,
)
from concord.pki.keys import (
    credential_path,
    destroy_legacy_root_secret,
    read_legacy_root_secret,
)
from concord.store import Repository, User
from concord.store.audit import sign_rows_as


@dataclass(frozen=True)
class Session:
    """A signed-in user and their unlocked keys."""

    user: User
    credential: Credential
    started_at: datetime

    @property
    def name(self) -> str:
        return self.user.name

    @property
    def role(self) -> UserRole:
        return self.user.role

    def sign(self, payload: bytes) -> str:
        return self.credential.sign(payload)


def _home(home: Path | None) -> Path:
    return Path(home) if home is not None else paths.concord_home()


def revocation_note(statement: dict[str, Any]) -> str:
    """'revoked by NAME on DATE: REASON', for messages and lists."""
    at = str(statement.get("at", ""))[:16].replace("T", " ")
    return f"revoked by {statement.get('revoked_by')} on {at} UTC: {statement.get('reason')}"


def revoked_accounts(repo: Repository) -> dict[str, dict[str, Any]]:
    """name -> the revocation statement of each account with one in the audit trail signed
    by an enrolled admin's key (an unsigned or forged one is ignored here, and reported by
    `concord audit verify`). One read of the users and of the revocations."""
    admins = {u.name: u for u in repo.list_users() if u.role == UserRole.ADMIN and u.enrolled}
    found: dict[str, dict[str, Any]] = {}
    for name, pairs in repo.revocations().items():
        for statement, signature in pairs:
            admin = admins.get(str(statement.get("revoked_by")))
            if (
                admin is not None
                and statement.get("name") == name
                and verify_signature(str(admin.public_key), statement_bytes(statement), signature)
            ):
                found[name] = statement
                break
    return found


def revocation_of(repo: Repository, name: str) -> dict[str, Any] | None:
    """The valid revocation statement of `name`'s account, if any (`revoked_accounts`)."""
    return revoked_accounts(repo).get(name)


def _fail(repo: Repository, name: str, why: str) -> AuthError:
    repo.audit_event(user=name, action="sign-in failed", entity=f"user:{name}", reason=why)
    return AuthError(f"cannot sign in as {name}: {why}")


def sign_in(repo: Repository, name: str, password: str, *, home: Path | None = None) -> Session:
    """Unlock `name`'s credential with `password`. A failure is audited and raises AuthError
    (after the full key-derivation cost, so guessing is as slow as scrypt makes it)."""
    home = _home(home)
    try:
        user = repo.get_user(name)
    except NotFoundError:
        raise _fail(repo, name, "no such user") from None
    revoked = revocation_of(repo, user.name)
    if revoked is not None:
        raise _fail(repo, name, f"the account was {revocation_note(revoked)}")
    if not user.enrolled:
        raise AuthError(
            f"{name} was created before Concord kept credentials: an admin re-enrols them with "
            f"'concord users add \"{name}\" --role {user.role.value} --admin ADMIN'"
        )
    try:
        credential = unseal(credential_path(home, user.name), password, user=user.name)
    except AuthError:
        raise _fail(repo, name, "wrong password") from None
    except NotFoundError:
        raise _fail(repo, name, "the credential file is missing") from None
    if credential.public_key != user.public_key:
        raise _fail(repo, name, "the credential file is not the one registered for this user")
    if user.role == UserRole.ADMIN and credential.root_passphrase is None:
        credential = _adopt_legacy_root_secret(home, credential, password)
    session = Session(user=user, credential=credential, started_at=datetime.now(UTC))
    sign_rows_as(repo.db.conn, session)  # every audit row of theirs is signed with their key
    return session


def _adopt_legacy_root_secret(home: Path, credential: Credential, password: str) -> Credential:
    """An admin of an installation that still keeps the root secret in a file takes it into
    their credential; the file is then destroyed."""
    secret = read_legacy_root_secret(home)
    if secret is None:
        return credential
    updated = credential.with_root_passphrase(secret)
    seal(updated, password, credential_path(home, credential.user))
    destroy_legacy_root_secret(home)
    return updated


def require_role(session: Session, *roles: UserRole, doing: str) -> None:
    if session.role not in roles:
        allowed = " or ".join(r.value for r in roles)
        raise AuthError(f"{session.name} is {session.role.value}: only a {allowed} can {doing}")
