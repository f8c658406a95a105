"""The installation's root CA and each clinician's certificate.

Layout under ``CONCORD_HOME/pki/`` (folder mode 0700, files 0600 where the OS supports it)::

    pki/root/root-ca.pem      the installation root certificate (public; give it to verifiers)
    pki/root/root-ca.key.pem  the root private key, PKCS#8, encrypted under a random secret
    pki/users/<safe name>.key the user's credential, sealed under their password
                              (`concord.pki.credentials`): identity key, a clinician's RSA
                              signing key, and, for an admin, the root key's secret
    pki/users/<safe name>.crt.pem  a clinician's certificate (public; for fingerprints)
    pki/users/<safe name>.identity.crt.pem  the certificate of a user's Ed25519 identity key
                              (the key that signs their decisions and label packages),
                              issued by the root at enrolment (public)

The secret that decrypts the root key is stored nowhere in clear: it lives only inside admins'
credential files, so the root key can be used only while an admin who has typed their password
enrols a user. A copy of the data folder alone cannot mint a certificate.

Each admin holds their own copy of the root key, ``pki/root/admins/<safe name>.key.pem``,
encrypted under a secret only their credential holds: an admin enrolling another writes the
newcomer a copy under the newcomer's own secret (`grant_root_key`), and revoking an admin
destroys that admin's copy (`withdraw_root_key`), so their kept credential and password
decrypt nothing that is left. (Installations made before this kept one copy,
``root-ca.key.pem``, under a secret every admin held; each admin's next sign-in gives them
their own copy, and an admin's revocation destroys the shared one. What re-wrapping cannot
undo: an admin who copied the key file and its secret before being revoked still holds the
root key. Against that, the installation checks every certificate against the one registered
for its user, and every signature against its row in the chain; an outsider holding only the
root certificate cannot tell, and the compliance document says so.) (Installations made
before this kept the secret in ``pki/root/root-ca.secret``; the first admin who signs in to
enrol a user takes it into their credential and the file is destroyed, see
`take_legacy_root_secret`.)

The root folder is created complete in a temporary folder and renamed into place, so two
processes starting at once cannot end up with a certificate and a key that do not match.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import os
import re
import secrets
import shutil
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from cryptography.x509.oid import NameOID

from concord.atomic_io import ensure_private_dir, write_atomic
from concord.errors import InputError, NotFoundError, SigningError
from concord.pki.credentials import Credential

if TYPE_CHECKING:
    from pyhanko.sign.signers import SimpleSigner

ROOT_KEY_BITS = 3072
USER_KEY_BITS = 3072
ROOT_VALIDITY = dt.timedelta(days=20 * 365)
USER_VALIDITY = dt.timedelta(days=5 * 365)
CLOCK_SKEW = dt.timedelta(minutes=5)
MAX_NAME_LENGTH = 64  # RFC 5280 upper bound for a certificate common name

_ROOT_DIR = "root"
_ROOT_CERT = "root-ca.pem"
_ROOT_KEY = "root-ca.key.pem"
_ROOT_SECRET = "root-ca.secret"
_USERS_DIR = "users"
_ADMIN_KEYS_DIR = "admins"
_ORGANISATION = "Concord installation"


@dataclass(frozen=True)
class RootCA:
    """The installation's root certificate (the private key stays on disk, encrypted)."""

    certificate: x509.Certificate
    cert_path: Path

    @property
    def pem(self) -> bytes:
        return self.certificate.public_bytes(serialization.Encoding.PEM)

    @property
    def der(self) -> bytes:
        return self.certificate.public_bytes(serialization.Encoding.DER)

    @property
    def fingerprint_sha256(self) -> str:
        return self.certificate.fingerprint(hashes.SHA256()).hex()

    @property
    def subject(self) -> str:
        return self.certificate.subject.rfc4514_string()


def pki_dir(home: Path) -> Path:
    return Path(home) / "pki"


def _root_dir(home: Path) -> Path:
    return pki_dir(home) / _ROOT_DIR


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


# --------------------------------------------------------------------------- root CA


