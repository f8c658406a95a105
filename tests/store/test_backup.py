"""`concord backup` / `concord restore`: SQLite backup API, checks before anything is replaced."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from concord import paths
from concord.cli import main
from concord.errors import InputError, StoreError
from concord.store import Repository
from concord.store.backup import backup_database, check_database, restore_database
from tests import factories as f


def _fill(repo: Repository, ids: range) -> None:
    for n in ids:
        assert repo.append_decision(f.decision(f"D-{n}", override=n / 100))


def _state(path: Path) -> tuple[list[str], tuple[int, str], bool]:
    with Repository.open(path) as repo:
        return (
            [d.decision_id for d in repo.decisions()],
            repo.audit_head(),
            repo.verify_audit().ok,
        )


def _raw(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), isolation_level=None)
    return conn


@pytest.fixture
def live(repo: Repository) -> Path:
    _fill(repo, range(5))
    return paths.database_path()


def test_backup_holds_what_is_still_in_the_wal(repo: Repository, live: Path, tmp_path: Path):
    """A file copy of the main file misses committed writes still in the WAL; the backup API
    does not."""
    repo.db.conn.execute("PRAGMA wal_autocheckpoint=0")
    _fill(repo, range(5, 9))
    naive = tmp_path / "naive.sqlite"
    shutil.copyfile(live, naive)
    with _raw(naive) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        naive_count = (
            conn.execute("SELECT count(*) FROM decisions").fetchone()[0]
            if "decisions" in tables
            else 0
        )
    assert naive_count < 9  # the hazard the backup API avoids: committed rows missing

    out = tmp_path / "b.sqlite"
    check = backup_database(live, out)
    assert check.decisions == 9 and check.audit_head == repo.audit_head()
    assert not Path(f"{out}-wal").exists()  # a single self-contained file
    with _raw(out) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert check_database(out).sha256 == check.sha256


def test_cli_backup_then_restore_round_trip(live: Path, tmp_path: Path, capsys, repo):
    out = tmp_path / "nightly.sqlite"
    assert main(["backup", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["decisions"] == 5 and summary["audit_head_seq"] == repo.audit_head()[0]

    assert main(["backup", str(out)]) == 1  # never overwritten silently
    assert "already exists" in capsys.readouterr().err

    _fill(repo, range(5, 7))  # the live database moves on
    before = _state(live)
    assert main(["restore", str(out)]) == 1  # would lose D-5, D-6
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "audit rows the backup lacks" in err
    assert _state(live) == before

    assert main(["restore", str(out), "--force", "--user", "admin", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    ids, head, ok = _state(live)
    assert ok and ids == [f"D-{n}" for n in range(5)]
    assert head[0] == summary["audit_head_seq"] + 1  # the restore itself is audited
    last = repo.audit_rows(since_seq=head[0] - 1)[-1]
    # nobody signs in against the database a restore replaces: the name is a claim, marked so
    assert (last.action, last.user) == ("restore", "admin (not signed in)")
    # the replaced database was kept, with the decisions the backup lacked
    assert _state(Path(result["safety_copy"]))[0] == [f"D-{n}" for n in range(7)]


def test_restore_of_a_backup_that_contains_the_live_head_needs_no_force(live, tmp_path, repo):
    out = tmp_path / "b.sqlite"
    backup_database(live, out)
    result = restore_database(out, live)
    assert _state(live)[0] == [f"D-{n}" for n in range(5)] and result.safety_copy


def test_restore_into_a_fresh_home(live: Path, tmp_path: Path):
    out = tmp_path / "b.sqlite"
    backup_database(live, out)
    fresh = tmp_path / "other-home" / "concord.sqlite"
    result = restore_database(out, fresh)
    assert result.safety_copy is None
    assert _state(fresh)[0] == [f"D-{n}" for n in range(5)]


def _tamper_audit(path: Path) -> None:
    with _raw(path) as conn:
        conn.execute("DROP TRIGGER audit_no_update")
        conn.execute("UPDATE audit SET reason = 'nothing to see' WHERE seq = 5")


def _insert_unaudited_decision(path: Path) -> None:
    with _raw(path) as conn:
        row = conn.execute("SELECT * FROM decisions LIMIT 1").fetchone()
        names = [d[0] for d in conn.execute("SELECT * FROM decisions LIMIT 1").description]
        values = dict(zip(names, row, strict=True)) | {"decision_id": "D-forged"}
        marks = ", ".join("?" for _ in values)
        conn.execute(
            f"INSERT INTO decisions ({', '.join(values)}) VALUES ({marks})", list(values.values())
        )


def _newer_schema(path: Path) -> None:
    with _raw(path) as conn:
        conn.execute("INSERT INTO schema_version VALUES (99, 'future', 'x', '2030-01-01')")


def _corrupt_pages(path: Path) -> None:
    data = bytearray(path.read_bytes())
    for offset in range(4096 + 100, len(data), 4096):  # every page after the first
        data[offset : offset + 200] = b"\xa5" * 200
    path.write_bytes(bytes(data))


def _not_sqlite(path: Path) -> None:
    path.write_bytes(b"PK\x03\x04 definitely a zip file" * 10)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (_tamper_audit, "audit chain broken at seq 5"),
        (_insert_unaudited_decision, r"1 decision\(s\) have no audit row"),
        (_newer_schema, "schema version 99 is newer"),
        (_corrupt_pages, "integrity check failed|not a usable database|audit chain broken"),
        (_not_sqlite, "no SQLite header"),
    ],
)
def test_a_damaged_backup_is_refused_and_nothing_is_replaced(
    live: Path, tmp_path: Path, capsys, damage, message
):
    out = tmp_path / "b.sqlite"
    backup_database(live, out)
    damage(out)
    before = _state(live)
    with pytest.raises((StoreError, InputError), match=message) as info:
        restore_database(out, live, force=True)
    assert str(out) in info.value.one_line()
    assert _state(live) == before
    assert not list(live.parent.glob("*.before-restore*"))  # refused before any step
    assert not list(live.parent.glob(".*.tmp"))  # no temporary file left behind

    assert main(["restore", str(out), "--force"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("concord: error: ") and err.count("\n") == 1
    assert _state(live) == before


def test_an_unreadable_live_database_is_replaced_only_with_force(live, tmp_path, repo):
    out = tmp_path / "b.sqlite"
    backup_database(live, out)
    repo.close()
    for extra in ("-wal", "-shm"):
        Path(f"{live}{extra}").unlink(missing_ok=True)
    live.write_bytes(b"garbage" * 1000)
    with pytest.raises(StoreError, match="cannot be read; use --force"):
        restore_database(out, live)
    assert live.read_bytes() == b"garbage" * 1000
    result = restore_database(out, live, force=True)
    assert Path(result.safety_copy).read_bytes() == b"garbage" * 1000
    assert _state(live)[0] == [f"D-{n}" for n in range(5)]


def test_backup_refuses_to_overwrite_the_live_database(live: Path):
    with pytest.raises(InputError, match="cannot be the live database"):
        backup_database(live, live, overwrite=True)
