from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from concord import paths
from concord.errors import StoreError
from concord.store import MIGRATIONS, AuditReport, Repository, append_audit, verify_chain
from concord.store.audit import GENESIS_HASH, row_hash
from tests import factories as f
from tests.identity import enrol

TRIGGERS = ("audit_no_update", "audit_no_delete")
M = len(MIGRATIONS)  # one audit row per applied migration comes first
TOTAL = M + 8  # + three enrolments (the admin first), one import, one case, three decisions


@pytest.fixture
def filled(repo: Repository) -> Repository:
    """A trail of one row per migration, then users, import, case and decisions."""
    enrol(repo, "dr.jones", "clinician")
    enrol(repo, "ann", "annotator")
    rec = f.record()
    repo.save_record(rec, "importer")
    repo.save_case(f.case(rec), "runner")
    for n in range(3):
        repo.append_decision(f.decision(f"D-{n}"))
    assert repo.audit_head()[0] == TOTAL
    return repo


@contextmanager
def tamper() -> Iterator[sqlite3.Connection]:
    """The database file opened directly, as an attacker would, with the triggers dropped."""
    conn = sqlite3.connect(paths.database_path())
    for trigger in TRIGGERS:
        conn.execute(f"DROP TRIGGER {trigger}")
    yield conn
    conn.commit()
    conn.close()


def report(ok: bool, rows: int, bad: int | None) -> AuditReport:
    return AuditReport(ok=ok, rows=rows, first_bad_seq=bad)


def test_a_clean_trail_verifies(filled: Repository) -> None:
    assert filled.verify_audit() == report(True, TOTAL, None)
    rows = filled.audit_rows()
    assert [r.seq for r in rows] == list(range(1, TOTAL + 1))
    assert rows[0].prev_hash == GENESIS_HASH
    assert all(b.prev_hash == a.hash for a, b in zip(rows, rows[1:], strict=False))
    assert all(r.at.utcoffset() is not None and r.workstation for r in rows)
    assert filled.audit_head() == (TOTAL, rows[-1].hash)


def test_an_empty_trail_verifies(repo: Repository) -> None:
    with tamper() as conn:
        conn.execute("DELETE FROM audit")
        conn.execute("DELETE FROM sqlite_sequence WHERE name = 'audit'")
    assert repo.verify_audit() == report(True, 0, None)
    assert repo.audit_head() == (0, GENESIS_HASH)


@pytest.mark.parametrize("column", ["user", "at", "reason", "new_value", "prev_hash"])
def test_an_edited_row_is_pinpointed(filled: Repository, column: str) -> None:
    with tamper() as conn:
        conn.execute(f"UPDATE audit SET {column} = 'x' WHERE seq = ?", [M + 4])
    assert filled.verify_audit() == report(False, TOTAL, M + 4)


def test_an_edit_with_a_recomputed_hash_breaks_the_next_link(filled: Repository) -> None:
    with tamper() as conn:
        conn.row_factory = sqlite3.Row
        row = dict(conn.execute("SELECT * FROM audit WHERE seq = ?", [M + 4]).fetchone())
        row["reason"] = "innocent"
        conn.execute(
            "UPDATE audit SET reason = ?, hash = ? WHERE seq = ?",
            [row["reason"], row_hash(row), M + 4],
        )
    assert filled.verify_audit() == report(False, TOTAL, M + 5)


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_deleted_row_is_pinpointed(filled: Repository, where: str) -> None:
    seq = {"first": 1, "middle": M + 3, "last": TOTAL}[where]
    with tamper() as conn:
        conn.execute("DELETE FROM audit WHERE seq = ?", [seq])
    assert filled.verify_audit() == report(False, TOTAL - 1, seq)


def test_a_deleted_tail_is_not_hidden_by_the_next_append(filled: Repository) -> None:
    with tamper() as conn:
        conn.execute("DELETE FROM audit WHERE seq >= ?", [TOTAL - 1])
    filled.audit_event(user="late", action="sign-in failed", entity="user:late")
    assert filled.verify_audit() == report(False, TOTAL - 1, TOTAL - 1)


def test_swapped_rows_are_pinpointed(filled: Repository) -> None:
    with tamper() as conn:
        conn.execute("UPDATE audit SET seq = -1 WHERE seq = ?", [M + 2])
        conn.execute("UPDATE audit SET seq = ? WHERE seq = ?", [M + 2, M + 3])
        conn.execute("UPDATE audit SET seq = ? WHERE seq = -1", [M + 3])
    assert filled.verify_audit() == report(False, TOTAL, M + 2)


def test_swapped_contents_are_pinpointed(filled: Repository) -> None:
    columns = "user, action, entity, old_value, new_value, reason"
    with tamper() as conn:
        a = conn.execute(f"SELECT {columns} FROM audit WHERE seq = ?", [M + 5]).fetchone()
        b = conn.execute(f"SELECT {columns} FROM audit WHERE seq = ?", [M + 6]).fetchone()
        assignments = ", ".join(f"{c.strip()} = ?" for c in columns.split(","))
        conn.execute(f"UPDATE audit SET {assignments} WHERE seq = ?", [*b, M + 5])
        conn.execute(f"UPDATE audit SET {assignments} WHERE seq = ?", [*a, M + 6])
    assert filled.verify_audit() == report(False, TOTAL, M + 5)


def test_append_audit_refuses_to_run_outside_a_transaction(repo: Repository) -> None:
    with pytest.raises(StoreError, match="inside the transaction"):
        append_audit(repo.db.conn, user="x", action="y", entity="z")


def test_standalone_events_and_exports_are_chained(repo: Repository) -> None:
    entry = repo.audit_event(user="ann", action="login failed", entity="user:ann", reason="pw")
    repo.record_export(kind="labels jsonl", path=Path("out.jsonl"), rows=3, sha256="ab")
    last = repo.audit_rows()[-1]
    assert entry.seq == last.seq - 1
    assert (last.action, last.entity, last.new_value) == (
        "export (labels jsonl)",
        "file:out.jsonl",
        '{"rows":3,"sha256":"ab"}',
    )
    assert verify_chain(repo.db).ok


def test_concurrent_writers_keep_one_valid_chain(repo: Repository) -> None:
    import threading

    def write(prefix: str) -> None:
        with Repository.open() as own:  # one connection per thread
            for n in range(15):
                own.append_decision(f.decision(f"{prefix}-{n}"))

    threads = [threading.Thread(target=write, args=(p,)) for p in ("A", "B", "C")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(repo.decisions()) == 45
    assert repo.verify_audit() == report(True, M + 45, None)
