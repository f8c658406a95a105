"""Revoking an account: a clinician who left, or whose password leaked, is stopped for good,
and what they did before stays valid. Each way round it is tried, through the CLI and as a
hostile insider with write access to the data folder."""

from __future__ import annotations

import pytest

from concord.accounts.enrolment import statement_bytes
from concord.accounts.revocation import revoke_user
from concord.accounts.session import sign_in
from concord.decisions import record_decision, sign_decision
from concord.errors import AuthError, InputError
from concord.store import Repository, write_transaction
from concord.store.audit import append_audit
from concord.store.repository import USER_REVOKE
from tests import factories as f
from tests.cli.test_audit_attacks import checks, sqlite_tool, verify
from tests.identity import ADMIN, ADMIN_PASSWORD, PASSWORD, admin_session, enrol
from tests.installation import ANNOTATOR, CLINICIAN, decide_all

REASON = "left the trust on 30 November"


def _decision():
    return f.decision(target_id="gate/hyperkalaemia", user=CLINICIAN)


def _revoke(run, name: str = CLINICIAN, admin: str = ADMIN, password: str = ADMIN_PASSWORD):
    return run(
        "users", "revoke", name, "--admin", admin, "--reason", REASON, "--json",
        admin_password=password,
    )  # fmt: skip


def test_a_revoked_clinician_cannot_sign_in_and_the_attempt_is_audited(
    installation: Repository, run
) -> None:
    done = _revoke(run)
    assert done.code == 0, done.err
    assert done.json()["revoked_by"] == ADMIN and done.json()["reason"] == REASON
    attempt = run("decide", "C-1", "--target", "gate/hyperkalaemia", "--accept", "--reason",
                  "ok", "--user", CLINICIAN, password=PASSWORD)  # fmt: skip
    assert attempt.code == 1
    assert "revoked by Dr Admin" in attempt.err and REASON in attempt.err
    last = installation.audit_rows()[-1]
    assert (last.action, last.entity) == ("sign-in failed", f"user:{CLINICIAN}")
    listed = {u["name"]: u for u in run("users", "list", "--json").json()["users"]}
    assert listed[CLINICIAN]["revoked"]["reason"] == REASON
    assert listed[ANNOTATOR]["revoked"] is None
    assert "REVOKED" in run("users", "list").out
    assert verify(run)["ok"]


def test_what_was_decided_and_signed_before_stays_valid(
    installation: Repository, run, tmp_path
) -> None:
    decide_all(run)
    out = tmp_path / "C-1.pdf"
    signed = run("export-pdf", "C-1", "--user", CLINICIAN, "--out", str(out), password=PASSWORD)
    assert signed.code == 0, signed.err
    assert _revoke(run).code == 0
    report = verify(run, "--pdfs", str(tmp_path))
    assert report["ok"], report["problems"]
    assert run("verify-pdf", str(out), "--json").json()["valid"]


def test_a_session_opened_before_the_revocation_records_nothing(
    installation: Repository,
) -> None:
    session = sign_in(installation, CLINICIAN, PASSWORD)
    revoke_user(installation, CLINICIAN, REASON, admin=admin_session(installation))
    with pytest.raises(AuthError, match="revoked"):
        record_decision(installation, session, _decision())
    assert installation.decisions(case_id="C-1") == []


@pytest.mark.parametrize(
    ("who", "as_admin", "password", "expected"),
    [
        (CLINICIAN, CLINICIAN, PASSWORD, "only a admin can revoke users"),
        (ADMIN, ADMIN, ADMIN_PASSWORD, "the last admin cannot be revoked"),
        ("Dr Nobody", ADMIN, ADMIN_PASSWORD, "no such user"),
        (CLINICIAN, ADMIN, "wrong-password-entirely", "wrong password"),
    ],
)
def test_who_may_revoke_whom(installation: Repository, run, who, as_admin, password, expected):
    done = _revoke(run, who, as_admin, password)
    assert done.code == 1 and expected in done.err
    assert installation.revocations() == {}


