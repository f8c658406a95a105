"""Installation root CA and clinicians' signing keys."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.serialization import pkcs12
from report_fixtures import PASSWORD, SIGNER

from concord.errors import AuthError, InputError, NotFoundError
from concord.pki.keys import (
    certificate_fingerprint,
    ensure_root_ca,
    existing_root_ca,
    issue_user_certificate,
    load_signer,
    root_certificate,
    user_certificate,
    user_key_path,
)


def test_root_ca_is_created_once_and_reused(tmp_path: Path) -> None:
    assert existing_root_ca(tmp_path) is None
    first = ensure_root_ca(tmp_path)
    second = ensure_root_ca(tmp_path)
    assert first.fingerprint_sha256 == second.fingerprint_sha256
    assert root_certificate(tmp_path) == first.pem
    assert root_certificate(tmp_path, encoding="der") == first.der
    constraints = first.certificate.extensions.get_extension_for_class(x509.BasicConstraints)
    assert constraints.value.ca is True


def test_root_key_is_encrypted_at_rest_and_owner_only(tmp_path: Path) -> None:
    ensure_root_ca(tmp_path)
    root_dir = tmp_path / "pki" / "root"
    key_pem = (root_dir / "root-ca.key.pem").read_bytes()
    assert b"ENCRYPTED PRIVATE KEY" in key_pem
    if sys.platform != "win32":
        for name in ("root-ca.key.pem", "root-ca.secret"):
            assert os.stat(root_dir / name).st_mode & 0o077 == 0, name
        assert os.stat(tmp_path / "pki").st_mode & 0o077 == 0


def test_user_certificate_has_name_usage_and_issuer(pki_home: Path) -> None:
    path = user_key_path(pki_home, SIGNER)
    assert path.is_file() and path.parent == pki_home / "pki" / "users"
    key, cert, extra = pkcs12.load_key_and_certificates(path.read_bytes(), PASSWORD.encode())
    assert key is not None and cert is not None
    cn = cert.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)[0].value
    assert cn == SIGNER
    usage = cert.extensions.get_extension_for_class(x509.KeyUsage).value
    assert usage.digital_signature and usage.content_commitment
    assert not usage.key_cert_sign
    root = ensure_root_ca(pki_home)
    cert.verify_directly_issued_by(root.certificate)  # raises if not issued by the root
    public = user_certificate(pki_home, SIGNER)
    assert public == cert
    assert certificate_fingerprint(public) == cert.fingerprint(hashes.SHA256()).hex()
    if sys.platform != "win32":
        assert os.stat(path).st_mode & 0o077 == 0


def test_load_signer_gives_a_pyhanko_signer(pki_home: Path) -> None:
    signer = load_signer(pki_home, SIGNER, PASSWORD)
    assert signer.signing_cert.subject.native["common_name"] == SIGNER


def test_wrong_password_is_auth_error_and_writes_nothing(pki_home: Path) -> None:
    before = sorted((p, p.stat().st_mtime_ns) for p in pki_home.rglob("*"))
    with pytest.raises(AuthError, match=f"wrong password for {SIGNER}"):
        load_signer(pki_home, SIGNER, "not the password")
    after = sorted((p, p.stat().st_mtime_ns) for p in pki_home.rglob("*"))
    assert before == after


def test_unknown_user_is_not_found(pki_home: Path) -> None:
    with pytest.raises(NotFoundError, match="no signing key for Dr Nobody"):
        load_signer(pki_home, "Dr Nobody", PASSWORD)


@pytest.mark.parametrize(
    ("password", "message"),
    [("", "must not be empty"), ("   ", "must not be empty"), ("short", "too short")],
)
def test_password_policy(tmp_path: Path, password: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        issue_user_certificate(tmp_path, "Dr Short", password)
    assert not (tmp_path / "pki" / "users").exists()


def test_existing_key_is_not_overwritten(pki_home: Path) -> None:
    path = user_key_path(pki_home, SIGNER)
    data = path.read_bytes()
    with pytest.raises(InputError, match="already exists"):
        issue_user_certificate(pki_home, SIGNER, "another long password")
    assert path.read_bytes() == data


def test_similar_names_get_different_key_files(tmp_path: Path) -> None:
    assert user_key_path(tmp_path, "Dr A. Smith") != user_key_path(tmp_path, "Dr A Smith")
