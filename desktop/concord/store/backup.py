"""Backup and restore of the database through SQLite's online backup API.

A live database (WAL mode, possibly written by another process) is never copied as a file:
`backup_database` reads one consistent snapshot with `Connection.backup` into a temporary
file beside the target, switches the copy to a self-contained rollback journal, checks it,
then moves it into place. `restore_database` first takes a snapshot of the candidate the same
way and checks that snapshot (integrity, schema version, audit chain, every decision audited);
only then does it save the current database beside itself and write the snapshot into the
live database through the backup API, in one step that other connections see as one write.
A corrupt or tampered backup is refused with one line and the live database is left as it was.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlite_utils import Database

from concord.errors import InputError, StoreError
from concord.store.audit import GENESIS_HASH, append_audit, verify_chain
from concord.store.codec import system_user
from concord.store.connection import open_database
from concord.store.migrations import MIGRATIONS
from concord.store.transaction import BUSY_TIMEOUT_MS, write_transaction

SQLITE_HEADER = b"SQLite format 3\x00"
SAFETY_COPY_SUFFIX = ".before-restore"
"""A restore keeps the database it replaces as `<db>.before-restore-<UTC time>.sqlite`."""

_UNAUDITED_DECISIONS = """
SELECT count(*) FROM decisions d
 WHERE NOT EXISTS (SELECT 1 FROM audit a WHERE a.entity = 'decision:' || d.decision_id)
