"""Issue 28 item 3: every audit row is attributable, every derived table is checked.

Each attack is made with the store's own functions (so the chain and the anchor stay valid)
or with the stock sqlite3 tool, on a signed installation, and `concord audit verify` used to
call the result intact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from concord import paths
from concord.store import Repository, write_transaction
from concord.store.audit import append_audit
from concord.store.sql import insert_row
from tests.cli.test_audit_attacks import checks, signed, sqlite_tool, verify
from tests.identity import enrol

__all__ = ["signed"]  # the fixture, shared with the older attacks

OTHER = "Dr B"


@pytest.fixture
def dr_b(signed: Path) -> Path:
    """A second clinician, enrolled (and never signed in in this process since)."""
    with Repository.open() as repo:
        enrol(repo, OTHER)
    from concord.store import audit

    getattr(audit, "_signers", {}).clear()  # the attacker has the database, not Dr B's password
    return signed


def details(report: dict) -> str:
    return " | ".join(p["detail"] for p in report["problems"])


def test_a_forged_sign_row_and_signatures_row_in_another_clinicians_name(dr_b: Path, run) -> None:
    with Repository.open() as repo:
        genuine = repo.latest_signature("C-1")
        assert genuine is not None
        row = genuine.model_dump(mode="json", exclude={"signature_id"})
        row.update(user=OTHER, pdf_sha256="f" * 64, path="/nowhere/forged.pdf")
        row["supersedes"] = genuine.signature_id
        with write_transaction(repo.db):
            insert_row(repo.db.conn, "signatures", row)
            append_audit(
                repo.db.conn,
                user=OTHER,
                action="sign",
                entity="case:C-1",
                old_value="signed",
                new_value={**row, "status": "signed"},
                reason=row["meaning"],
            )
        assert repo.verify_audit().ok  # well chained, anchored
    report = verify(run)
    assert not report["ok"]
    assert "attribution" in checks(report)
    assert "'sign' row attributed to 'Dr B' carries no signature" in details(report)
    currency = run("verify-pdf", str(dr_b / "C-1.pdf"), "--json").json()["currency"]
    assert currency["current"] and currency["superseded_by"] == []  # the forgery supersedes nothing
    assert currency["unattributed_signatures"]


def test_a_status_change_attributed_to_another_clinician(dr_b: Path, run) -> None:
    with Repository.open() as repo:
        repo.set_case_status("C-1", "reviewed", OTHER, reason="quietly unsigned")
        assert repo.verify_audit().ok
    report = verify(run)
    assert not report["ok"]
    text = details(report)
    assert "'case status' row attributed to 'Dr B' carries no signature" in text
    assert "status change to 'reviewed' by Dr B is not what the decisions" in text


def test_the_worklist_columns_and_gate_rows_edited(signed: Path, run) -> None:
    with sqlite_tool() as conn:
        conn.execute("UPDATE cases SET human_review = 0, worst_grade = 'High'")
        conn.execute("UPDATE case_gates SET status = 'not_triggered'")
        conn.execute("UPDATE scorecards SET human_review = 0, grade = 'High'")
    report = verify(run)
    assert not report["ok"]
    text = details(report)
    assert "cases row differs from the audited case JSON: worst_grade, human_review" in text
    assert "case_gates rows differ" in text and "scorecards rows differ" in text


def test_a_records_text_edited(signed: Path, run) -> None:
    with sqlite_tool() as conn:
        conn.execute("UPDATE records SET json = replace(json, 'K+ 6.3', 'K+ 4.1')")
        assert conn.total_changes == 1
    report = verify(run)
    assert not report["ok"] and "records" in checks(report)
    assert "documents were edited after import" in details(report)


def test_a_records_text_and_its_hash_column_edited_together(signed: Path, run) -> None:
    with sqlite_tool() as conn:
        conn.execute("UPDATE records SET json = replace(json, 'K+ 6.3', 'K+ 4.1')")
        from concord.domain import Record

        (text,) = conn.execute("SELECT json FROM records").fetchone()
        edited = Record.model_validate_json(text)
        conn.execute("UPDATE records SET content_hash = ?", [edited.content_hash])
    report = verify(run)
    assert not report["ok"] and "records" in checks(report)


def _configure(anchors: list[Path]) -> None:
    config = paths.concord_home() / "anchors.json"
    config.write_text(json.dumps({"anchors": [str(a) for a in anchors]}), encoding="utf-8")


def _write_something() -> None:
    with Repository.open() as repo:
        repo.audit_event(user="system", action="note", entity="test:anchor")


def test_deleting_anchors_json_is_reported(signed: Path, run, tmp_path: Path) -> None:
    worm = tmp_path / "worm" / "ws12.anchors"
    worm.parent.mkdir()
    _configure([worm])
    _write_something()
    assert verify(run)["ok"]
    (paths.concord_home() / "anchors.json").unlink()
    report = verify(run)
    warned = " | ".join(w["detail"] for w in report["warnings"])
    assert "changed or deleted since the last write" in warned
    _write_something()  # the next write records the shorter list: the drop stays on record
    again = verify(run)
    dropped = [w for w in again["warnings"] if "dropped from anchors.json" in w["detail"]]
    assert dropped and dropped[0]["subject"] == str(worm)
    assert "its last head is seq" in dropped[0]["detail"]


def test_a_worm_copy_that_stops_growing_is_reported(signed: Path, run, tmp_path: Path) -> None:
    worm = tmp_path / "worm" / "ws12.anchors"
    worm.parent.mkdir()
    _configure([worm])
    _write_something()
    frozen = worm.read_bytes()
    _write_something()
    worm.write_bytes(frozen)  # the share went read-only / was swapped: later heads never arrive
    report = verify(run)
    assert not report["ok"]
    assert any(
        p["check"] == "anchor" and "stopped growing" in p["detail"] for p in report["problems"]
    )
    worm.unlink()
    gone = verify(run)
    assert any("anchor file is missing" in p["detail"] for p in gone["problems"])


def test_rows_a_signed_in_user_writes_are_signed_by_them(signed: Path, run) -> None:
    with Repository.open() as repo:
        rows = repo.audit_rows()
    mine = [r for r in rows if r.row_version == 2 and r.action in ("sign", "case status")]
    assert mine and all(r.signature for r in mine)
    assert any(r.action.startswith("decide") and r.signature for r in rows)


def test_a_failed_sign_in_is_not_taken_for_a_forged_row(signed: Path, run) -> None:
    """A failed sign-in names the user it tried; by its nature it is not theirs to sign."""
    wrong = run(
        "decide",
        "C-1",
        "--target",
        "gate/hyperkalaemia",
        "--accept",
        "--reason",
        "x",
        "--user",
        "Dr Smith",
        password="not-the-password-at-all",
    )
    assert wrong.code == 1
    report = verify(run)
    assert report["ok"], report["problems"]
