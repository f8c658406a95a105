"""Installation settings that only an admin sets: statements in the audit chain, signed by
the admin's key, read back only when the signature is an admin's in force.

A setting is not a file in the data folder or a variable in someone's environment, which any
user of the workstation can write: it is `{"key", "value", "set_by", "at"}` signed by an
enrolled, unrevoked admin and appended to the chain (action "setting", entity
"setting:KEY"). The latest validly signed statement of a key is in force; a forged or
unsigned one is ignored (and `concord audit verify` reports it). Each key has its own check
of the value, applied when it is set and again when it is read.

Keys:

* ``lock_minutes``: minutes without input before the desktop app locks (1-60, default 10);
  never off.
* ``llama_servers``: the llama.cpp servers Concord may connect to (see `concord.netguard`):
  the allow-list; CONCORD_LLAMA_SERVERS and servers.json can only narrow it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from concord.accounts.session import Session, admin_keys, require_role, revoked_accounts
from concord.domain import UserRole
from concord.errors import ConcordError, InputError
from concord.netguard import parse_server
from concord.pki.credentials import statement_bytes, verify_signature
from concord.store import Repository, write_transaction

SETTING = "setting"
LOCK_MINUTES = "lock_minutes"
LLAMA_SERVERS = "llama_servers"
DEFAULT_LOCK_MINUTES = 10.0
MIN_LOCK_MINUTES = 1.0
MAX_LOCK_MINUTES = 60.0


def _lock_minutes(value: Any) -> float:
    try:
        minutes = float(value)
    except (TypeError, ValueError):
        raise InputError(f"lock_minutes must be a number of minutes, not {value!r}") from None
    if not math.isfinite(minutes) or not MIN_LOCK_MINUTES <= minutes <= MAX_LOCK_MINUTES:
        raise InputError(
            f"lock_minutes must be between {MIN_LOCK_MINUTES:g} and {MAX_LOCK_MINUTES:g} "
            f"(the app always locks), not {value!r}"
        )
    return minutes


def _servers(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [u.strip() for u in value.split(",") if u.strip()]
    if not isinstance(value, list) or not all(isinstance(u, str) for u in value):
        raise InputError("llama_servers must be a list of http://HOST:PORT URLs")
    for url in value:
        parse_server(url)
    return list(dict.fromkeys(u.strip() for u in value))


CHECKS: dict[str, Callable[[Any], Any]] = {LOCK_MINUTES: _lock_minutes, LLAMA_SERVERS: _servers}


@dataclass(frozen=True)
class SettingInForce:
    key: str
    value: Any
    set_by: str
    at: str


def set_setting(repo: Repository, admin: Session, key: str, value: Any) -> SettingInForce:
    """Sign and append a setting as the signed-in admin (checked before anything is
    written)."""
    from concord.accounts.revocation import require_active

    require_role(admin, UserRole.ADMIN, doing="change installation settings")
    check = CHECKS.get(key)
    if check is None:
        raise InputError(f"unknown setting {key!r} (known: {', '.join(sorted(CHECKS))})")
    statement = {
        "key": key,
        "value": check(value),
        "set_by": admin.name,
        "at": datetime.now(UTC).isoformat(timespec="microseconds"),
    }
    signature = admin.sign(statement_bytes(statement))
    with write_transaction(repo.db):
        require_active(repo, admin)
        repo.audit_event(
            user=admin.name,
            action=SETTING,
            entity=f"{SETTING}:{key}",
            new_value={"statement": statement, "signature": signature},
        )
    return SettingInForce(key, statement["value"], admin.name, statement["at"])


def setting_in_force(repo: Repository, key: str) -> SettingInForce | None:
    """The latest statement of `key` signed by an admin who is enrolled and not revoked;
    None when there is none (forged and unsigned ones are skipped)."""
    keys = admin_keys(repo)
    revoked = revoked_accounts(repo)
    rows = repo.db.query(
        "SELECT new_value FROM audit WHERE action = ? AND entity = ? ORDER BY seq DESC",
        [SETTING, f"{SETTING}:{key}"],
    )
    from concord.store.codec import from_json

    for row in rows:
        try:
            data = from_json(row["new_value"])
        except ValueError:
            continue
        if not isinstance(data, dict) or not isinstance(data.get("statement"), dict):
            continue
        statement, signature = data["statement"], str(data.get("signature"))
        admin = str(statement.get("set_by"))
        if (
            admin not in keys
            or admin in revoked
            or statement.get("key") != key
            or not any(
                verify_signature(k, statement_bytes(statement), signature) for k in keys[admin]
            )
        ):
            continue
        try:
            value = CHECKS[key](statement.get("value"))
        except InputError:
            continue
        return SettingInForce(key, value, admin, str(statement.get("at")))
    return None


def lock_minutes(repo: Repository) -> float:
    """Minutes without input before the desktop app locks: the admin's setting, else 10."""
    found = setting_in_force(repo, LOCK_MINUTES)
    return float(found.value) if found is not None else DEFAULT_LOCK_MINUTES


def allowed_servers(repo: Repository) -> list[str]:
    """The llama.cpp servers an admin allowed (empty: none)."""
    found = setting_in_force(repo, LLAMA_SERVERS)
    return list(found.value) if found is not None else []


def installation_servers() -> list[str]:
    """The admin-signed server list of the installation in CONCORD_HOME, for the network
    guard at start-up; empty when there is no database yet (nothing is created here)."""
    from concord import paths

    if not paths.database_path().exists():
        return []
    try:
        with Repository.open() as repo:
            return allowed_servers(repo)
    except ConcordError:  # a damaged database (e.g. before a restore): no server at all
        return []
