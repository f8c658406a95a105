"""Annotators sign label packages with the identity key the installation root certified at
their enrolment; a password change (a new identity key) gets a new certificate with it."""

from __future__ import annotations

from concord.accounts.enrolment import change_password
from concord.accounts.session import sign_in
from concord.pki.credentials import public_key_text
from concord.pki.keys import existing_root_ca, identity_certificate
from tests.identity import admin_session, enrol


def test_enrolment_and_a_password_change_certify_the_identity_key(repo, concord_home) -> None:
    alice = enrol(repo, "alice", "annotator")
    root = existing_root_ca(concord_home)
    cert = identity_certificate(concord_home, "alice")
    assert root is not None and cert is not None
    cert.verify_directly_issued_by(root.certificate)  # raises if not the root's
    assert public_key_text(cert.public_key()) == alice.credential.public_key  # type: ignore[arg-type]
    change_password(repo, alice, "another-long-passphrase-42", admin=admin_session(repo))
    renewed = sign_in(repo, "alice", "another-long-passphrase-42")
    again = identity_certificate(concord_home, "alice")
    assert again is not None and renewed.credential.public_key != alice.credential.public_key
    assert public_key_text(again.public_key()) == renewed.credential.public_key  # type: ignore[arg-type]
    assert identity_certificate(concord_home, "Dr Admin") is None  # admins do not label