def test_a_revocation_needs_a_reason_and_happens_once(installation: Repository) -> None:
    admin = admin_session(installation)
    with pytest.raises(InputError, match="needs a reason"):
        revoke_user(installation, CLINICIAN, "   ", admin=admin)
    revoke_user(installation, CLINICIAN, REASON, admin=admin)
    with pytest.raises(InputError, match="already revoked"):
        revoke_user(installation, CLINICIAN, "again", admin=admin)


def test_a_second_admin_may_revoke_the_first_who_can_then_do_nothing(
    installation: Repository, run
) -> None:
    enrol(installation, "Dr Second", "admin", "second-admin-password")
    done = _revoke(run, ADMIN, "Dr Second", "second-admin-password")
    assert done.code == 0, done.err
    again = run("users", "add", "Dr New", "--role", "clinician", "--admin", ADMIN,
                admin_password=ADMIN_PASSWORD, password="a-new-long-password")  # fmt: skip
    assert again.code == 1 and "revoked" in again.err
    assert verify(run)["ok"]


def test_deleting_the_revocation_from_the_chain_is_detected(installation: Repository, run) -> None:
    assert _revoke(run).code == 0
    with sqlite_tool() as conn:
        conn.execute("DELETE FROM audit WHERE action = ?", [USER_REVOKE])
    report = verify(run)
    assert not report["ok"] and checks(report) & {"chain", "anchor"}


def test_a_decision_slipped_in_after_the_revocation_is_reported(
    installation: Repository, run
) -> None:
    """The revoked clinician kept their credential file and password, and appends a signed
    decision through the library, bypassing the check."""
    session = sign_in(installation, CLINICIAN, PASSWORD)
    revoke_user(installation, CLINICIAN, REASON, admin=admin_session(installation))
    late = sign_decision(session, _decision())
    installation.append_decision(late)
    report = verify(run)
    assert not report["ok"]
    assert any("after their account was revoked" in p["detail"] for p in report["problems"])


def test_a_revocation_not_signed_by_an_admin_is_reported(installation: Repository, run) -> None:
    """The annotator forges a revocation of the clinician, signed with their own key."""
    annotator = sign_in(installation, ANNOTATOR, "label-queue-tuesday")
    statement = {"name": CLINICIAN, "revoked_by": ANNOTATOR, "reason": "x", "at": "2026-11-24"}
    with write_transaction(installation.db):
        append_audit(
            installation.db.conn,
            user=ANNOTATOR,
            action=USER_REVOKE,
            entity=f"user:{CLINICIAN}",
            new_value={
                "statement": statement,
                "signature": annotator.sign(statement_bytes(statement)),
            },
        )
    report = verify(run)
    assert not report["ok"]
    assert any("not an enrolled admin" in p["detail"] for p in report["problems"])
    assert sign_in(installation, CLINICIAN, PASSWORD).name == CLINICIAN  # not locked out


def test_a_pdf_signed_with_the_kept_key_after_the_revocation_does_not_verify(
    installation: Repository, run, tmp_path, monkeypatch
) -> None:
    """The revoked clinician's session was open before the revocation; they sign the PDF
    with the library as if Concord's check were not there."""
    import concord.signoff as signoff

    decide_all(run)
    session = sign_in(installation, CLINICIAN, PASSWORD)
    revoke_user(installation, CLINICIAN, REASON, admin=admin_session(installation))
    monkeypatch.setattr(signoff, "require_active", lambda _repo, _session: None)
    out = tmp_path / "late.pdf"
    signoff.sign_case(installation, session, "C-1", out=out)
    checked = run("verify-pdf", str(out), "--json").json()
    assert not checked["valid"], checked
    assert "signed after Dr Smith's account was revoked" in checked["registered"]["problem"]
    report = verify(run)
    assert any("signed by Dr Smith after" in p["detail"] for p in report["problems"])
