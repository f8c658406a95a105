"""Signing in: a registered, enrolled user unlocks their credential with their password.

A `Session` is what the CLI (one command) and the desktop app (until sign-out or lock) hold
for the person at the keyboard: every decision, import, run and signature is attributed to
`session.name`, and decisions are signed with the session's key.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
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
    grant_root_key,
    holds_own_root_copy,
    read_legacy_root_secret,
    shared_root_key_present,
)
from concord.store import Repository, User


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
    keys = admin_keys(repo)
    found: dict[str, dict[str, Any]] = {}
    for name, pairs in repo.revocations().items():
        for statement, signature in pairs:
            held = keys.get(str(statement.get("revoked_by")), ())
            if statement.get("name") == name and any(
                verify_signature(key, statement_bytes(statement), signature) for key in held
            ):
                found[name] = statement
                break
    return found


def admin_keys(repo: Repository) -> dict[str, tuple[str, ...]]:
    """name -> every identity key each enrolled admin has held (a password change gives an
    admin a new key; what they signed with the old one stays theirs)."""
    history = repo.enrolment_history()
    out: dict[str, tuple[str, ...]] = {}
    for user in repo.list_users():
        if user.role != UserRole.ADMIN or not user.enrolled:
            continue
        held = [str(s.get("public_key")) for _seq, s in history.get(user.name, [])]
        out[user.name] = tuple(dict.fromkeys([*held, str(user.public_key)]))
    return out


def revocation_of(repo: Repository, name: str) -> dict[str, Any] | None:
    """The valid revocation statement of `name`'s account, if any (`revoked_accounts`)."""
    return revoked_accounts(repo).get(name)


SIGN_IN_FAILED = "sign-in failed"
SIGN_IN_AFTER_FAILURES = "sign-in after failures"
FREE_ATTEMPTS = 3
"""Failed sign-ins in a row a name gets before each further attempt has to wait."""
FIRST_WAIT_SECONDS = 2.0
MAX_WAIT_SECONDS = 900.0
"""The wait doubles with each further failure, up to 15 minutes."""
_WAITING = "too many failed sign-ins"
_RECENT_ROWS = 64


def backoff_seconds(failures: int) -> float:
    """How long a name waits after `failures` failed sign-ins in a row."""
    if failures < FREE_ATTEMPTS:
        return 0.0
    return min(FIRST_WAIT_SECONDS * 2 ** (failures - FREE_ATTEMPTS), MAX_WAIT_SECONDS)


def _failures(repo: Repository, name: str) -> tuple[int, datetime | None]:
    """Failed sign-ins of `name` since its last success (refusals while waiting do not
    count), and when the last one was; read from the audit trail, so every process and the
    desktop app share one count."""
    rows = repo.db.query(
        "SELECT action, reason, at FROM audit WHERE entity = ? AND action IN (?, ?) "
        "ORDER BY seq DESC LIMIT ?",
        [f"user:{name}", SIGN_IN_FAILED, SIGN_IN_AFTER_FAILURES, _RECENT_ROWS],
    )
    count, last = 0, None
    for row in rows:
        if row["action"] == SIGN_IN_AFTER_FAILURES:
            break
        if str(row["reason"]).startswith(_WAITING):
            continue
        count += 1
        if last is None:
            last = datetime.fromisoformat(str(row["at"]))
    return count, last


def _check_backoff(repo: Repository, name: str) -> int:
    """Refuse (audited, not counted) an attempt made before the wait is over; the number of
    failures so far otherwise."""
    failures, last = _failures(repo, name)
    wait = backoff_seconds(failures)
    if wait and last is not None:
        left = (last + timedelta(seconds=wait) - datetime.now(UTC)).total_seconds()
        if left > 0:
            raise _fail(
                repo,
                name,
                f"{_WAITING} ({failures} in a row): try again in {max(1, round(left))} s",
            )
    return failures


def _fail(repo: Repository, name: str, why: str) -> AuthError:
    repo.audit_event(user=name, action=SIGN_IN_FAILED, entity=f"user:{name}", reason=why)
    return AuthError(f"cannot sign in as {name}: {why}")


def sign_in(repo: Repository, name: str, password: str, *, home: Path | None = None) -> Session:
    """Unlock `name`'s credential with `password`. A failure is audited and raises AuthError
    (after the full key-derivation cost, so guessing is as slow as scrypt makes it). After
    `FREE_ATTEMPTS` failures in a row, each further attempt on that name must wait
    (`backoff_seconds`: 2 s, doubling, at most 15 min) and one made sooner is refused before
    the password is even tried; a successful sign-in starts the count again."""
    home = _home(home)
    failures = _check_backoff(repo, name)
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
    if user.role == UserRole.ADMIN and credential.root_passphrase is not None:
        credential = _own_root_copy(home, credential, password)
    if failures:  # the count starts again from here
        repo.audit_event(
            user=name,
            action=SIGN_IN_AFTER_FAILURES,
            entity=f"user:{name}",
            reason=f"signed in after {failures} failed attempt(s)",
        )
    return Session(user=user, credential=credential, started_at=datetime.now(UTC))


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


def _own_root_copy(home: Path, credential: Credential, password: str) -> Credential:
    """An admin of an installation that kept one shared copy of the root key gets their own
    copy under their own secret (`pki.keys`), sealed into their credential."""
    if holds_own_root_copy(home, credential.user) or not shared_root_key_present(home):
        return credential
    assert credential.root_passphrase is not None
    own = grant_root_key(home, credential.root_passphrase, None, credential.user)
    updated = credential.with_root_passphrase(own)
    seal(updated, password, credential_path(home, credential.user))
    return updated


def require_role(session: Session, *roles: UserRole, doing: str) -> None:
    if session.role not in roles:
        allowed = " or ".join(r.value for r in roles)
        raise AuthError(f"{session.name} is {session.role.value}: only a {allowed} can {doing}")
