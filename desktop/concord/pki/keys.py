"""The installation's root CA and each clinician's signing key.

Layout under ``CONCORD_HOME/pki/`` (folder mode 0700, files 0600 where the OS supports it)::

    pki/root/root-ca.pem      the installation root certificate (public; give it to verifiers)
    pki/root/root-ca.key.pem  the root private key, PKCS#8, encrypted (AES-256-CBC, scrypt KDF)
    pki/root/root-ca.secret   the random passphrase that decrypts it, readable by the owner only
    pki/users/<safe name>.p12 a clinician's key + certificate, PKCS#12 under their own password
    pki/users/<safe name>.crt.pem  the same certificate in the clear (public; for fingerprints)

Why a key file and not a password for the root key: the root signs a clinician's certificate
when an administrator runs ``concord users add``, which asks only for the *new* user's
password, so the root key must be usable without a second secret typed by a person. Keeping
the passphrase in a separate owner-only file means a copy of the key file alone (a backup, a
misplaced export) is useless, and the key is never stored in clear. It does not protect the
root key against someone who runs as the same OS account; a hospital that needs that puts the
root key in an HSM or the OS key store and issues certificates from there.

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
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

from concord.errors import AuthError, InputError, NotFoundError, SigningError
from concord.report._files import ensure_private_dir, write_atomic

if TYPE_CHECKING:
    from pyhanko.sign.signers import SimpleSigner

ROOT_KEY_BITS = 3072
USER_KEY_BITS = 3072
ROOT_VALIDITY = dt.timedelta(days=20 * 365)
USER_VALIDITY = dt.timedelta(days=5 * 365)
CLOCK_SKEW = dt.timedelta(minutes=5)
MIN_PASSWORD_LENGTH = 8
MAX_NAME_LENGTH = 64  # RFC 5280 upper bound for a certificate common name
PKCS12_KDF_ROUNDS = 200_000

_ROOT_DIR = "root"
_ROOT_CERT = "root-ca.pem"
_ROOT_KEY = "root-ca.key.pem"
_ROOT_SECRET = "root-ca.secret"
_USERS_DIR = "users"
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


def ensure_root_ca(home: Path) -> RootCA:
    """Return the installation root CA, creating it on first use."""
    root_dir = _root_dir(home)
    if not (root_dir / _ROOT_CERT).is_file():
        _create_root_ca(home)
    return _load_root_ca(home)


def existing_root_ca(home: Path) -> RootCA | None:
    """The installation root CA if it exists; never creates one (for verification)."""
    if not (_root_dir(home) / _ROOT_CERT).is_file():
        return None
    return _load_root_ca(home)


def root_certificate(home: Path, *, encoding: str = "pem") -> bytes:
    """The installation root certificate, PEM (default) or DER; created on first use."""
    root = ensure_root_ca(home)
    if encoding == "pem":
        return root.pem
    if encoding == "der":
        return root.der
    raise InputError(f"unknown certificate encoding {encoding!r} (use 'pem' or 'der')")


def _create_root_ca(home: Path) -> None:
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
        write_atomic(staging / _ROOT_SECRET, secret + b"\n", private=True)
        write_atomic(staging / _ROOT_KEY, key_pem, private=True)
        write_atomic(staging / _ROOT_CERT, cert.public_bytes(serialization.Encoding.PEM))
        try:
            os.rename(staging, _root_dir(home))
        except OSError:
            if not (_root_dir(home) / _ROOT_CERT).is_file():
                raise
            # Another process created the root first: keep theirs.
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _load_root_ca(home: Path) -> RootCA:
    path = _root_dir(home) / _ROOT_CERT
    try:
        cert = x509.load_pem_x509_certificate(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise SigningError(
            f"cannot read the installation root certificate: {exc}", subject=path
        ) from exc
    return RootCA(certificate=cert, cert_path=path)


def _load_root_key(home: Path) -> rsa.RSAPrivateKey:
    root_dir = _root_dir(home)
    try:
        secret = (root_dir / _ROOT_SECRET).read_bytes().strip()
        key = serialization.load_pem_private_key((root_dir / _ROOT_KEY).read_bytes(), secret)
    except (OSError, ValueError, TypeError) as exc:
        raise SigningError(
            f"cannot unlock the installation root key: {exc}", subject=root_dir
        ) from exc
    if not isinstance(key, rsa.RSAPrivateKey):
        raise SigningError("the installation root key is not an RSA key", subject=root_dir)
    return key


# --------------------------------------------------------------------------- users


def check_password(password: str, *, name: str = "") -> None:
    """Password policy for signing keys; raises InputError with the rule that was broken."""
    who = f" for {name}" if name else ""
    if not password or not password.strip():
        raise InputError(f"the password{who} must not be empty")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InputError(
            f"the password{who} is too short: use at least {MIN_PASSWORD_LENGTH} characters"
        )
    if name and password.strip().casefold() == name.strip().casefold():
        raise InputError(f"the password{who} must not be the user name")


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


def user_key_path(home: Path, name: str) -> Path:
    return pki_dir(home) / _USERS_DIR / f"{safe_name(check_user_name(name))}.p12"


def issue_user_certificate(home: Path, name: str, password: str, *, replace: bool = False) -> Path:
    """Create a clinician's signing key and certificate, stored as a password-protected PKCS#12.

    The certificate has CN = `name`, key usage digitalSignature + nonRepudiation, and is
    issued by the installation root. Returns the path of the ``.p12`` file.
    """
    name = check_user_name(name)
    check_password(password, name=name)
    out = user_key_path(home, name)
    if out.exists() and not replace:
        raise InputError(f"a signing key already exists for {name}", subject=out)

    root = ensure_root_ca(home)
    root_key = _load_root_key(home)
    key = rsa.generate_private_key(public_exponent=65537, key_size=USER_KEY_BITS)
    now = _now()
    not_after = min(now + USER_VALIDITY, root.certificate.not_valid_after_utc)
    root_ski = root.certificate.extensions.get_extension_for_class(x509.SubjectKeyIdentifier)
    cert = (
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
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - CLOCK_SKEW)
        .not_valid_after(not_after)
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
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(root_ski.value),
            critical=False,
        )
        .sign(root_key, hashes.SHA256())
    )
    encryption = (
        serialization.PrivateFormat.PKCS12.encryption_builder()
        .kdf_rounds(PKCS12_KDF_ROUNDS)
        .key_cert_algorithm(pkcs12.PBES.PBESv2SHA256AndAES256CBC)
        .hmac_hash(hashes.SHA256())
        .build(password.encode("utf-8"))
    )
    data = pkcs12.serialize_key_and_certificates(
        name.encode("utf-8"), key, cert, [root.certificate], encryption
    )
    ensure_private_dir(out.parent)
    write_atomic(out.with_suffix(".crt.pem"), cert.public_bytes(serialization.Encoding.PEM))
    write_atomic(out, data, private=True)
    return out


def user_certificate(home: Path, name: str) -> x509.Certificate | None:
    """The clinician's public certificate (no password needed), or None if there is none."""
    path = user_key_path(home, name).with_suffix(".crt.pem")
    if not path.is_file():
        return None
    try:
        return x509.load_pem_x509_certificate(path.read_bytes())
    except ValueError as exc:
        raise SigningError(f"cannot read the certificate of {name}: {exc}", subject=path) from exc


