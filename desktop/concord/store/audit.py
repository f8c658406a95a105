"""The hash-chained, append-only audit trail.

Each row's `hash` is SHA-256 over the canonical JSON of the columns its `row_version` lists
(`HASHED_COLUMNS`), `seq` and `prev_hash` included; `prev_hash` is the previous row's hash (64
zeros for the first row). Editing a row breaks its own hash, deleting one leaves a gap in
`seq` and a broken link, reordering rows breaks both. Triggers refuse UPDATE and DELETE from
the application.

Row versions (STYLE rule 14; never edit a released list, add a version):

* 1 -- the thirteen columns of migration 1; rows written before migration 5.
* 2 -- version 1 plus `row_version` and `signature`: the row's actor, when signed in, signs
  the canonical JSON of every other hashed column (`signed_bytes`), the chain position and the
  previous row's hash included, with their own key; `audit verify` checks it against the key
  they were enrolled with. A row of someone not signed in (a failed sign-in, the system)
  carries no signature.

`append_audit` must be called inside the transaction that makes the change it describes.
"""

from __future__ import annotations

import hashlib
import socket
import sqlite3
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field
from sqlite_utils import Database

from concord import __version__
from concord.errors import StoreError
from concord.store.codec import to_json, utc_iso, utc_now

GENESIS_HASH = "0" * 64
"""`prev_hash` of the first row."""

HASHED_COLUMNS_V1 = (
    "seq",
    "at",
    "user",
    "workstation",
    "action",
    "entity",
    "old_value",
    "new_value",
    "reason",
    "app_version",
    "model_sha256",
    "prompt_version",
    "prev_hash",
)
"""Version 1: every column of migration 1 but `hash`, in table order."""

HASHED_COLUMNS: dict[int, tuple[str, ...]] = {
    1: HASHED_COLUMNS_V1,
    2: (*HASHED_COLUMNS_V1, "row_version", "signature"),
}
"""row_version -> the columns that go into the row's hash."""

ROW_VERSION = 2
"""The version rows are written at once migration 5 has added its columns."""

SIGNED_COLUMNS: dict[int, tuple[str, ...]] = {
    2: tuple(c for c in HASHED_COLUMNS[2] if c != "signature"),
}
"""row_version -> the columns the actor signs (a version-1 row is never signed)."""


class AuditSigner(Protocol):
    """Someone signed in who signs the rows attributed to them (a `Session`)."""

    @property
    def name(self) -> str: ...

    def sign(self, payload: bytes) -> str: ...


_signers: dict[tuple[str, str], AuditSigner] = {}
"""(database file, user name) -> the signed-in user who signs that user's rows there."""


class AuditEntry(BaseModel):
    """One row of the audit trail, validated as it comes out of SQLite."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seq: int = Field(ge=1, description="Position in the chain, 1, 2, 3 ... without gaps")
    at: AwareDatetime = Field(description="When, UTC")
    user: str = Field(description="Who: a Concord user name, or the OS login for system actions")
    workstation: str = Field(description="Host name of the machine the action was taken on")
    action: str = Field(description="What was done, e.g. import, decide, sign, export")
    entity: str = Field(description="What it was done to, e.g. case:C-1, decision:D-7")
    old_value: str | None = Field(description="JSON of the value before, if any")
    new_value: str | None = Field(description="JSON of the value after, if any")
    reason: str = Field(description="Why, as given by the user")
    app_version: str = Field(description="Concord version that wrote the row")
    model_sha256: str = Field(description="Model involved, if any")
    prompt_version: str = Field(description="Prompt hash or version involved, if any")
    prev_hash: str = Field(description="Hash of the previous row (64 zeros for the first)")
    hash: str = Field(description="SHA-256 of the canonical JSON of the hashed columns")
    row_version: int = Field(default=1, description="Which columns are hashed and signed")
    signature: str = Field(
        default="", description="The actor's base64 Ed25519 signature of `signed_bytes` ('' none)"
    )


class AuditReport(BaseModel):
    """Result of recomputing the chain: the shape of `concord audit verify --json`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ok: bool = Field(description="Every hash and every link recomputes")
    rows: int = Field(description="Rows present in the audit table")
    first_bad_seq: int | None = Field(
        description="First seq whose row is altered, missing or out of place; None when ok"
    )


def _version(row: Mapping[str, Any]) -> int:
    return int(row.get("row_version") or 1)


def row_hash(row: Mapping[str, Any]) -> str:
    """SHA-256 over the canonical JSON of the row's version's columns, exactly as stored (an
    unknown version hashes to nothing a row can hold)."""
    columns = HASHED_COLUMNS.get(_version(row))
    if columns is None:
        return "unknown row version"
    payload = {column: row[column] for column in columns}
    return hashlib.sha256(to_json(payload).encode("utf-8")).hexdigest()


def signed_bytes(row: Mapping[str, Any]) -> bytes | None:
    """What the actor of a row signs; None for a version that is never signed."""
    columns = SIGNED_COLUMNS.get(_version(row))
    if columns is None:
        return None
    return to_json({column: row[column] for column in columns}).encode("utf-8")