def create_root_ca(home: Path, *, replace_orphan: bool = False) -> bytes:
    """Create the installation root CA; returns the secret that decrypts its key, which the
    caller seals into the first admin's credential (it is written nowhere else).

    `replace_orphan`: a root whose secret no one holds (its first enrolment failed half way)
    is moved aside to ``pki/root.orphaned-<time>`` and a new one made.
    """
    root_dir = _root_dir(home)
    if (root_dir / _ROOT_CERT).is_file():
        if not replace_orphan:
            raise SigningError("this installation already has a root certificate", subject=home)
        os.rename(root_dir, root_dir.with_name(f"root.orphaned-{_now():%Y%m%dT%H%M%S%f}"))
    return _create_root_ca(home)


def existing_root_ca(home: Path) -> RootCA | None:
    """The installation root CA if it exists; never creates one (for verification)."""
    if not (_root_dir(home) / _ROOT_CERT).is_file():
        return None
    return _load_root_ca(home)


def root_certificate(home: Path, *, encoding: str = "pem") -> bytes:
    """The installation root certificate, PEM (default) or DER."""
    root = existing_root_ca(home)
    if root is None:
        raise NotFoundError("this installation has no root certificate yet", subject=home)
    if encoding == "pem":
        return root.pem
    if encoding == "der":
        return root.der
    raise InputError(f"unknown certificate encoding {encoding!r} (use 'pem' or 'der')")


def _create_root_ca(home: Path) -> bytes:
    pki = ensure_private_dir(pki_dir(home))
    staging = Path(tempfile.mkdtemp(prefix=".root-", dir=pki))
    try:
        key = rsa.generate_private_key(public_exponent=65537, key_size=ROOT_KEY_BITS)
        install_id = secrets.token_hex(4)
        name = x509.Name(
            [
                x509.NameAttribute(NameOID.COMMON_NAME, f"Concord installation root {install_id}"),
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, _ORGANISATION),
            ]
        )
        now = _now()
        ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - CLOCK_SKEW)
            .not_valid_after(now + ROOT_VALIDITY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=False,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(ski, critical=False)
            .sign(key, hashes.SHA256())
        )
        secret = base64.urlsafe_b64encode(secrets.token_bytes(32))
        key_pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(secret),
        )
        write_atomic(staging / _ROOT_KEY, key_pem, private=True)
        write_atomic(staging / _ROOT_CERT, cert.public_bytes(serialization.Encoding.PEM))
        try:
            os.rename(staging, _root_dir(home))
        except OSError:
            if not (_root_dir(home) / _ROOT_CERT).is_file():
                raise
            raise SigningError(
                "another process created the installation root at the same time", subject=home
            ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return secret


def read_legacy_root_secret(home: Path) -> bytes | None:
    """An installation made before root secrets were sealed in admins' credentials kept it in
    a file beside the key: its content, or None. The caller seals it into an admin's
    credential, then calls `destroy_legacy_root_secret`."""
    path = _root_dir(home) / _ROOT_SECRET
    if not path.is_file():
        return None
    return path.read_bytes().strip()


def destroy_legacy_root_secret(home: Path) -> None:
    """Overwrite, sync and remove the legacy secret file (once an admin's credential holds it)."""
    path = _root_dir(home) / _ROOT_SECRET
    if not path.is_file():
        return
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.write(b"\0" * max(size, 64))
        handle.flush()
        os.fsync(handle.fileno())
    path.unlink()


def _load_root_ca(home: Path) -> RootCA:
    path = _root_dir(home) / _ROOT_CERT
    try:
        cert = x509.load_pem_x509_certificate(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise SigningError(
            f"cannot read the installation root certificate: {exc}", subject=path
        ) from exc
    return RootCA(certificate=cert, cert_path=path)


def admin_root_key_path(home: Path, name: str) -> Path:
    """Where admin `name`'s own copy of the root key lives."""
    return _root_dir(home) / _ADMIN_KEYS_DIR / f"{safe_name(check_user_name(name))}.key.pem"


def holds_own_root_copy(home: Path, name: str) -> bool:
    return admin_root_key_path(home, name).is_file()


def shared_root_key_present(home: Path) -> bool:
    return (_root_dir(home) / _ROOT_KEY).is_file()


def grant_root_key(
    home: Path, secret: bytes, granter: str | None, grantee: str, *, suffix: str = ""
) -> bytes:
    """Write `grantee` their own copy of the root key, encrypted under a new secret that is
    returned (for their credential); the key is opened with `granter`'s copy and `secret`
    (or the shared copy: the first admin, an installation made before own copies).
    `suffix`: write beside the copy's place (a renewal moves it in once recorded)."""
    key = _load_root_key(home, secret, owner=granter)
    new_secret = base64.urlsafe_b64encode(secrets.token_bytes(32))
    path = admin_root_key_path(home, grantee)
    path = path.with_name(path.name + suffix)
    ensure_private_dir(path.parent)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(new_secret),
    )
    write_atomic(path, pem, private=True)
    return new_secret


def _destroy(path: Path) -> None:
    if not path.is_file():
        return
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.write(b"\0" * max(size, 64))
        handle.flush()
        os.fsync(handle.fileno())
    path.unlink()


def withdraw_root_key(home: Path, name: str) -> None:
    """Destroy admin `name`'s copy of the root key, and the shared copy older installations
    kept (its secret is in every earlier admin's credential, `name`'s included)."""
    _destroy(admin_root_key_path(home, name))
    _destroy(_root_dir(home) / _ROOT_KEY)


def destroy_shared_root_key(home: Path) -> None:
    """Once the admins hold their own copies, the shared one goes."""
    _destroy(_root_dir(home) / _ROOT_KEY)


def _load_root_key(home: Path, secret: bytes, owner: str | None = None) -> rsa.RSAPrivateKey:
    root_dir = _root_dir(home)
    own = admin_root_key_path(home, owner) if owner is not None else None
    path = own if own is not None and own.is_file() else root_dir / _ROOT_KEY
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), secret)
    except (OSError, ValueError, TypeError) as exc:
        raise SigningError(
            f"cannot unlock the installation root key: {exc}", subject=root_dir
        ) from exc
    if not isinstance(key, rsa.RSAPrivateKey):
        raise SigningError("the installation root key is not an RSA key", subject=root_dir)
    return key


