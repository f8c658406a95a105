"""The audit trail against a hostile insider with the stock sqlite3 tool: each rewrite that
`concord audit verify` used to report as "ok" (issue 13), run against a signed installation."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from concord import paths
from concord.domain import DecisionAction
from concord.store import Repository
from concord.store.audit import row_hash
from tests.identity import PASSWORD
from tests.installation import CLINICIAN, decide_all

TRIGGERS = (
    "audit_no_update",
    "audit_no_delete",
    "decisions_no_update",
    "decisions_no_delete",
    "signatures_no_update",
    "signatures_no_delete",
)


@contextmanager
def sqlite_tool() -> Iterator[sqlite3.Connection]:
    """The database as the stock sqlite3 tool opens it, every trigger dropped."""
    conn = sqlite3.connect(paths.database_path())
    conn.row_factory = sqlite3.Row
    for trigger in TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    yield conn
    conn.commit()
    conn.close()


def recompute_chain(conn: sqlite3.Connection, since: int = 1) -> None:
    """What an attacker who read Concord's source does after an edit: rehash from `since`."""
    prev = conn.execute("SELECT hash FROM audit WHERE seq = ?", [since - 1]).fetchone()
    prev_hash = prev["hash"] if prev else "0" * 64
    for row in conn.execute("SELECT * FROM audit WHERE seq >= ? ORDER BY seq", [since]).fetchall():
        data = dict(row)
        data["prev_hash"] = prev_hash
        data["hash"] = row_hash(data)
        conn.execute(
            "UPDATE audit SET prev_hash = ?, hash = ? WHERE seq = ?",
            [data["prev_hash"], data["hash"], data["seq"]],
        )
        prev_hash = data["hash"]


@pytest.fixture
def signed(installation: Repository, run, tmp_path: Path) -> Path:
    """Every required judgement decided and the case signed; returns the PDF folder."""
    decide_all(run)
    pdfs = tmp_path / "pdfs"
    done = run(
        "export-pdf", "C-1", "--user", CLINICIAN, "--out", str(pdfs / "C-1.pdf"), password=PASSWORD
    )
    assert done.code == 0, done.err
    clean = run("audit", "verify", "--json")
    assert clean.code == 0 and clean.json()["ok"], clean.out
    return pdfs


def verify(run, *extra: str) -> dict:
    done = run("audit", "verify", "--json", *extra)
    data = done.json()
    assert (done.code == 0) == data["ok"]
    return data


def checks(report: dict) -> set[str]:
    return {p["check"] for p in report["problems"]}


def test_decisions_table_edited_after_dropping_its_trigger(signed: Path, run) -> None:
    with sqlite_tool() as conn:
        conn.execute(
            "UPDATE decisions SET new_value = '\"not-relevant\"' "
            "WHERE target_id = 'gate/hyperkalaemia/disposition'"
        )
    report = verify(run)
    assert not report["ok"] and "decisions" in checks(report)
    assert any("differs from the audited decision" in p["detail"] for p in report["problems"])


def test_a_recomputed_chain_after_an_edit(signed: Path, run) -> None:
    with sqlite_tool() as conn:
        seq = conn.execute("SELECT seq FROM audit WHERE action LIKE 'decide%' LIMIT 1").fetchone()[
            0
        ]
        conn.execute("UPDATE audit SET reason = 'quietly changed' WHERE seq = ?", [seq])
        recompute_chain(conn, seq)
    report = verify(run)
    assert not report["ok"]
    assert {"anchor", "signatures"} <= checks(report)  # the anchor file and the signed head
    assert report["first_bad_seq"] is not None and report["first_bad_seq"] >= seq
    # even with the anchor beside the database deleted, the signed PDF still tells
    for anchor in paths.concord_home().glob("*.anchors"):
        anchor.unlink()
    with_pdfs = verify(run, "--pdfs", str(signed))
    assert "pdf" in checks(with_pdfs)


