"""Opening the database and running writes in one transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from concord import paths
from concord.errors import StoreError

BUSY_TIMEOUT_MS = 5000
"""How long a writer waits for another process's write lock before giving up."""


def open_database(path: Path | None = None) -> Database:
    """Open (creating if needed) the database at `path`, default `paths.database_path()`.

    Sets WAL journal, synchronous=FULL, foreign keys on and a busy timeout, then brings
    the schema up to date (see `concord.store.migrations`).
    """
    from concord.store.migrations import migrate

    target = Path(path) if path is not None else paths.database_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(str(target), timeout=BUSY_TIMEOUT_MS / 1000)
        db = Database(conn)
        db.enable_wal()
        for pragma in (
            "PRAGMA synchronous=FULL",
            "PRAGMA foreign_keys=ON",
            f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
        ):
            conn.execute(pragma)
        migrate(db)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot open database: {exc}", subject=target) from exc
    return db


@contextmanager
def write_transaction(db: Database) -> Iterator[Database]:
    """Everything inside is committed together or not at all.

    Outermost: BEGIN IMMEDIATE (takes the write lock at once, so the audit head read inside
    cannot be raced by another process). Nested: a savepoint via sqlite-utils' `atomic()`.
    """
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise
    try:
        db.conn.execute("COMMIT")
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise
