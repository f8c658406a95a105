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

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from concord import paths
from concord.accounts.names import (
    check_printed_name,
    confusable_with,
    normalise_name,
    skeleton,
)
from concord.accounts.passwords import check_password
from concord.accounts.session import Session, require_role
from concord.domain import UserRole
from concord.errors import AuthError, InputError
from concord.pki.credentials import Credential, new_credential, seal, statement_bytes
from concord.pki.keys import (
    admin_root_key_path,
    certificate_fingerprint,
    create_root_ca,
    credential_path,
    destroy_legacy_root_secret,
    destroy_shared_root_key,
    existing_root_ca,
    grant_root_key,
    issue_identity_certificate,
    issue_user_certificate,
    new_signing_key,
    read_legacy_root_secret,
    write_user_certificate,
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
    name = check_printed_name(normalise_name(name))
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
    granter = admin.name if admin is not None else None
    signing = new_signing_key() if role == UserRole.CLINICIAN else None
    credential = new_credential(name, signing=signing)
    if role == UserRole.ADMIN:  # their own copy of the root key, under their own secret
        credential = credential.with_root_passphrase(
            grant_root_key(home, root_secret, granter, name)
        )
    fingerprint = None
    if signing is not None:
        cert = issue_user_certificate(
            home, name, signing.public_key(), root_secret, root_owner=granter
        )
        fingerprint = certificate_fingerprint(cert)
    if role != UserRole.ADMIN:
        issue_identity_certificate(
            home, name, credential.public_key, root_secret, root_owner=granter
        )
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
    if admin is None:
        destroy_shared_root_key(home)  # the first admin holds their own copy now
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
    repo: Repository,
    session: Session,
    new_password: str,
    *,
    admin: Session | None = None,
    home: Path | None = None,
) -> Enrolled:
    """A password change gives the signed-in user new credentials, not the old keys sealed
    again: a new identity key (decisions), for a clinician a new signing key with a new
    certificate from the root, and for an admin their root secret carried over. The renewal
    is a signed enrolment statement in the audit chain (it supersedes the earlier one from
    here on; what the old keys signed before stays theirs), and the credential file is
    replaced. A copy of the old credential file with the old password then unlocks keys
    that are no longer registered: sign-in refuses them, `audit verify` reports a decision
    signed with them, and `verify-pdf` a PDF.

    The statement is signed by an admin in force: the user themself if they are one,
    otherwise `admin` (a colleague's new certificate needs the root key only an admin's
    credential unlocks)."""
    from concord.accounts.revocation import require_active

    home = Path(home) if home is not None else paths.concord_home()
    check_password(new_password, name=session.name)
    signer = session if session.role == UserRole.ADMIN else admin
    if signer is None:
        raise AuthError(
            f"{session.name}'s new credentials must be issued by an admin: give --admin ADMIN "
            "(their password from the prompt or CONCORD_ADMIN_PASSWORD)"
        )
    require_role(signer, UserRole.ADMIN, doing="issue new credentials")
    require_active(repo, session)
    require_active(repo, signer)
    user = repo.get_user(session.name)
    if user.public_key != session.credential.public_key:
        raise AuthError(f"{session.name}'s session does not hold their registered key")
    signing = new_signing_key() if user.role == UserRole.CLINICIAN else None
    credential = new_credential(session.name, signing=signing)
    if user.role == UserRole.ADMIN and session.credential.root_passphrase is not None:
        # a new copy of the root key under a new secret; the old copy is destroyed once
        # the renewal is recorded (the old credential file's secret then opens nothing)
        credential = credential.with_root_passphrase(
            grant_root_key(
                home, session.credential.root_passphrase, session.name, session.name, suffix=".new"
            )
        )
    fingerprint = user.cert_fingerprint
    certificate = None
    if signing is not None:
        certificate = issue_user_certificate(
            home,
            session.name,
            signing.public_key(),
            _root_secret(home, signer),
            write=False,
            root_owner=signer.name,
        )
        fingerprint = certificate_fingerprint(certificate)
    statement = {
        "name": user.name,
        "role": user.role.value,
        "skeleton": user.skeleton,
        "public_key": credential.public_key,
        "cert_fingerprint": fingerprint,
        "enrolled_by": signer.name,
        "renews": user.public_key,
        "at": datetime.now(UTC).isoformat(timespec="microseconds"),
    }
    signature = signer.sign(statement_bytes(statement))
    path = credential_path(home, session.name)
    seal(credential, new_password, path.with_name(path.name + ".new"))
    try:
        repo.renew_user(statement, signature)
    except BaseException:
        path.with_name(path.name + ".new").unlink(missing_ok=True)
        raise
    os.replace(path.with_name(path.name + ".new"), path)
    if certificate is not None:
        write_user_certificate(home, session.name, certificate)
    if user.role != UserRole.ADMIN:  # the new identity key's certificate (label packages)
        issue_identity_certificate(
            home,
            session.name,
            credential.public_key,
            _root_secret(home, signer),
            root_owner=signer.name,
        )
    if credential.root_passphrase is not None:
        own = admin_root_key_path(home, session.name)
        os.replace(own.with_name(own.name + ".new"), own)  # the old copy's secret opens nothing
        destroy_shared_root_key(home)
    repo.audit_event(user=session.name, action="password change", entity=f"user:{session.name}")
    return Enrolled(user.name, user.role, credential.public_key, fingerprint, signer.name)


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
    cert = issue_identity_certificate(
        home, user.name, user.public_key, _root_secret(home, admin), root_owner=admin.name
    )
    fingerprint = certificate_fingerprint(cert)
    repo.audit_event(
        user=admin.name,
        action="identity certificate",
        entity=f"user:{user.name}",
        new_value={"fingerprint": fingerprint, "public_key": user.public_key},
    )
    return fingerprint