def certificate_fingerprint(certificate: x509.Certificate) -> str:
    """SHA-256 fingerprint, lower-case hex (what the users table stores)."""
    return certificate.fingerprint(hashes.SHA256()).hex()


@dataclass(frozen=True)
class UserKey:
    """A clinician's unlocked key material (cryptography objects)."""

    name: str
    certificate: x509.Certificate
    private_key: rsa.RSAPrivateKey
    root: RootCA


def load_user_key(home: Path, name: str, password: str) -> UserKey:
    """Unlock a clinician's PKCS#12. Wrong password -> AuthError; nothing is written."""
    name = check_user_name(name)
    path = user_key_path(home, name)
    if not path.is_file():
        raise NotFoundError(f"no signing key for {name} (create it with 'concord users add')")
    try:
        key, cert, _extra = pkcs12.load_key_and_certificates(
            path.read_bytes(), password.encode("utf-8")
        )
    except ValueError:
        raise AuthError(f"wrong password for {name}") from None
    if key is None or cert is None or not isinstance(key, rsa.RSAPrivateKey):
        raise SigningError(f"the signing key file for {name} is incomplete", subject=path)
    root = existing_root_ca(home)
    if root is None:
        raise SigningError("this installation has no root certificate", subject=pki_dir(home))
    try:
        cert.verify_directly_issued_by(root.certificate)
    except (ValueError, TypeError):
        raise SigningError(
            f"the certificate of {name} was not issued by this installation's root"
        ) from None
    if cert.not_valid_after_utc < _now():
        expiry = f"{cert.not_valid_after_utc:%Y-%m-%d}"
        raise SigningError(f"the certificate of {name} expired on {expiry}")
    return UserKey(name=name, certificate=cert, private_key=key, root=root)


def load_signer(home: Path, name: str, password: str) -> SimpleSigner:
    """A pyHanko signer for the clinician. Wrong password -> AuthError; nothing is written."""
    from asn1crypto import keys as asn1_keys
    from asn1crypto import x509 as asn1_x509
    from pyhanko.sign.signers import SimpleSigner
    from pyhanko_certvalidator.registry import SimpleCertificateStore

    user = load_user_key(home, name, password)
    der = serialization.Encoding.DER
    signing_cert = asn1_x509.Certificate.load(user.certificate.public_bytes(der))
    root_cert = asn1_x509.Certificate.load(user.root.der)
    key_info = asn1_keys.PrivateKeyInfo.load(
        user.private_key.private_bytes(
            der, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return SimpleSigner(
        signing_cert=signing_cert,
        signing_key=key_info,
        cert_registry=SimpleCertificateStore.from_certs([root_cert]),
    )
