"""The audit trail read once, as facts keyed the way the cross-checks look them up."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from concord.store import Repository
from concord.store.anchor import ANCHOR_CONFIG_ACTION
from concord.store.audit import signed_bytes
from concord.store.clock import ClockStep, backward_steps
from concord.store.codec import from_json
from concord.store.repository import USER_REVOKE

SIGNED_DECISIONS_SCHEMA = 4
"""From this migration on, every decision is signed and its audit row holds its whole row."""
SIGNED_ROWS_SCHEMA = 5
"""From this migration on, audit rows are version 2: a signed-in actor signs each of theirs."""


@dataclass(frozen=True)
class SignedRow:
    """A version-2 audit row: who it names, and what they should have signed."""

    seq: int
    user: str
    action: str
    payload: bytes
    signature: str


@dataclass(frozen=True)
class CaseEvent:
    """One audit row that moves a case along its lifecycle, in chain order."""

    seq: int
    kind: str
    """save, status, sign or decide"""
    user: str
    old: Any
    new: Any
    signed: bool
    """The row carries a signature (whether it verifies is checked with the row's)."""


@dataclass
class Trail:
    hashes: dict[int, str] = field(default_factory=dict)
    last_seq: int = 0
    boundary: int | None = None
    """Seq of the migration after which decisions are signed (None: not applied yet)."""
    signed_rows_from: int | None = None
    """Seq of the migration after which rows are signed by their actors (None: not yet)."""
    decisions: dict[str, tuple[int, Any, Any]] = field(default_factory=dict)
    """decision_id -> (seq, old_value, new_value)"""
    enrolments: list[tuple[int, str, dict[str, Any], str]] = field(default_factory=list)
    """(seq, actor, statement, signature), in order"""
    revocations: list[tuple[int, str, str, dict[str, Any], str]] = field(default_factory=list)
    """(seq, actor, revoked name, statement, signature), in order"""
    signers: dict[int, str] = field(default_factory=dict)
    """seq of each audited signing -> who signed"""
    legacy_users: dict[str, int] = field(default_factory=dict)
    case_saves: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    case_events: dict[str, list[CaseEvent]] = field(default_factory=dict)
    """case_id -> its save, status, sign rows in chain order (decisions are added later)"""
    signs: list[tuple[int, str, Any]] = field(default_factory=list)
    """(seq, case_id, new_value)"""
    imports: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    """record_id -> (seq, content) of the row that imported it"""
    signed_rows: list[SignedRow] = field(default_factory=list)
    unsigned_rows: list[tuple[int, str, str]] = field(default_factory=list)
    """(seq, user, action) of version-2 rows without a signature"""
    anchor_configs: list[tuple[int, str, list[str]]] = field(default_factory=list)
    """(seq, user, files) each time the configured anchor files changed"""
    clock_steps: list[ClockStep] = field(default_factory=list)


def read_trail(repo: Repository) -> Trail:
    trail = Trail()
    rows = repo.db.query("SELECT * FROM audit ORDER BY seq")
    trail.clock_steps = backward_steps(_read_rows(trail, rows))
    return trail


def _read_rows(trail: Trail, rows: Any) -> Any:
    """Reads each row into `trail`, then yields it on (to the clock check): one pass."""
    for row in rows:
        _read_row(trail, row)
        yield row


def _read_row(trail: Trail, row: dict[str, Any]) -> None:
    seq = int(row["seq"])
    trail.hashes[seq] = str(row["hash"])
    trail.last_seq = max(trail.last_seq, seq)
    action, entity, user = str(row["action"]), str(row["entity"]), str(row["user"])
    kind, _, key = entity.partition(":")
    new = _json(row["new_value"])
    signature = str(row.get("signature") or "")
    if int(row.get("row_version") or 1) >= 2:
        payload = signed_bytes(row)
        if signature and payload is not None:
            trail.signed_rows.append(SignedRow(seq, user, action, payload, signature))
        else:
            trail.unsigned_rows.append((seq, user, action))
    signed = bool(signature)
    if action == "schema migrate" and entity == f"schema:{SIGNED_DECISIONS_SCHEMA}":
        trail.boundary = seq
    elif action == "schema migrate" and entity == f"schema:{SIGNED_ROWS_SCHEMA}":
        trail.signed_rows_from = seq
    elif action.startswith("decide") and kind == "decision":
        trail.decisions[key] = (seq, _json(row["old_value"]), new)
    elif action == "user enrol" and isinstance(new, dict):
        trail.enrolments.append(
            (seq, user, dict(new.get("statement") or {}), str(new.get("signature")))
        )
    elif action == USER_REVOKE and kind == "user" and isinstance(new, dict):
        trail.revocations.append(
            (seq, user, key, dict(new.get("statement") or {}), str(new.get("signature")))
        )
    elif action == "user add" and kind == "user":
        trail.legacy_users[key] = seq
    elif action == "import" and kind == "record" and isinstance(new, dict):
        trail.imports.setdefault(key, (seq, new))
    elif action == "case save" and kind == "case" and isinstance(new, dict):
        trail.case_saves[key] = (seq, new)
        _event(trail, key, CaseEvent(seq, "save", user, None, str(new.get("status")), signed))
    elif action == "case status" and kind == "case":
        old = _json(row["old_value"])
        _event(trail, key, CaseEvent(seq, "status", user, old, str(new), signed))
    elif action == "sign" and kind == "case":
        trail.signs.append((seq, key, new))
        trail.signers[seq] = user
        status = new.get("status", "signed") if isinstance(new, dict) else "signed"
        _event(trail, key, CaseEvent(seq, "sign", user, _json(row["old_value"]), status, signed))
    elif action == ANCHOR_CONFIG_ACTION and isinstance(new, dict):
        files = new.get("files")
        if isinstance(files, list):
            trail.anchor_configs.append((seq, user, [str(f) for f in files]))


def _event(trail: Trail, case_id: str, event: CaseEvent) -> None:
    trail.case_events.setdefault(case_id, []).append(event)


def _json(text: Any) -> Any:
    try:
        return from_json(text)
    except ValueError:
        return text
