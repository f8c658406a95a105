"""Writes in one transaction, and one clear line when SQLite refuses a write."""

from __future__ import annotations

import contextlib
import errno
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from concord.errors import StoreError
from concord.store.anchor import forget_audited_config, note_anchor_config, record_head

BUSY_TIMEOUT_MS = 5000
"""How long a writer waits for another process's write lock before giving up."""
NEARLY_FULL_BYTES = 1024 * 1024
"""Free space below which an I/O error while writing is reported as a full disk."""
SQLITE_FULL = 13


def _database_file(db: Database) -> str | None:
    try:
        row = db.conn.execute("PRAGMA database_list").fetchone()
    except sqlite3.Error:
        return None
    return row[2] if row and row[2] else None


def disk_is_full(folder: Path | str | None) -> bool:
    """Whether the file system holding `folder` has (next to) no free space left."""
    if folder is None:
        return False
    try:
        return shutil.disk_usage(folder).free < NEARLY_FULL_BYTES
    except OSError:
        return False


def is_disk_full_error(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


def write_failure(db: Database, exc: sqlite3.Error) -> StoreError:
    """One clear line for a write that SQLite refused (locked, disk full, I/O error...).

    A full disk often reaches SQLite as a plain I/O error (the write-ahead log or its index
    cannot grow): when the database's file system has no space left it is reported as full.
    """
    text = str(exc)
    database = _database_file(db)
    folder = Path(database).parent if database else None
    full = getattr(exc, "sqlite_errorcode", None) == SQLITE_FULL or "full" in text
    if not full and "I/O" in text:
        full = disk_is_full(folder)
    if "locked" in text or "busy" in text:
        problem = (
            f"the database is locked by another process (waited {BUSY_TIMEOUT_MS // 1000} s)"
            "; nothing was written, try again"
        )
    elif full:
        problem = "the disk is full; nothing was written"
    elif "I/O" in text:
        problem = "disk I/O error while writing; nothing was written"
    elif "readonly" in text or "read-only" in text:
        problem = "the database is read-only; nothing was written"
    else:
        problem = f"database write failed ({text}); nothing was written"
    return StoreError(problem, subject=database)


@contextmanager
def write_transaction(db: Database) -> Iterator[Database]:
    """Everything inside is committed together or not at all.

    Outermost: BEGIN IMMEDIATE (takes the write lock at once, so the audit head read inside
    cannot be raced by another process). Nested: a savepoint via sqlite-utils' `atomic()`.
    SQLite refusing the write (locked, disk full, I/O error) raises StoreError after the
    rollback; constraint violations stay sqlite3.IntegrityError for the caller to explain.
    """
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    try:
        db.conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        raise write_failure(db, exc) from exc
    try:
        note_anchor_config(db)
        yield db
        db.conn.execute("COMMIT")
    except BaseException as exc:
        forget_audited_config(db)
        if db.conn.in_transaction:
            # SQLite rolls back by itself when it cannot; the first error is the one to report
            with contextlib.suppress(sqlite3.Error):
                db.conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.IntegrityError):
            raise write_failure(db, exc) from exc
        raise
    record_head(db)  # committed: anchor the new head outside the database
