"""Which installations' label packages this one accepts.

An installation always trusts its own root certificate. Other installations' roots are
added by an admin (`concord labels trust ROOT.pem --admin ADMIN`): the statement (the root's
fingerprint, a name for it, the certificate, who added it, when) is signed by the admin's
key and kept in the database and the audit chain. When the list is read, a statement counts
only if it is signed by an admin enrolled here and not revoked, so a root certificate copied
into the data folder, or a row written around the application, is not trusted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cryptography import x509

from concord.accounts.session import Session, require_role, revoked_accounts
from concord.domain import UserRole
from concord.errors import InputError
from concord.pki.credentials import statement_bytes, verify_signature
from concord.pki.keys import certificate_fingerprint, existing_root_ca
from concord.store import Repository
from concord.store.label_store import LabelStore


@dataclass(frozen=True)
class TrustedRoot:
    fingerprint: str
    name: str
    certificate: x509.Certificate
    own: bool  # this installation's own root
    added_by: str | None = None


def installation_id(certificate: x509.Certificate) -> str:
    """A short name for an installation: the id in its root's common name, else the start
    of the root's fingerprint."""
    names = certificate.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
    common = str(names[0].value) if names else ""
    tail = common.rsplit(" ", 1)[-1] if common.startswith("Concord installation root") else ""
    return tail or certificate_fingerprint(certificate)[:8]


def load_root_certificate(path: Path) -> x509.Certificate:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the certificate ({exc.strerror})", subject=path) from exc
    try:
        cert = x509.load_pem_x509_certificate(data)
    except ValueError:
        raise InputError("not a PEM certificate", subject=path) from None
    try:
        constraints = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
    except x509.ExtensionNotFound:
        constraints = None
    if constraints is None or not constraints.ca:
        raise InputError("not a root (CA) certificate", subject=path)
    return cert


def trust_root(
    repo: Repository, certificate: x509.Certificate, *, name: str, admin: Session
) -> tuple[str, bool]:
    """An admin trusts another installation's root: (fingerprint, newly added)."""
    require_role(admin, UserRole.ADMIN, doing="trust another installation")
    from cryptography.hazmat.primitives import serialization

    fingerprint = certificate_fingerprint(certificate)
    statement = {
        "fingerprint": fingerprint,
        "name": name.strip() or installation_id(certificate),
        "pem": certificate.public_bytes(serialization.Encoding.PEM).decode("ascii"),
        "added_by": admin.name,
        "added_at": datetime.now(UTC).isoformat(timespec="microseconds"),
    }
    signature = admin.sign(statement_bytes(statement))
    return fingerprint, LabelStore(repo).add_trusted_root(statement, signature)


def trusted_roots(repo: Repository, home: Path) -> list[TrustedRoot]:
    """This installation's root, then every other root an admin in force trusted."""
    found: list[TrustedRoot] = []
    own = existing_root_ca(home)
    if own is not None:
        found.append(
            TrustedRoot(
                own.fingerprint_sha256, installation_id(own.certificate), own.certificate, True
            )
        )
    revoked = revoked_accounts(repo)
    admins = {
        u.name: u
        for u in repo.list_users()
        if u.role == UserRole.ADMIN and u.enrolled and u.name not in revoked
    }
    for row in LabelStore(repo).trusted_roots():
        statement = {k: row[k] for k in ("fingerprint", "name", "pem", "added_by", "added_at")}
        admin = admins.get(row["added_by"])
        if admin is None or not verify_signature(
            str(admin.public_key), statement_bytes(statement), row["signature"]
        ):
            continue  # not an admin's statement: not trusted
        try:
            cert = x509.load_pem_x509_certificate(row["pem"].encode("ascii"))
        except ValueError:
            continue
        if certificate_fingerprint(cert) == row["fingerprint"]:
            found.append(TrustedRoot(row["fingerprint"], row["name"], cert, False, row["added_by"]))
    return found
