"""A user's credential file: their private keys, sealed under their password.

``CONCORD_HOME/pki/users/<safe name>.key`` is JSON::

    {"format": "concord-credential/1", "user": NAME, "public_key": B64,
     "kdf": {"name": "scrypt", "n": 65536, "r": 8, "p": 1, "salt": B64},
     "nonce": B64, "ciphertext": B64}

The key that seals it is scrypt(password) (about 0.1-0.3 s and 64 MiB per try, so a
wrong-password check costs as much as a right one); the cipher is AES-256-GCM, whose tag
fails for a wrong password or any edited byte, and which authenticates the header too (the
user name and public key cannot be swapped). Inside:

* ``identity``: an Ed25519 key; every decision the user records is signed with it, and its
  public half is registered (and audited) when the user is enrolled;
* ``signing``: a clinician's RSA key, certified by the installation root (PAdES signatures);
* ``root_passphrase``: for an admin, the secret that decrypts the installation root key.
  Nothing else on the workstation holds it, so certificates can only be issued by an admin
  who types their password.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from concord.atomic_io import ensure_private_dir, write_atomic
from concord.errors import AuthError, NotFoundError, SigningError

FORMAT = "concord-credential/1"
SCRYPT_N = 2**16
"""scrypt cost; read when a credential is created (the file records the parameters used)."""
SCRYPT_R = 8
SCRYPT_P = 1
SCRYPT_MAXMEM = 256 * 1024 * 1024
SALT_BYTES = 16
NONCE_BYTES = 12


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def public_key_text(key: ed25519.Ed25519PublicKey) -> str:
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return _b64(raw)


def statement_bytes(statement: dict[str, Any]) -> bytes:
    """What an enrolment or a revocation signs: the statement as canonical JSON."""
    return json.dumps(statement, sort_keys=True, separators=(",", ":")).encode("utf-8")


def verify_signature(public_key: str, payload: bytes, signature: str) -> bool:
    """Whether `signature` (base64) is the holder of `public_key`'s signature of `payload`."""
    try:
        key = ed25519.Ed25519PublicKey.from_public_bytes(_unb64(public_key))
        key.verify(_unb64(signature), payload)
    except (ValueError, TypeError, Exception):
        return False
    return True


@dataclass(frozen=True)
class Credential:
    """A user's unlocked keys. Lives in memory for a session; never written in clear."""

    user: str
    identity: ed25519.Ed25519PrivateKey
    signing: rsa.RSAPrivateKey | None = None
    root_passphrase: bytes | None = None

    @property
    def public_key(self) -> str:
        return public_key_text(self.identity.public_key())

    def sign(self, payload: bytes) -> str:
        """Base64 Ed25519 signature of `payload`."""
        return _b64(self.identity.sign(payload))

    def with_root_passphrase(self, secret: bytes) -> Credential:
        return Credential(self.user, self.identity, self.signing, secret)


def new_credential(user: str, *, signing: rsa.RSAPrivateKey | None = None) -> Credential:
    return Credential(user=user, identity=ed25519.Ed25519PrivateKey.generate(), signing=signing)


def _kek(password: str, kdf: dict[str, Any]) -> bytes:
    if kdf.get("name") != "scrypt":
        raise SigningError(f"unknown key derivation {kdf.get('name')!r}")
    return hashlib.scrypt(
        password.encode("utf-8"),
        salt=_unb64(kdf["salt"]),
        n=int(kdf["n"]),
        r=int(kdf["r"]),
        p=int(kdf["p"]),
        maxmem=SCRYPT_MAXMEM,
        dklen=32,
    )


def _der(key: ed25519.Ed25519PrivateKey | rsa.RSAPrivateKey) -> str:
    return _b64(
        key.private_bytes(
            serialization.Encoding.DER,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


def _header(user: str, public_key: str, kdf: dict[str, Any]) -> dict[str, Any]:
    return {"format": FORMAT, "user": user, "public_key": public_key, "kdf": kdf}


def _aad(header: dict[str, Any]) -> bytes:
    return json.dumps(header, sort_keys=True, separators=(",", ":")).encode("utf-8")


def seal(credential: Credential, password: str, path: Path) -> None:
    """Write the credential to `path` (atomically, owner-only), sealed under `password`."""
    kdf = {
        "name": "scrypt",
        "n": SCRYPT_N,
        "r": SCRYPT_R,
        "p": SCRYPT_P,
        "salt": _b64(os.urandom(SALT_BYTES)),
    }
    header = _header(credential.user, credential.public_key, kdf)
    secret = {
        "identity": _der(credential.identity),
        "signing": _der(credential.signing) if credential.signing is not None else None,
        "root_passphrase": (
            _b64(credential.root_passphrase) if credential.root_passphrase is not None else None
        ),
    }
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(_kek(password, kdf)).encrypt(
        nonce, json.dumps(secret).encode("utf-8"), _aad(header)
    )
    document = {**header, "nonce": _b64(nonce), "ciphertext": _b64(sealed)}
    ensure_private_dir(path.parent)
    write_atomic(path, json.dumps(document, indent=1).encode("utf-8"), private=True)


def read_header(path: Path) -> dict[str, Any]:
    """The public part of a credential file (user, public key, KDF); no password needed."""
    try:
        document = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise NotFoundError("no credential file", subject=path) from None
    except (OSError, ValueError) as exc:
        raise SigningError(f"the credential file cannot be read ({exc})", subject=path) from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise SigningError("not a Concord credential file", subject=path)
    return document


def unseal(path: Path, password: str, *, user: str) -> Credential:
    """Unlock the credential at `path`. Wrong password (or an edited file) -> AuthError,
    after the full key-derivation cost."""
    document = read_header(path)
    try:
        header = _header(document["user"], document["public_key"], document["kdf"])
        kek = _kek(password, document["kdf"])
        plain = AESGCM(kek).decrypt(
            _unb64(document["nonce"]), _unb64(document["ciphertext"]), _aad(header)
        )
    except InvalidTag:
        raise AuthError(f"wrong password for {user}") from None
    except (KeyError, ValueError, TypeError) as exc:
        raise SigningError(f"the credential file is damaged ({exc})", subject=path) from exc
    if document["user"] != user:
        raise SigningError(f"the credential file belongs to {document['user']!r}", subject=path)
    secret = json.loads(plain)
    identity = serialization.load_der_private_key(_unb64(secret["identity"]), None)
    signing = (
        serialization.load_der_private_key(_unb64(secret["signing"]), None)
        if secret.get("signing")
        else None
    )
    if not isinstance(identity, ed25519.Ed25519PrivateKey) or not (
        signing is None or isinstance(signing, rsa.RSAPrivateKey)
    ):
        raise SigningError("the credential file holds keys of the wrong type", subject=path)
    root = secret.get("root_passphrase")
    credential = Credential(user, identity, signing, _unb64(root) if root else None)
    if credential.public_key != document["public_key"]:
        raise SigningError("the credential file's public key does not match", subject=path)
    return credential