"""


@dataclass(frozen=True)
class DatabaseCheck:
    """What was found in a database file (a backup, or the live database after a restore)."""

    path: str
    schema_version: int
    audit_rows: int
    audit_head: tuple[int, str]
    decisions: int
    sha256: str


# -- connections -------------------------------------------------------------------------


def _connect(path: Path, *, read_only: bool) -> sqlite3.Connection:
    if read_only:
        uri = path.resolve().as_uri() + "?mode=ro"
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
    else:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    return conn


@contextlib.contextmanager
def _closing(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    try:
        yield conn
    finally:
        conn.close()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _require_sqlite_file(path: Path) -> None:
    if not path.exists():
        raise InputError("file not found", subject=path)
    if not path.is_file():
        raise InputError("not a regular file", subject=path)
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror or exc})", subject=path) from exc
    if header != SQLITE_HEADER:
        raise InputError("not a Concord database (no SQLite header)", subject=path)


def _snapshot(source: sqlite3.Connection, target: Path) -> None:
    """One consistent copy of `source` into a new file `target`, as a single-file database."""
    with _closing(sqlite3.connect(str(target))) as dest:
        source.backup(dest)
        dest.execute("PRAGMA journal_mode=DELETE")
        dest.commit()


def _temp_beside(path: Path, label: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.{label}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.unlink(name)  # sqlite creates it; an empty file would also do, but this is clearer
    return Path(name)


def _remove(path: Path) -> None:
    for extra in ("", "-journal", "-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)


# -- checking ------------------------------------------------------------------------------


def check_database(path: Path, *, subject: Path | None = None) -> DatabaseCheck:
    """Open `path` read-only and check everything a restore relies on.

    Raises StoreError (naming `subject`, default `path`) when the file is not a SQLite
    database, fails `PRAGMA integrity_check`, has a schema this Concord does not know (newer,
    or migrations that differ from the code), an audit chain that does not recompute, or a
    decision without its audit row.
    """
    shown = subject or path
    _require_sqlite_file(path)
    try:
        with _closing(_connect(path, read_only=True)) as conn:
            return _check_connection(conn, path, shown)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"not a usable database ({exc})", subject=shown) from exc


def _check_connection(conn: sqlite3.Connection, path: Path, shown: Path) -> DatabaseCheck:
    problems = [row[0] for row in conn.execute("PRAGMA integrity_check").fetchall()]
    if problems != ["ok"]:
        raise StoreError(f"integrity check failed: {problems[0]}", subject=shown)
    db = Database(conn)
    tables = set(db.table_names())
    if not {"schema_version", "audit", "decisions"} <= tables:
        raise StoreError("not a Concord database (tables missing)", subject=shown)
    version = _check_schema(conn, shown)
    report = verify_chain(db)
    if not report.ok:
        raise StoreError(
            f"audit chain broken at seq {report.first_bad_seq}: the file was altered",
            subject=shown,
        )
    unaudited = conn.execute(_UNAUDITED_DECISIONS).fetchone()[0]
    if unaudited:
        raise StoreError(
            f"{unaudited} decision(s) have no audit row: the file was altered", subject=shown
        )
    head = conn.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    return DatabaseCheck(
        path=str(path),
        schema_version=version,
        audit_rows=report.rows,
        audit_head=(head[0], head[1]) if head else (0, GENESIS_HASH),
        decisions=conn.execute("SELECT count(*) FROM decisions").fetchone()[0],
        sha256=_sha256(path),
    )


def _check_schema(conn: sqlite3.Connection, shown: Path) -> int:
    known = {m.version: m for m in MIGRATIONS}
    version = 0
    for applied, sha in conn.execute("SELECT version, sha256 FROM schema_version ORDER BY version"):
        migration = known.get(applied)
        if migration is None:
            raise StoreError(
                f"schema version {applied} is newer than this Concord ({len(MIGRATIONS)})",
                subject=shown,
            )
        if migration.sha256 != sha:
            raise StoreError(
                f"schema migration {applied} differs from this Concord's", subject=shown
            )
        version = applied
    if version == 0:
        raise StoreError("not a Concord database (no schema version)", subject=shown)
    return version


# -- backup --------------------------------------------------------------------------------


def backup_database(live: Path, target: Path, *, overwrite: bool = False) -> DatabaseCheck:
    """Write a consistent, checked, single-file copy of the live database to `target`."""
    live, target = Path(live), Path(target)
    _require_sqlite_file(live)
    if target.exists() and target.resolve() == live.resolve():
        raise InputError("the backup file cannot be the live database itself", subject=target)
    if target.exists() and not overwrite:
        raise InputError("file already exists (use --force to overwrite it)", subject=target)
    if target.exists() and not target.is_file():
        raise InputError("not a regular file", subject=target)
    temp = _temp_beside(target, "backup")
    try:
        with _closing(_connect(live, read_only=False)) as source:  # reads only; WAL-safe
            _snapshot(source, temp)
        check = check_database(temp, subject=live)
        with temp.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"backup failed ({exc})", subject=live) from exc
    except OSError as exc:
        raise StoreError(f"backup failed ({exc.strerror or exc})", subject=target) from exc
    finally:
        _remove(temp)
    return DatabaseCheck(**{**check.__dict__, "path": str(target)})


# -- restore -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RestoreResult:
    restored: DatabaseCheck
    safety_copy: str | None
    """Where the replaced database was saved (None when there was none)."""


def _live_head_in_backup(live: Path, backup: Path) -> bool | None:
    """True when the backup's chain contains the live head (nothing would be lost), False when
    it does not, None when the live database cannot be read."""
    try:
        with _closing(_connect(live, read_only=False)) as conn:  # reads only; WAL-safe
            row = conn.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    except sqlite3.DatabaseError:
        return None
    if row is None:
        return True
    with _closing(_connect(backup, read_only=True)) as conn:
        found = conn.execute("SELECT 1 FROM audit WHERE seq = ? AND hash = ?", row).fetchone()
    return found is not None


def restore_database(
    candidate: Path, live: Path, *, force: bool = False, user: str | None = None
) -> RestoreResult:
    """Replace the live database with the backup `candidate`, after checking it.

    Without `force`, refuses when the live database holds audit rows the backup lacks
    (restoring would lose them) or cannot be read. The replaced database is saved beside
    the live one first. The restore itself is appended to the restored audit trail.
    """
    candidate, live = Path(candidate), Path(live)
    _require_sqlite_file(candidate)
    if live.exists() and candidate.resolve() == live.resolve():
        raise InputError("cannot restore the live database onto itself", subject=candidate)
    snapshot = _temp_beside(live, "restore")
    safety: Path | None = None
    try:
        try:
            with _closing(_connect(candidate, read_only=True)) as source:
                _snapshot(source, snapshot)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # damaged schema text too
            raise StoreError(f"not a usable database ({exc})", subject=candidate) from exc
        checked = check_database(snapshot, subject=candidate)
        if live.exists():
            safety = _guard_live(live, snapshot, force)
        _write_into_live(snapshot, live)
        restored = _record_restore(live, candidate, checked, user)
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"restore failed ({exc}); the live database is unchanged", subject=live
        ) from exc
    except OSError as exc:
        raise StoreError(f"restore failed ({exc.strerror or exc})", subject=live) from exc
    finally:
        _remove(snapshot)
    return RestoreResult(restored=restored, safety_copy=str(safety) if safety else None)


def _guard_live(live: Path, snapshot: Path, force: bool) -> Path | None:
    """Refuse a lossy restore unless forced; save the live database beside itself."""
    contained = _live_head_in_backup(live, snapshot)
    if contained is None and not force:
        raise StoreError(
            "the current database cannot be read; use --force to replace it", subject=live
        )
    if contained is False and not force:
        raise StoreError(
            "the current database has audit rows the backup lacks (restoring would lose "
            "them); use --force to replace it anyway",
            subject=live,
        )
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    safety = live.with_name(f"{live.name}{SAFETY_COPY_SUFFIX}-{stamp}.sqlite")
    if contained is None:  # unreadable: keep its bytes as they are, then start afresh
        for extra in ("", "-wal", "-shm", "-journal"):
            part = Path(f"{live}{extra}")
            if part.exists():
                os.replace(part, Path(f"{safety}{extra}"))
        return safety
    with _closing(_connect(live, read_only=False)) as source:  # reads only; WAL-safe
        _snapshot(source, safety)
    return safety


def _write_into_live(snapshot: Path, live: Path) -> None:
    """Backup API from the checked snapshot into the live database: one step, one lock."""
    with (
        _closing(_connect(snapshot, read_only=True)) as source,
        _closing(_connect(live, read_only=False)) as dest,
    ):
        source.backup(dest)


def _record_restore(
    live: Path, candidate: Path, checked: DatabaseCheck, user: str | None
) -> DatabaseCheck:
    db = open_database(live)  # WAL, pragmas, and any newer migrations
    try:
        with write_transaction(db):
            append_audit(
                db.conn,
                user=user or system_user(),
                action="restore",
                entity=f"file:{candidate}",
                new_value={
                    "sha256": checked.sha256,
                    "audit_head_seq": checked.audit_head[0],
                    "audit_head_hash": checked.audit_head[1],
                    "decisions": checked.decisions,
                },
            )
        db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    after = check_database(live)
    return after