def _database_file(conn: sqlite3.Connection) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return str(row[2]) if row and row[2] else ""


def sign_rows_as(conn: sqlite3.Connection, signer: AuditSigner) -> None:
    """From now on, in this process, rows attributed to `signer.name` in this database are
    signed with their key (called when they sign in, so every write of theirs, on whatever
    connection or thread, is signed without each caller passing the key)."""
    _signers[(_database_file(conn), signer.name)] = signer


def has_signed_rows(conn: sqlite3.Connection) -> bool:
    """Whether the audit table has migration 5's columns (rows are version 2)."""
    try:
        cursor = conn.execute("SELECT * FROM audit LIMIT 0")
    except sqlite3.OperationalError:
        return False  # no audit table yet: the first migration is being applied
    return "row_version" in {d[0] for d in cursor.description}


def forget_signer(conn: sqlite3.Connection, name: str) -> None:
    """`name`'s key changed (a renewal): the key this process held no longer signs for them."""
    _signers.pop((_database_file(conn), name), None)


def _row_version(conn: sqlite3.Connection) -> int:
    return ROW_VERSION if has_signed_rows(conn) else 1


def _next_position(conn: sqlite3.Connection) -> tuple[int, str]:
    """(seq for the next row, hash of the last row). Counts seqs ever issued, so a deleted
    tail row leaves a gap behind it that verification reports."""
    last = conn.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    issued = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'audit'").fetchone()
    last_seq, prev_hash = (last[0], last[1]) if last else (0, GENESIS_HASH)
    return max(last_seq, issued[0] if issued else 0) + 1, prev_hash


def append_audit(
    conn: sqlite3.Connection,
    *,
    user: str,
    action: str,
    entity: str,
    old_value: Any = None,
    new_value: Any = None,
    reason: str = "",
    model_sha256: str = "",
    prompt_version: str = "",
    signer: AuditSigner | None = None,
) -> AuditEntry:
    """Append one row to the chain. Refuses to run outside a transaction. The row is signed
    by `signer` (who must be `user`), else by `user` if they signed in to this database in
    this process (`sign_rows_as`), else not at all."""
    if not conn.in_transaction:
        raise StoreError("audit rows must be written inside the transaction they describe")
    if signer is not None and signer.name != user:
        raise StoreError(f"{signer.name} cannot sign an audit row attributed to {user}")
    seq, prev_hash = _next_position(conn)
    row: dict[str, Any] = {
        "seq": seq,
        "at": utc_iso(utc_now()),
        "user": user,
        "workstation": socket.gethostname(),
        "action": action,
        "entity": entity,
        "old_value": None if old_value is None else to_json(old_value),
        "new_value": None if new_value is None else to_json(new_value),
        "reason": reason,
        "app_version": __version__,
        "model_sha256": model_sha256,
        "prompt_version": prompt_version,
        "prev_hash": prev_hash,
    }
    version = _row_version(conn)
    if version >= 2:
        row["row_version"] = version
        signer = signer or _signers.get((_database_file(conn), user))
        payload = signed_bytes(row)
        row["signature"] = signer.sign(payload) if signer is not None and payload else ""
    row["hash"] = row_hash(row)
    columns = ", ".join(f'"{c}"' for c in row)
    marks = ", ".join("?" for _ in row)
    conn.execute(f"INSERT INTO audit ({columns}) VALUES ({marks})", tuple(row.values()))
    return AuditEntry.model_validate(row)


def audit_head(db: Database) -> tuple[int, str]:
    """(last seq, its hash); (0, GENESIS_HASH) for an empty trail."""
    row = db.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    return (row[0], row[1]) if row else (0, GENESIS_HASH)


def iter_audit(db: Database, *, since_seq: int = 0) -> Iterator[AuditEntry]:
    for row in db.query("SELECT * FROM audit WHERE seq > ? ORDER BY seq", [since_seq]):
        yield AuditEntry.model_validate(row)


def _first_break(rows: Iterator[dict[str, Any]], issued: int) -> tuple[int, int | None]:
    """(rows seen, first bad seq or None). Walks the chain in seq order."""
    expected_seq, prev_hash, count, bad = 1, GENESIS_HASH, 0, None
    for row in rows:
        count += 1
        if bad is not None:
            continue
        if row["seq"] != expected_seq:
            bad = expected_seq  # a row is missing here
        elif row["prev_hash"] != prev_hash or row_hash(row) != row["hash"]:
            bad = row["seq"]
        expected_seq, prev_hash = row["seq"] + 1, row["hash"]
    if bad is None and issued >= expected_seq:
        bad = expected_seq  # rows were deleted from the end
    return count, bad


def verify_chain(db: Database) -> AuditReport:
    """Recompute every hash and link, in one consistent read."""
    with db.atomic():
        issued_row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'audit'").fetchone()
        rows = db.query("SELECT * FROM audit ORDER BY seq")
        count, bad = _first_break(rows, issued_row[0] if issued_row else 0)
    return AuditReport(ok=bad is None, rows=count, first_bad_seq=bad)
