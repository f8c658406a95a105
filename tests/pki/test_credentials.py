"""Credential files: a wrong password costs what a right one does (>= ~100 ms of scrypt), any
edited byte is refused, and the file names its owner."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from concord.errors import AuthError, SigningError
from concord.pki import credentials
from concord.pki.credentials import new_credential, seal, unseal, verify_signature

PASSWORD = "theatre-list-monday"


def test_a_wrong_password_check_costs_at_least_100_ms_at_the_production_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(credentials, "SCRYPT_N", 2**16)  # what an installation uses
    path = tmp_path / "u.key"
    seal(new_credential("Dr Smith"), PASSWORD, path)
    assert json.loads(path.read_text())["kdf"]["n"] == 2**16
    costs = []
    for _ in range(3):
        start = time.perf_counter()
        with pytest.raises(AuthError, match="wrong password for Dr Smith"):
            unseal(path, "not-the-password", user="Dr Smith")
        costs.append(time.perf_counter() - start)
    assert min(costs) >= 0.1, costs


def test_round_trip_keeps_keys_and_signatures_verify(tmp_path: Path) -> None:
    made = new_credential("Dr Smith").with_root_passphrase(b"root secret")
    seal(made, PASSWORD, tmp_path / "u.key")
    back = unseal(tmp_path / "u.key", PASSWORD, user="Dr Smith")
    assert back.public_key == made.public_key and back.root_passphrase == b"root secret"
    signature = back.sign(b"payload")
    assert verify_signature(made.public_key, b"payload", signature)
    assert not verify_signature(made.public_key, b"payload!", signature)
    assert not verify_signature(made.public_key, b"payload", "not base64 !")
    if sys.platform != "win32":
        assert os.stat(tmp_path / "u.key").st_mode & 0o077 == 0


@pytest.mark.parametrize("field", ["user", "public_key", "ciphertext", "nonce"])
def test_an_edited_credential_file_is_refused(tmp_path: Path, field: str) -> None:
    path = tmp_path / "u.key"
    seal(new_credential("Dr Smith"), PASSWORD, path)
    document = json.loads(path.read_text())
    other = new_credential("Dr Jones")
    document[field] = {
        "user": "Dr Jones",
        "public_key": other.public_key,
        "ciphertext": document["ciphertext"][:-8] + "AAAAAAA=",
        "nonce": "AAAAAAAAAAAAAAAA",
    }[field]
    path.write_text(json.dumps(document))
    with pytest.raises((AuthError, SigningError)):
        unseal(path, PASSWORD, user="Dr Smith")


def test_the_plaintext_keys_are_nowhere_in_the_file(tmp_path: Path) -> None:
    made = new_credential("Dr Smith").with_root_passphrase(b"ROOT-SECRET-MARKER")
    seal(made, PASSWORD, tmp_path / "u.key")
    raw = (tmp_path / "u.key").read_bytes()
    assert b"ROOT-SECRET-MARKER" not in raw and b"PRIVATE KEY" not in raw
