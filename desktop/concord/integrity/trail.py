"""The audit trail read once, as facts keyed the way the cross-checks look them up."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from concord.store import Repository
from concord.store.codec import from_json
from concord.store.repository import USER_REVOKE

SIGNED_DECISIONS_SCHEMA = 4
"""From this migration on, every decision is signed and its audit row holds its whole row."""


@dataclass
class Trail:
    hashes: dict[int, str] = field(default_factory=dict)
    last_seq: int = 0
    boundary: int | None = None
    """Seq of the migration after which decisions are signed (None: not applied yet)."""
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
    case_status: dict[str, tuple[int, str]] = field(default_factory=dict)
    """case_id -> (seq, status in force after the last row that set it)"""
    signs: list[tuple[int, str, Any]] = field(default_factory=list)
    """(seq, case_id, new_value)"""


def read_trail(repo: Repository) -> Trail:
    trail = Trail()
    for row in repo.db.query("SELECT * FROM audit ORDER BY seq"):
        seq = int(row["seq"])
        trail.hashes[seq] = str(row["hash"])
        trail.last_seq = max(trail.last_seq, seq)
        action, entity = str(row["action"]), str(row["entity"])
        kind, _, key = entity.partition(":")
        new = _json(row["new_value"])
        if action == "schema migrate" and entity == f"schema:{SIGNED_DECISIONS_SCHEMA}":
            trail.boundary = seq
        elif action.startswith("decide") and kind == "decision":
            trail.decisions[key] = (seq, _json(row["old_value"]), new)
        elif action == "user enrol" and isinstance(new, dict):
            trail.enrolments.append(
                (seq, str(row["user"]), dict(new.get("statement") or {}), str(new.get("signature")))
            )
        elif action == USER_REVOKE and kind == "user" and isinstance(new, dict):
            trail.revocations.append(
                (
                    seq,
                    str(row["user"]),
                    key,
                    dict(new.get("statement") or {}),
                    str(new.get("signature")),
                )
            )
        elif action == "user add" and kind == "user":
            trail.legacy_users[key] = seq
        elif action == "case save" and kind == "case" and isinstance(new, dict):
            trail.case_saves[key] = (seq, new)
            trail.case_status[key] = (seq, str(new.get("status")))
        elif action == "case status" and kind == "case":
            trail.case_status[key] = (seq, str(new))
        elif action == "sign" and kind == "case":
            trail.signs.append((seq, key, new))
            trail.signers[seq] = str(row["user"])
            status = new.get("status", "signed") if isinstance(new, dict) else "signed"
            trail.case_status[key] = (seq, str(status))
    return trail


def _json(text: Any) -> Any:
    try:
        return from_json(text)
    except ValueError:
        return text
