"""Deciding and enrolling as someone else: each attack of issue 13 run through the CLI."""

from __future__ import annotations

import json
import sqlite3

from concord import paths
from concord.store import Repository
from tests.identity import ADMIN, ADMIN_PASSWORD, PASSWORD
from tests.installation import ANNOTATOR, ANNOTATOR_PASSWORD, CLINICIAN, decide_all, required_ids

TARGET = "gate/hyperkalaemia"


def _decide(run, user: str, password: str | None, target: str = TARGET):
    return run(
        "decide",
        "C-1",
        "--target",
        target,
        "--accept",
        "--reason",
        "K+ 6.3 confirmed",
        "--user",
        user,
        "--json",
        password=password,
    )


def _decisions() -> int:
    with sqlite3.connect(paths.database_path()) as conn:
        return int(conn.execute("SELECT count(*) FROM decisions").fetchone()[0])


def test_a_decision_without_the_password_is_refused(installation: Repository, run) -> None:
    done = _decide(run, CLINICIAN, None)
    assert done.code == 1 and "no password" in done.err and _decisions() == 0


def test_a_decision_under_a_colleagues_name_with_a_wrong_password_is_refused_and_audited(
    installation: Repository,
    run,
) -> None:
    done = _decide(run, CLINICIAN, ANNOTATOR_PASSWORD)  # the annotator tries the clinician's name
    assert done.code == 1 and "wrong password" in done.err and _decisions() == 0
    last = installation.audit_rows()[-1]
    assert (last.action, last.entity) == ("sign-in failed", f"user:{CLINICIAN}")


def test_the_right_password_records_a_signed_decision(installation: Repository, run) -> None:
    done = _decide(run, CLINICIAN, PASSWORD)
    assert done.code == 0, done.err
    decision = done.json()["decision"]
    assert decision["user"] == CLINICIAN and decision["role"] == "clinician"
    assert decision["signature"] and done.json()["counts_for_signoff"] is True


def test_an_annotator_records_labels_that_never_count_towards_sign_off(
    installation: Repository,
    run,
) -> None:
    before = required_ids(run)
    decide_all(run, ANNOTATOR, ANNOTATOR_PASSWORD)
    assert _decisions() == len(before)  # the labels are kept ...
    assert required_ids(run) == before  # ... and count for nothing
    assert run("show", "C-1", "--json").json()["status"] == "needs review"
    signed = run(
        "export-pdf", "C-1", "--user", ANNOTATOR, "--out", "x.pdf", password=ANNOTATOR_PASSWORD
    )
    assert signed.code == 1 and "only a clinician can sign" in signed.err
    labels = paths.concord_home() / "labels.jsonl"
    exported = run(
        "export-labels", "--out", str(labels), "--user", ANNOTATOR, password=ANNOTATOR_PASSWORD
    )
    assert exported.code == 0, exported.err
    rows = [json.loads(line) for line in labels.read_text().splitlines()]
    assert {r["role"] for r in rows} == {"annotator"} and len(rows) == len(before)


def test_an_admin_does_not_decide(installation: Repository, run) -> None:
    done = _decide(run, ADMIN, ADMIN_PASSWORD)
    assert done.code == 1 and "admins manage users" in done.err and _decisions() == 0


def test_users_add_needs_an_admin_and_their_password(installation: Repository, run) -> None:
    no_admin = run(
        "users", "add", "Dr Mallory", "--role", "clinician", password="rounds-at-dawn-daily"
    )
    assert no_admin.code == 1 and "only an admin can add users" in no_admin.err
    by_clinician = run(
        "users",
        "add",
        "Dr Mallory",
        "--role",
        "clinician",
        "--admin",
        CLINICIAN,
        password="rounds-at-dawn-daily",
        admin_password=PASSWORD,
    )
    assert by_clinician.code == 1 and "only a admin can add users" in by_clinician.err
    wrong = run(
        "users",
        "add",
        "Dr Mallory",
        "--role",
        "clinician",
        "--admin",
        ADMIN,
        password="rounds-at-dawn-daily",
        admin_password="not-the-admin-password",
    )
    assert wrong.code == 1 and "wrong password" in wrong.err
    assert "Dr Mallory" not in {u.name for u in installation.list_users()}
    ok = run(
        "users",
        "add",
        "Dr Mallory",
        "--role",
        "clinician",
        "--admin",
        ADMIN,
        "--json",
        password="rounds-at-dawn-daily",
        admin_password=ADMIN_PASSWORD,
    )
    assert ok.code == 0, ok.err
    assert ok.json()["enrolled_by"] == ADMIN and ok.json()["fingerprint"]


def test_a_homoglyph_of_an_existing_user_is_refused(installation: Repository, run) -> None:
    for twin in (
        "Dr Smіth",
        "DR SMlTH",
        "Dr Srnith",
        "Dr Smith\u200b",
        "Ｄｒ Ｓｍｉｔｈ",
        "Dr  Smith",
    ):
        done = run(
            "users",
            "add",
            twin,
            "--role",
            "clinician",
            "--admin",
            ADMIN,
            password="rounds-at-dawn-daily",
            admin_password=ADMIN_PASSWORD,
        )
        assert done.code == 1, twin
        assert any(
            why in done.err
            for why in ("mistaken for the existing user", "mixes", "invisible", "already exists")
        ), done.err
    assert sorted(u.name for u in installation.list_users()) == [ANNOTATOR, ADMIN, CLINICIAN]


def test_weak_and_common_passwords_are_refused(installation: Repository, run) -> None:
    for weak, why in (
        ("12345678", "too short"),
        ("password1234", "most common"),
        ("Dr Jones2025!", "user name"),
        ("aaaaaaaaaaaaaaaa", "too weak"),
    ):
        done = run(
            "users",
            "add",
            "Dr Jones",
            "--role",
            "clinician",
            "--admin",
            ADMIN,
            password=weak,
            admin_password=ADMIN_PASSWORD,
        )
        assert done.code == 1 and why in done.err, (weak, done.err)
