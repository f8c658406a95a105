"""How values are written to and read from SQLite text columns: UTC ISO times and JSON."""

from __future__ import annotations

import getpass
import hashlib
import json
from datetime import UTC, datetime
from typing import Any

from concord.errors import InputError


def utc_now() -> datetime:
    return datetime.now(UTC)


def utc_iso(moment: datetime, *, what: str = "time") -> str:
    """One fixed text form for every stored time, so text order is time order."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InputError(f"{what} must be timezone-aware (UTC)", subject=moment.isoformat())
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def to_json(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_sha256(value: Any) -> str:
    """SHA-256 of a value's JSON (sorted keys; anything else as its str). Decisions store
    these as the hashes of what was shown: the encoding must never change."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def from_json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def system_user() -> str:
    """The operating-system login, for actions that have no Concord user (imports, exports)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