def test_tail_truncation_with_sqlite_sequence_wound_back(signed: Path, run) -> None:
    with sqlite_tool() as conn:
        last = conn.execute("SELECT max(seq) FROM audit").fetchone()[0]
        conn.execute("DELETE FROM audit WHERE seq > ?", [last - 2])
        conn.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'audit'", [last - 2])
        conn.execute("DELETE FROM signatures")
    report = verify(run)
    assert not report["ok"] and "anchor" in checks(report)
    assert report["first_bad_seq"] == last - 1
    assert verify(run, "--pdfs", str(signed))["ok"] is False


def test_a_wiped_audit_table_while_decisions_and_signatures_remain(signed: Path, run) -> None:
    with sqlite_tool() as conn:
        conn.execute("DELETE FROM audit")
        conn.execute("DELETE FROM sqlite_sequence WHERE name = 'audit'")
    report = verify(run)
    assert not report["ok"] and report["rows"] == 0
    assert {"decisions", "signatures", "cases", "users", "anchor"} <= checks(report)


def test_a_whole_rewrite_including_the_anchor_is_caught_by_the_kept_copy_and_the_pdfs(
    signed: Path,
    run,
    tmp_path: Path,
) -> None:
    kept = tmp_path / "off-the-workstation.anchors"
    for anchor in paths.concord_home().glob("*.anchors"):
        shutil.copyfile(anchor, kept)  # what a site keeps on a write-once share
    with sqlite_tool() as conn:
        seq = conn.execute("SELECT seq FROM audit WHERE action LIKE 'decide%' LIMIT 1").fetchone()[
            0
        ]
        conn.execute("UPDATE audit SET reason = 'rewritten' WHERE seq = ?", [seq])
        recompute_chain(conn, seq)
        conn.execute(
            "UPDATE signatures SET audit_head_hash = (SELECT hash FROM audit a "
            "WHERE a.seq = signatures.audit_head_seq)"
        )
    for anchor in paths.concord_home().glob("*.anchors"):
        anchor.unlink()  # the insider deletes the anchor beside the database too
    report = verify(run)
    assert not report["ok"]  # the sign row no longer matches the audited signature
    assert "anchor" in checks(verify(run, "--anchor", str(kept)))
    assert "pdf" in checks(verify(run, "--pdfs", str(signed)))


def test_a_forged_decision_appended_with_a_valid_chain_is_not_signed_by_its_user(
    signed: Path,
    run,
) -> None:
    """An insider who appends a decision and extends the chain (and the anchor) correctly
    still cannot sign it with the clinician's key."""
    with Repository.open() as repo:
        real = repo.decisions()[0]
        forged = real.model_copy(
            update={
                "decision_id": "DEC-forged",
                "new_value": "negated",
                "action": DecisionAction.OVERRIDE,
            }
        )
        repo.append_decision(forged)  # the store's own append: chain and anchor stay valid
        assert repo.verify_audit().ok
    report = verify(run)
    assert not report["ok"]
    assert any("not signed by Dr Smith's key" in p["detail"] for p in report["problems"])


def test_a_users_row_edited_to_another_role_or_key(signed: Path, run) -> None:
    with sqlite_tool() as conn:
        conn.execute("UPDATE users SET role = 'clinician' WHERE name = 'Ann Otator'")
    report = verify(run)
    assert not report["ok"] and "users" in checks(report)


def test_a_case_status_or_content_edited_in_the_table(signed: Path, run) -> None:
    with sqlite_tool() as conn:
        conn.execute("UPDATE cases SET status = 'needs review'")
        conn.execute("UPDATE cases SET json = replace(json, '\"Low\"', '\"High\"')")
    report = verify(run)
    details = " ".join(p["detail"] for p in report["problems"])
    assert "status is 'needs review' but the audit trail says 'signed'" in details
    assert "differs from the one audited" in details


def test_the_json_shape_and_text_output(signed: Path, run) -> None:
    data = verify(run, "--pdfs", str(signed))
    assert data["ok"] and data["first_bad_seq"] is None
    assert data["checked"]["pdfs"] == 1 and data["checked"]["anchor_heads"] > 0
    assert data["checked"]["decisions"] > 0 and data["checked"]["signatures"] == 1
    text = run("audit", "verify")
    assert text.code == 0 and text.out.startswith("audit trail intact")
    json.dumps(data)
