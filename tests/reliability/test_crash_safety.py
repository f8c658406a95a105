"""Short form of the crash harness, and checks that its checker can fail.

Long form (on demand): python tests/reliability/crash_harness.py --kills 200 --writes 10000
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from concord.store import Repository

from . import crash_harness as ch


def test_short_form_nothing_lost_after_sigkills(tmp_path: Path) -> None:
    report = ch.run(kills=10, writes=250, procs=2, seed=7, workdir=tmp_path, startup_share=0.3)
    assert report.ok, report.summary()
    assert report.kills == 10
    assert report.kills_while_writing + report.kills_during_startup == 10
    assert report.kills_while_writing >= 1
    assert report.writes_acknowledged >= 250
    assert report.lost == 0 and report.duplicates == 0 and report.altered_decisions == 0
    assert report.decisions_present >= report.writes_acknowledged
    assert report.checks == report.kills + 1 and report.failed_checks == 0
    assert report.integrity == "ok" and report.chain_ok


def _db_with(tmp_path: Path, numbers: range) -> Path:
    db = tmp_path / "c.sqlite"
    with Repository.open(db) as repo:
        for n in numbers:
            assert repo.append_decision(ch.decision_for(n))
    return db


def test_a_retried_write_is_idempotent(tmp_path: Path) -> None:
    db = _db_with(tmp_path, range(1, 4))
    with Repository.open(db) as repo:
        head = repo.audit_head()
        assert repo.append_decision(ch.decision_for(2)) is False
        assert repo.audit_head() == head
    assert ch.check_database(db, {1, 2, 3}).ok


def test_checker_reports_an_acknowledged_write_that_is_missing(tmp_path: Path) -> None:
    db = _db_with(tmp_path, range(1, 4))
    result = ch.check_database(db, {1, 2, 3, 99})
    assert result.lost == [99] and not result.ok


def test_checker_reports_unaudited_decisions_and_a_broken_chain(tmp_path: Path) -> None:
    db = _db_with(tmp_path, range(1, 4))
    conn = sqlite3.connect(str(db), isolation_level=None)
    row = conn.execute("SELECT * FROM decisions WHERE decision_id = 'D-0000001'").fetchone()
    conn.execute(
        f"INSERT INTO decisions VALUES ({', '.join('?' for _ in row)})", ("D-0000042", *row[1:])
    )
    conn.execute("DROP TRIGGER audit_no_update")
    conn.execute("UPDATE audit SET reason = 'edited' WHERE entity = 'decision:D-0000002'")
    conn.close()
    result = ch.check_database(db, {1, 2, 3})
    assert result.unaudited_decisions == 1 and not result.chain_ok and not result.ok
    assert ch.check_contents(db) == 1  # D-0000042 carries D-0000001's content
