"""Revoking an admin ends that admin's access to the root key (issue 28, item 2): each admin
holds their own copy of the root key under their own secret; a revocation destroys the
revoked admin's copy (and the shared copy of an older installation), so their kept
credential file and password decrypt nothing left in the data folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from concord import paths
from concord.accounts.revocation import revoke_user
from concord.accounts.session import sign_in
from concord.errors import InputError, SigningError
from concord.pki.credentials import Credential, seal, unseal
from concord.pki.keys import (
    admin_root_key_path,
    credential_path,
    issue_user_certificate,
    new_signing_key,
    pki_dir,
)
from concord.store import Repository
from tests.identity import ADMIN, ADMIN_PASSWORD, admin_session, enrol

SECOND = "Dr Second"
SECOND_PASSWORD = "second-admin-password"


def _root_key_files(home: Path) -> list[Path]:
    return [p for p in (pki_dir(home) / "root").rglob("*.key.pem") if p.is_file()]


def _opens(home: Path, secret: bytes) -> list[Path]:
    """The root key files in the data folder that `secret` decrypts."""
    opened = []
    for path in _root_key_files(home):
        try:
            serialization.load_pem_private_key(path.read_bytes(), secret)
        except (ValueError, TypeError):
            continue
        opened.append(path)
    return opened


def test_a_revoked_admins_kept_credential_opens_no_root_key(repo: Repository) -> None:
    home = paths.concord_home()
    enrol(repo, SECOND, "admin", SECOND_PASSWORD)
    kept = credential_path(home, SECOND).read_bytes()  # the admin keeps a copy of their file
    secret = unseal(credential_path(home, SECOND), SECOND_PASSWORD, user=SECOND).root_passphrase
    assert secret is not None and _opens(home, secret) == [admin_root_key_path(home, SECOND)]
    revoke_user(repo, SECOND, "left the trust", admin=admin_session(repo))
    assert not admin_root_key_path(home, SECOND).exists()
    assert _opens(home, secret) == []  # nothing in the data folder opens with it any more
    credential_path(home, SECOND).write_bytes(kept)
    key = new_signing_key()
    with pytest.raises(SigningError, match="cannot unlock the installation root key"):
        issue_user_certificate(home, "Dr A", key.public_key(), secret, root_owner=SECOND)
    # the remaining admin still enrols
    enrol(repo, "Dr Jones", "clinician")


def test_an_older_installations_shared_copy_is_replaced_by_own_copies(repo: Repository) -> None:
    """Before own copies, every admin's secret opened root-ca.key.pem. Each admin's next
    sign-in gives them their own copy; revoking an admin destroys the shared one."""
    home = paths.concord_home()
    third, third_password = "Dr Third", "third-admin-password"
    enrol(repo, SECOND, "admin", SECOND_PASSWORD)
    enrol(repo, third, "admin", third_password)
    shared = pki_dir(home) / "root" / "root-ca.key.pem"
    # rebuild the old layout: one shared copy under one secret in every admin's credential
    first = unseal(credential_path(home, ADMIN), ADMIN_PASSWORD, user=ADMIN)
    assert first.root_passphrase is not None
    shared.write_bytes(admin_root_key_path(home, ADMIN).read_bytes())
    for name, password in ((ADMIN, ADMIN_PASSWORD), (SECOND, SECOND_PASSWORD),
                           (third, third_password)):  # fmt: skip
        old = unseal(credential_path(home, name), password, user=name)
        seal(
            Credential(name, old.identity, old.signing, first.root_passphrase),
            password,
            credential_path(home, name),
        )
        admin_root_key_path(home, name).unlink()
    admin = sign_in(repo, ADMIN, ADMIN_PASSWORD)  # this sign-in gave the first their copy
    assert admin_root_key_path(home, ADMIN).is_file()
    # revoking the second now would strand the third (who never signed in since): refused
    with pytest.raises(InputError, match="each signs in once first"):
        revoke_user(repo, SECOND, "left", admin=admin)
    sign_in(repo, third, third_password)
    revoke_user(repo, SECOND, "left", admin=admin)  # the second never needed to sign in
    assert not shared.exists() and not admin_root_key_path(home, SECOND).exists()
    assert _opens(home, first.root_passphrase) == []  # the old shared secret opens nothing
    enrol(repo, "Dr Jones", "clinician")
