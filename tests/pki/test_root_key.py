"""The installation root key cannot be used from the files on the workstation alone, and a
certificate minted with it is not the one registered for the user."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from concord import paths
from concord.accounts.session import sign_in
from concord.pki.credentials import Credential, seal, unseal
from concord.pki.keys import admin_root_key_path, certificate_path, credential_path, pki_dir
from concord.store import Repository
from tests import factories as f
from tests.identity import ADMIN, ADMIN_PASSWORD, PASSWORD, admin_session, enrol
from tests.installation import make_run


def _every_file(home: Path) -> list[bytes]:
    return [p.read_bytes() for p in home.rglob("*") if p.is_file()]


def test_no_file_in_the_data_folder_decrypts_the_root_key(repo: Repository) -> None:
    enrol(repo, "Dr Smith", "clinician")
    home = paths.concord_home()
    assert not (pki_dir(home) / "root" / "root-ca.key.pem").exists()  # no shared copy
    root_key = admin_root_key_path(home, ADMIN).read_bytes()  # the admin's own copy
    assert b"ENCRYPTED PRIVATE KEY" in root_key
    assert not (pki_dir(home) / "root" / "root-ca.secret").exists()
    for content in _every_file(home):
        for candidate in {content, content.strip()}:
            with pytest.raises((ValueError, TypeError)):
                serialization.load_pem_private_key(root_key, candidate or b"x")
    # only the admin's password opens the secret, inside their credential
    admin = unseal(credential_path(home, ADMIN), ADMIN_PASSWORD, user=ADMIN)
    assert admin.root_passphrase is not None
    serialization.load_pem_private_key(root_key, admin.root_passphrase)


def _mint(home: Path, secret: bytes, name: str) -> tuple[rsa.RSAPrivateKey, x509.Certificate]:
    """What an attacker holding the root key does: a certificate for someone's name."""
    root_dir = pki_dir(home) / "root"
    root_key = serialization.load_pem_private_key(
        admin_root_key_path(home, ADMIN).read_bytes(), secret
    )
    root = x509.load_pem_x509_certificate((root_dir / "root-ca.pem").read_bytes())
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(root.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(True, True, False, False, False, False, False, False, False),
            critical=True,
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(
                root.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
            ),
            critical=False,
        )
        .sign(root_key, hashes.SHA256())  # type: ignore[arg-type]
    )
    return key, cert


def test_a_certificate_minted_with_the_root_key_is_not_the_registered_one(
    repo: Repository,
    capsys,
    monkeypatch,
    tmp_path: Path,
) -> None:
    """Even an attacker who got the root key (here: from the admin's own credential) cannot
    sign as Dr Smith: verify-pdf against the installation names the mismatch."""
    from concord.report.pdf import render_review_pdf
    from concord.report.sign import sign_pdf

    enrol(repo, "Dr Smith", "clinician")
    home = paths.concord_home()
    secret = admin_session(repo).credential.root_passphrase
    assert secret is not None
    key, cert = _mint(home, secret, "Dr Smith")
    # the attacker puts the minted certificate and a credential of their own in place
    real_cert = certificate_path(home, "Dr Smith").read_bytes()
    certificate_path(home, "Dr Smith").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    forged = unseal(credential_path(home, "Dr Smith"), PASSWORD, user="Dr Smith")
    forged = Credential("Dr Smith", forged.identity, key)
    rec = f.record()
    case = f.case(rec)
    unsigned, out = tmp_path / "u.pdf", tmp_path / "forged.pdf"
    render_review_pdf(
        case,
        rec,
        [],
        signer_name="Dr Smith",
        meaning="Reviewed — judgements accepted",
        signed_at=dt.datetime.now(dt.UTC),
        audit_head=repo.audit_head(),
        out=unsigned,
    )
    sign_pdf(unsigned, out, home=home, credential=forged, meaning="Reviewed — judgements accepted")
    certificate_path(home, "Dr Smith").write_bytes(real_cert)
    run = make_run(capsys, monkeypatch)
    checked = run("verify-pdf", str(out), "--json")
    data = checked.json()
    assert checked.code == 1 and data["trusted"] and data["intact"]  # chains to the root ...
    assert data["valid"] is False  # ... but it is not Dr Smith's registered certificate
    assert data["registered"]["fingerprint_matches"] is False
    assert "not the one registered for Dr Smith" in data["reason"]


def test_an_older_installation_with_a_secret_file_is_migrated_on_first_admin_sign_in(
    repo: Repository,
) -> None:
    """Installations made before this kept the root secret in root-ca.secret; the admin's
    first sign-in seals it into their credential and destroys the file."""
    enrol(repo, "Dr Smith", "clinician")
    home = paths.concord_home()
    admin = unseal(credential_path(home, ADMIN), ADMIN_PASSWORD, user=ADMIN)
    secret = admin.root_passphrase
    assert secret is not None
    legacy = pki_dir(home) / "root" / "root-ca.secret"
    legacy.write_bytes(secret + b"\n")
    seal(Credential(ADMIN, admin.identity), ADMIN_PASSWORD, credential_path(home, ADMIN))
    session = sign_in(repo, ADMIN, ADMIN_PASSWORD)
    assert session.credential.root_passphrase == secret and not legacy.exists()
    again = unseal(credential_path(home, ADMIN), ADMIN_PASSWORD, user=ADMIN)
    assert again.root_passphrase == secret
    enrol(repo, "Dr Jones", "clinician")  # the admin can still enrol clinicians
    assert json.loads(credential_path(home, "Dr Jones").read_text())["user"] == "Dr Jones"
