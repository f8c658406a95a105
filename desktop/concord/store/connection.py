"""Opening the database: pragmas, then the schema brought up to date."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database

from concord import paths
from concord.errors import StoreError
from concord.store import transaction
from concord.store.migrations import migrate


def open_database(path: Path | None = None) -> Database:
    """Open (creating if needed) the database at `path`, default `paths.database_path()`.

    Sets WAL journal, synchronous=FULL, foreign keys on and a busy timeout, then brings
    the schema up to date (see `concord.store.migrations`).
    """
    target = Path(path) if path is not None else paths.database_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(str(target), timeout=transaction.BUSY_TIMEOUT_MS / 1000)
        db = Database(conn)
        db.enable_wal()
        for pragma in (
            "PRAGMA synchronous=FULL",
            "PRAGMA foreign_keys=ON",
            f"PRAGMA busy_timeout={transaction.BUSY_TIMEOUT_MS}",
        ):
            conn.execute(pragma)
        migrate(db)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot open database: {exc}", subject=target) from exc
    return db