# --------------------------------------------------------------------------- users


def check_user_name(name: str) -> str:
    """A signer name as printed on the record: non-empty, one line, at most 64 characters."""
    cleaned = " ".join(name.split())
    if not cleaned:
        raise InputError("the user name must not be empty")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise InputError(f"the user name is longer than {MAX_NAME_LENGTH} characters")
    if any(unicodedata.category(c) == "Cc" for c in cleaned):
        raise InputError("the user name contains control characters")
    return cleaned


def safe_name(name: str) -> str:
    """File-system-safe, collision-resistant file stem for a user name."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")[:40] or "user"
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{slug}-{digest}"


def credential_path(home: Path, name: str) -> Path:
    """Where the user's sealed credential lives."""
    return pki_dir(home) / _USERS_DIR / f"{safe_name(check_user_name(name))}.key"


def certificate_path(home: Path, name: str) -> Path:
    return pki_dir(home) / _USERS_DIR / f"{safe_name(check_user_name(name))}.crt.pem"


def new_signing_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=USER_KEY_BITS)


def issue_user_certificate(
    home: Path,
    name: str,
    public_key: rsa.RSAPublicKey,
    root_secret: bytes,
    *,
    write: bool = True,
    root_owner: str | None = None,
) -> x509.Certificate:
    """Certify a clinician's RSA public key with the installation root, whose key
    `root_secret` (from an admin's unlocked credential) decrypts; writes the certificate
    unless `write` is False (the caller writes it once the renewal is recorded).

    The certificate has CN = `name`, key usage digitalSignature + nonRepudiation.
    """
    name = check_user_name(name)
    root = existing_root_ca(home)
    if root is None:
        raise SigningError("this installation has no root certificate", subject=pki_dir(home))
    cert = _user_certificate(home, root, name, public_key, root_secret, root_owner)
    if write:
        write_user_certificate(home, name, cert)
    return cert


def _user_certificate(
    home: Path,
    root: RootCA,
    name: str,
    public_key: rsa.RSAPublicKey | ed25519.Ed25519PublicKey,
    root_secret: bytes,
    root_owner: str | None,
) -> x509.Certificate:
    """A certificate for a user's key (signing or identity), issued by the installation root:
    CN = `name`, end entity, key usage digitalSignature + nonRepudiation, valid for
    USER_VALIDITY or until the root expires."""
    root_key = _load_root_key(home, root_secret, owner=root_owner)
    now = _now()
    root_ski = root.certificate.extensions.get_extension_for_class(x509.SubjectKeyIdentifier)
    return (
        x509.CertificateBuilder()
        .subject_name(
            x509.Name(
                [
                    x509.NameAttribute(NameOID.COMMON_NAME, name),
                    x509.NameAttribute(NameOID.ORGANIZATION_NAME, _ORGANISATION),
                ]
            )
        )
        .issuer_name(root.certificate.subject)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - CLOCK_SKEW)
        .not_valid_after(min(now + USER_VALIDITY, root.certificate.not_valid_after_utc))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=True,  # a.k.a. nonRepudiation
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(root_ski.value),
            critical=False,
        )
        .sign(root_key, hashes.SHA256())
    )


def write_user_certificate(home: Path, name: str, cert: x509.Certificate) -> None:
    """Put a clinician's certificate in place (public; the signer reads it to sign)."""
    path = certificate_path(home, name)
    ensure_private_dir(path.parent)
    write_atomic(path, cert.public_bytes(serialization.Encoding.PEM))


def identity_certificate_path(home: Path, name: str) -> Path:
    return pki_dir(home) / _USERS_DIR / f"{safe_name(check_user_name(name))}.identity.crt.pem"


def issue_identity_certificate(
    home: Path, name: str, public_key: str, root_secret: bytes, *, root_owner: str | None = None
) -> x509.Certificate:
    """Certify a user's Ed25519 identity key (base64, as registered) with the installation
    root, so that what the key signs away from this workstation (a label package) can be
    checked against the root certificate alone; writes the certificate. CN = `name`, key
    usage digitalSignature + nonRepudiation, like a clinician's signing certificate."""
    name = check_user_name(name)
    root = existing_root_ca(home)
    if root is None:
        raise SigningError("this installation has no root certificate", subject=pki_dir(home))
    key = ed25519.Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key))
    cert = _user_certificate(home, root, name, key, root_secret, root_owner)
    path = identity_certificate_path(home, name)
    ensure_private_dir(path.parent)
    write_atomic(path, cert.public_bytes(serialization.Encoding.PEM))
    return cert


def identity_certificate(home: Path, name: str) -> x509.Certificate | None:
    """The certificate of the user's identity key, or None if none was issued."""
    path = identity_certificate_path(home, name)
    if not path.is_file():
        return None
    try:
        return x509.load_pem_x509_certificate(path.read_bytes())
    except ValueError as exc:
        raise SigningError(f"cannot read the certificate of {name}: {exc}", subject=path) from exc


def user_certificate(home: Path, name: str) -> x509.Certificate | None:
    """The clinician's public certificate (no password needed), or None if there is none."""
    path = certificate_path(home, name)
    if not path.is_file():
        return None
    try:
        return x509.load_pem_x509_certificate(path.read_bytes())
    except ValueError as exc:
        raise SigningError(f"cannot read the certificate of {name}: {exc}", subject=path) from exc


def certificate_fingerprint(certificate: x509.Certificate) -> str:
    """SHA-256 fingerprint, lower-case hex (what the users table stores)."""
    return certificate.fingerprint(hashes.SHA256()).hex()


def signer_for(home: Path, credential: Credential) -> SimpleSigner:
    """A pyHanko signer from a clinician's unlocked credential and certificate."""
    from asn1crypto import keys as asn1_keys
    from asn1crypto import x509 as asn1_x509
    from pyhanko.sign.signers import SimpleSigner
    from pyhanko_certvalidator.registry import SimpleCertificateStore

    name = credential.user
    if credential.signing is None:
        raise SigningError(f"{name} has no signing key (only clinicians sign)")
    cert = user_certificate(home, name)
    if cert is None:
        raise NotFoundError(f"no certificate for {name}", subject=certificate_path(home, name))
    root = existing_root_ca(home)
    if root is None:
        raise SigningError("this installation has no root certificate", subject=pki_dir(home))
    try:
        cert.verify_directly_issued_by(root.certificate)
    except (ValueError, TypeError):
        raise SigningError(
            f"the certificate of {name} was not issued by this installation's root"
        ) from None
    if cert.public_key() != credential.signing.public_key():
        raise SigningError(f"the certificate of {name} does not match their signing key")
    if cert.not_valid_after_utc < _now():
        raise SigningError(
            f"the certificate of {name} expired on {cert.not_valid_after_utc:%Y-%m-%d}"
        )
    der = serialization.Encoding.DER
    key_info = asn1_keys.PrivateKeyInfo.load(
        credential.signing.private_bytes(
            der, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return SimpleSigner(
        signing_cert=asn1_x509.Certificate.load(cert.public_bytes(der)),
        signing_key=key_info,
        cert_registry=SimpleCertificateStore.from_certs([asn1_x509.Certificate.load(root.der)]),
    )
