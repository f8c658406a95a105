from __future__ import annotations

from pathlib import Path

import pytest

from concord import paths
from concord.errors import StoreError
from concord.store import MIGRATIONS, Migration, Repository, migrate, open_database, schema_version


def test_opens_the_database_in_concord_home_with_safe_pragmas(concord_home: Path) -> None:
    db = open_database()
    assert paths.database_path() == concord_home / "concord.sqlite"
    assert paths.database_path().is_file()
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    db.close()


def test_migrations_are_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    for _ in range(3):
        db = open_database(path)
        assert migrate(db) == len(MIGRATIONS)
        db.close()
    db = open_database(path)
    rows = list(db.query("SELECT version FROM schema_version"))
    assert rows == [{"version": m.version} for m in MIGRATIONS]
    migrated = db.execute("SELECT count(*) FROM audit WHERE action = 'schema migrate'")
    assert migrated.fetchone()[0] == len(MIGRATIONS)
    assert {"users", "records", "cases", "decisions", "audit", "signatures"} <= set(
        db.table_names()
    )
    db.close()


def test_a_new_migration_is_applied_once_and_audited(tmp_path: Path) -> None:
    db = open_database(tmp_path / "db.sqlite")
    extra = (*MIGRATIONS, Migration(len(MIGRATIONS) + 1, "items", "CREATE TABLE items (id TEXT)"))
    assert migrate(db, extra) == len(extra)
    assert migrate(db, extra) == len(extra)
    assert "items" in db.table_names()
    assert Repository(db).verify_audit().ok


def test_a_failing_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    db = open_database(tmp_path / "db.sqlite")
    head = Repository(db).audit_head()
    bad = Migration(
        len(MIGRATIONS) + 1,
        "broken",
        "CREATE TABLE half (id TEXT); INSERT INTO nowhere VALUES (1);",
    )
    with pytest.raises(StoreError, match=rf"migration {bad.version} \(broken\) failed") as err:
        migrate(db, (*MIGRATIONS, bad))
    assert f"stays at version {len(MIGRATIONS)}" in str(err.value)
    assert "nowhere" in str(err.value)  # the database's own reason is kept
    assert schema_version(db) == len(MIGRATIONS)
    assert "half" not in db.table_names()
    assert Repository(db).audit_head() == head


def test_an_edited_migration_is_refused(tmp_path: Path) -> None:
    db = open_database(tmp_path / "db.sqlite")
    edited = (Migration(1, "initial schema", MIGRATIONS[0].sql + "\n-- edited"), *MIGRATIONS[1:])
    with pytest.raises(StoreError, match="edited"):
        migrate(db, edited)


def test_a_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    db = open_database(tmp_path / "db.sqlite")
    migrate(db, (*MIGRATIONS, Migration(len(MIGRATIONS) + 1, "future", "SELECT 1")))
    with pytest.raises(StoreError, match="newer"):
        migrate(db)


def test_migration_versions_must_be_contiguous(tmp_path: Path) -> None:
    db = open_database(tmp_path / "db.sqlite")
    with pytest.raises(StoreError, match="gaps"):
        migrate(db, (*MIGRATIONS, Migration(len(MIGRATIONS) + 2, "skip", "SELECT 1")))


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="junk.sqlite"):
        open_database(path)
