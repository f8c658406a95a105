"""Schema migrations: an ordered list of SQL scripts, applied once each at open.

How to add one (e.g. a generic `items` table for QA items or eval answers):

1. Write the SQL in a new module, e.g. `concord/store/schema_v2.py` with `SQL = \"\"\"...\"\"\"`
   (tables STRICT; judgement history belongs in `decisions`, whose `case_id` may name any
   subject; add `CREATE TRIGGER ... RAISE(ABORT, 'append-only')` for append-only tables).
2. Append `Migration(2, "items", schema_v2.SQL)` to `MIGRATIONS` below. Versions are
   1, 2, 3 ... without gaps; never edit or reorder a migration once it has been released:
   the runner stores each script's SHA-256 and refuses a database whose applied scripts
   no longer match the code.
3. Add a test in `tests/store/test_migrations.py` if the migration moves data.

Each migration runs in its own transaction together with its `schema_version` row and an
audit row, so a failing migration leaves the database at the previous version.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass

from sqlite_utils import Database

from concord.errors import StoreError
from concord.store import schema_astrid as astrid_schema
from concord.store import schema_eval as eval_schema
from concord.store import (
    schema_labels,
    schema_questions,
    schema_scores,
    schema_site,
    schema_v1,
    schema_v4,
    schema_v6,
)
from concord.store.audit import append_audit
from concord.store.codec import system_user, utc_iso, utc_now
from concord.store.transaction import write_transaction


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.sql.encode("utf-8")).hexdigest()


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema", schema_v1.SQL),
    Migration(2, "astrid", astrid_schema.SQL),
    Migration(3, "eval", eval_schema.SQL),
    Migration(4, "identity and integrity", schema_v4.SQL),
    Migration(5, "labels", schema_labels.SQL),
    Migration(6, "versioned payloads and signed audit rows", schema_v6.SQL),
    Migration(7, "site validation", schema_site.SQL),
    Migration(8, "astrid scores in long format", schema_scores.SQL),
    Migration(9, "astrid judge questions as a registry", schema_questions.SQL),
)

_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    applied_at TEXT NOT NULL
) STRICT
"""


def schema_version(db: Database) -> int:
    """Highest applied migration, 0 for a new database."""
    if "schema_version" not in db.table_names():
        return 0
    row = db.execute("SELECT max(version) FROM schema_version").fetchone()
    return row[0] or 0


def _check_sequence(migrations: tuple[Migration, ...]) -> None:
    versions = [m.version for m in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise StoreError(f"migration versions must be 1..N without gaps, got {versions}")


def _check_applied(db: Database, migrations: tuple[Migration, ...]) -> None:
    known = {m.version: m for m in migrations}
    for row in db.query("SELECT version, sha256 FROM schema_version ORDER BY version"):
        migration = known.get(row["version"])
        if migration is None:
            raise StoreError(f"database schema version {row['version']} is newer than this Concord")
        if migration.sha256 != row["sha256"]:
            raise StoreError(f"migration {row['version']} was edited after it was applied")


def _apply(db: Database, migration: Migration) -> None:
    with write_transaction(db):
        db.execute(_VERSION_TABLE)
        if schema_version(db) >= migration.version:
            return  # another process applied it while we waited for the lock
        db.executescript(migration.sql)
        db.execute(
            "INSERT INTO schema_version (version, name, sha256, applied_at) VALUES (?, ?, ?, ?)",
            [migration.version, migration.name, migration.sha256, utc_iso(utc_now())],
        )
        append_audit(
            db.conn,
            user=system_user(),
            action="schema migrate",
            entity=f"schema:{migration.version}",
            new_value={"version": migration.version, "name": migration.name},
        )


def migrate(db: Database, migrations: tuple[Migration, ...] = MIGRATIONS) -> int:
    """Apply every pending migration in order; idempotent. Returns the schema version."""
    _check_sequence(migrations)
    for migration in migrations:
        if schema_version(db) < migration.version:
            try:
                _apply(db, migration)
            except (sqlite3.Error, StoreError) as exc:
                why = exc.problem if isinstance(exc, StoreError) else str(exc)
                raise StoreError(
                    f"migration {migration.version} ({migration.name}) failed and was rolled "
                    f"back, the database stays at version {schema_version(db)}: {why}",
                    subject=exc.subject if isinstance(exc, StoreError) else None,
                ) from exc
    _check_applied(db, migrations)
    return schema_version(db)
