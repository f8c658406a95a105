"""Enrolling users: the first user of an installation is its admin; every later user is
enrolled by a signed-in admin.

Enrolment writes the user's credential (sealed under their own password), for a clinician a
certificate issued by the installation root (whose key only an admin's credential unlocks),
for every clinician and annotator a root certificate of their identity key (the Ed25519 key
that signs their decisions), so that a label package they sign can be checked on another
workstation against this installation's root certificate,
and one row in `users` with an audit row holding the whole enrolment statement, signed by the
enrolling admin's key. `concord audit verify` checks every user row and every decision
signature against these statements.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from concord import paths
from concord.accounts.names import confusable_with, normalise_name, skeleton
from concord.accounts.passwords import check_password
from concord.accounts.session import Session, require_role
from concord.domain import UserRole
from concord.errors import AuthError, InputError
from concord.pki.credentials import Credential, new_credential, seal, statement_bytes
from concord.pki.keys import (
    certificate_fingerprint,
    create_root_ca,
    credential_path,
    destroy_legacy_root_secret,
    existing_root_ca,
    issue_identity_certificate,
    issue_user_certificate,
    new_signing_key,
    read_legacy_root_secret,
)
from concord.store import Repository, write_transaction


@dataclass(frozen=True)
class Enrolled:
    name: str
    role: UserRole
    public_key: str
    fingerprint: str | None
    enrolled_by: str


def _role(role: UserRole | str) -> UserRole:
    try:
        return UserRole(role)
    except ValueError:
        raise InputError(f"unknown role {role!r} (clinician, annotator or admin)") from None


def _check_new_name(repo: Repository, name: str) -> bool:
    """True when `name` is a user created before credentials (to be enrolled in place)."""
    existing = {u.name: u for u in repo.list_users()}
    if name in existing:
        if existing[name].enrolled:
            raise InputError("user already exists", subject=name)
        return True
    twin = confusable_with(name, list(existing))
    if twin is not None:
        raise InputError(
            f"the name could be mistaken for the existing user {twin!r} (look-alike letters)",
            subject=name.encode("unicode_escape").decode("ascii"),
        )
    return False


def enrol_user(
    repo: Repository,
    name: str,
    role: UserRole | str,
    password: str,
    *,
    admin: Session | None,
    home: Path | None = None,
) -> Enrolled:
    """Enrol a user. Without `admin` only the installation's first user, an admin, may be
    enrolled; every later enrolment needs a signed-in admin. Everything is checked before
    anything is written."""
    home = Path(home) if home is not None else paths.concord_home()
    name = normalise_name(name)
    role = _role(role)
    check_password(password, name=name)
    first = not any(u.enrolled for u in repo.list_users())
    if admin is None:
        if not first:
            raise AuthError("only an admin can add users: give --admin NAME and their password")
        if role != UserRole.ADMIN:
            raise InputError("the first user of an installation is its admin: use --role admin")
    else:
        require_role(admin, UserRole.ADMIN, doing="add users")
    legacy = _check_new_name(repo, name)

    root_secret = _root_secret(home, admin)
    signing = new_signing_key() if role == UserRole.CLINICIAN else None
    credential = new_credential(name, signing=signing)
    if role == UserRole.ADMIN:
        credential = credential.with_root_passphrase(root_secret)
    fingerprint = None
    if signing is not None:
        cert = issue_user_certificate(home, name, signing.public_key(), root_secret)
        fingerprint = certificate_fingerprint(cert)
    if role != UserRole.ADMIN:
        issue_identity_certificate(home, name, credential.public_key, root_secret)
    enrolled_by = admin.name if admin is not None else name
    statement = {
        "name": name,
        "role": role.value,
        "skeleton": skeleton(name),
        "public_key": credential.public_key,
        "cert_fingerprint": fingerprint,
        "enrolled_by": enrolled_by,
        "at": datetime.now(UTC).isoformat(timespec="microseconds"),
    }
    signer: Credential = admin.credential if admin is not None else credential
    signature = signer.sign(statement_bytes(statement))
    seal(credential, password, credential_path(home, name))
    with write_transaction(repo.db):
        if _check_new_name(repo, name) != legacy:  # another process enrolled meanwhile
            raise InputError("user already exists", subject=name)
        repo.enrol_user(statement, signature, legacy=legacy)
    if role == UserRole.ADMIN:
        destroy_legacy_root_secret(home)  # the admin's credential now holds it
    return Enrolled(name, role, credential.public_key, fingerprint, enrolled_by)


def _root_secret(home: Path, admin: Session | None) -> bytes:
    """The secret that decrypts the root key: the signed-in admin's, or for the first admin
    a new root (or the secret an older installation kept in a file)."""
    if admin is not None:
        secret = admin.credential.root_passphrase
        if secret is None:
            raise AuthError(f"{admin.name} holds no share of the installation root key")
        return secret
    if existing_root_ca(home) is None:
        return create_root_ca(home)
    legacy = read_legacy_root_secret(home)
    if legacy is not None:
        return legacy
    # a root whose secret no enrolled admin holds: its first enrolment failed half way
    return create_root_ca(home, replace_orphan=True)


def change_password(
    repo: Repository, session: Session, new_password: str, *, home: Path | None = None
) -> None:
    """Seal the signed-in user's credential under a new password (audited)."""
    home = Path(home) if home is not None else paths.concord_home()
    check_password(new_password, name=session.name)
    seal(session.credential, new_password, credential_path(home, session.name))
    repo.audit_event(user=session.name, action="password change", entity=f"user:{session.name}")


def certify_identity(
    repo: Repository, name: str, *, admin: Session, home: Path | None = None
) -> str:
    """Issue (again) the root certificate of a user's registered identity key: for users
    enrolled before identity certificates were issued. Needs a signed-in admin (the root
    key), not the user's password: the key certified is the public one registered at their
    enrolment. Audited. Returns the certificate's SHA-256 fingerprint."""
    home = Path(home) if home is not None else paths.concord_home()
    require_role(admin, UserRole.ADMIN, doing="certify users")
    user = repo.get_user(name)
    if not user.enrolled or user.public_key is None:
        raise InputError("the user has no registered key: enrol them first", subject=name)
    cert = issue_identity_certificate(home, user.name, user.public_key, _root_secret(home, admin))
    fingerprint = certificate_fingerprint(cert)
    repo.audit_event(
        user=admin.name,
        action="identity certificate",
        entity=f"user:{user.name}",
        new_value={"fingerprint": fingerprint, "public_key": user.public_key},
    )
    return fingerprint
