"""What an admin decides stays the admin's (issue 28, items 2 and 8): the lock timeout and the
llama.cpp server allow-list are settings an admin signs into the audit chain, not a user's
environment or a file in the data folder; online sign-in backs off after failures; a name
cannot carry what Concord prints beside names ("(not signed in)")."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest

from concord import netguard, paths
from concord.accounts import session
from concord.accounts.session import FREE_ATTEMPTS, backoff_seconds
from concord.accounts.settings import (
    DEFAULT_LOCK_MINUTES,
    LLAMA_SERVERS,
    LOCK_MINUTES,
    allowed_servers,
    lock_minutes,
)
from concord.pki.credentials import statement_bytes
from concord.store import Repository, write_transaction
from concord.store.audit import append_audit
from tests.cli.test_audit_attacks import verify
from tests.identity import ADMIN, ADMIN_PASSWORD, PASSWORD
from tests.installation import ANNOTATOR, ANNOTATOR_PASSWORD, CLINICIAN


def _set(run, key: str, value: str, admin: str = ADMIN, password: str = ADMIN_PASSWORD):
    return run("settings", "set", key, value, "--admin", admin, "--json", admin_password=password)


# -- the lock timeout -----------------------------------------------------------------------


def test_the_lock_timeout_is_the_admins_setting_not_the_environment(
    installation: Repository, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONCORD_LOCK_MINUTES", "0")  # what turned locking off before
    assert lock_minutes(installation) == DEFAULT_LOCK_MINUTES
    done = _set(run, LOCK_MINUTES, "5")
    assert done.code == 0, done.err
    assert lock_minutes(installation) == 5.0
    shown = run("settings", "show", "--json").json()
    assert shown[LOCK_MINUTES] | {"at": None} == {"value": 5.0, "set_by": ADMIN, "at": None}


@pytest.mark.parametrize("value", ["0", "nan", "inf", "-3", "61", "ten"])
def test_the_lock_cannot_be_turned_off(installation: Repository, run, value: str) -> None:
    done = _set(run, LOCK_MINUTES, value)
    assert done.code == 1 and "lock_minutes must be" in done.err
    assert lock_minutes(installation) == DEFAULT_LOCK_MINUTES


def test_only_an_admin_sets_a_setting_and_a_forged_one_is_ignored_and_reported(
    installation: Repository, run
) -> None:
    refused = _set(run, LOCK_MINUTES, "59", ANNOTATOR, ANNOTATOR_PASSWORD)
    assert refused.code == 1 and "only a admin can change installation settings" in refused.err
    from concord.accounts.session import sign_in

    annotator = sign_in(installation, ANNOTATOR, ANNOTATOR_PASSWORD)
    statement = {"key": LOCK_MINUTES, "value": 60.0, "set_by": ADMIN, "at": "2026-11-27"}
    with write_transaction(installation.db):  # signed with the annotator's key, as the admin
        append_audit(
            installation.db.conn,
            user=ADMIN,
            action="setting",
            entity=f"setting:{LOCK_MINUTES}",
            new_value={
                "statement": statement,
                "signature": annotator.sign(statement_bytes(statement)),
            },
        )
    assert lock_minutes(installation) == DEFAULT_LOCK_MINUTES
    report = verify(run)
    assert not report["ok"]
    assert any(p["check"] == "settings" for p in report["problems"])


def test_the_desktop_lock_reads_the_setting_and_is_never_off(
    installation: Repository, run, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QWidget

    from concord.accounts.session import sign_in
    from concord.ui.signin import SessionLock

    assert _set(run, LOCK_MINUTES, "3").code == 0
    monkeypatch.setenv("CONCORD_LOCK_MINUTES", "0")
    window = QWidget()
    qtbot.addWidget(window)
    session = sign_in(installation, CLINICIAN, PASSWORD)
    assert SessionLock(window, session).minutes == 3.0
    for bad in (0.0, math.nan, -1.0):
        assert SessionLock(window, session, minutes=bad).minutes == DEFAULT_LOCK_MINUTES


# -- the server allow-list ------------------------------------------------------------------


def test_a_user_cannot_extend_the_server_list(
    installation: Repository, run, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """Any user can set CONCORD_LLAMA_SERVERS or write servers.json in the data folder:
    before, either allowed a server (where patient text would be sent)."""
    rogue = "http://10.66.6.6:8080"
    monkeypatch.setenv(netguard.SERVERS_ENV, rogue)
    (paths.concord_home() / netguard.SERVERS_FILE).write_text(json.dumps({"servers": [rogue]}))
    netguard.install_network_guard(signed=allowed_servers(installation))
    assert not netguard.is_allowed_url(rogue)
    assert "not on the admin-signed server list" in str(netguard.config_error())
    batch = run("run", "--batch", str(tmp_path), "--servers", rogue, "--user", CLINICIAN,
                password=PASSWORD)  # fmt: skip
    assert batch.code == 1 and "admin-signed" in batch.err
    assert _set(run, LLAMA_SERVERS, rogue, ANNOTATOR, ANNOTATOR_PASSWORD).code == 1

    good = "http://10.20.0.15:8080"
    done = _set(run, LLAMA_SERVERS, f"{good},http://10.20.0.16:8080")
    assert done.code == 0, done.err
    assert allowed_servers(installation) == [good, "http://10.20.0.16:8080"]
    monkeypatch.setenv(netguard.SERVERS_ENV, good)  # narrowing the signed list is fine
    (paths.concord_home() / netguard.SERVERS_FILE).unlink()
    netguard.install_network_guard(signed=allowed_servers(installation))
    assert netguard.is_allowed_url(good) and netguard.config_error() is None


# -- sign-in back-off -----------------------------------------------------------------------


def test_online_sign_in_backs_off_after_failures(
    installation: Repository, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an hour's wait, not 2 s: a slow machine must not let the wait run out before the next
    # attempt (the wait is ended below by moving the failures back in time)
    monkeypatch.setattr(session, "FIRST_WAIT_SECONDS", 3600.0)

    def decide(password: str):
        return run("decide", "C-1", "--target", "gate/hyperkalaemia", "--accept", "--reason",
                   "ok", "--user", CLINICIAN, password=password)  # fmt: skip

    for _ in range(FREE_ATTEMPTS):
        assert "wrong password" in decide("not-the-password-at-all").err
    refused = decide(PASSWORD)  # even the right password waits: nothing is tried
    assert refused.code == 1 and "too many failed sign-ins" in refused.err
    assert "try again in" in refused.err
    assert installation.decisions(case_id="C-1") == []
    last = installation.audit_rows()[-1]
    assert last.action == "sign-in failed" and last.reason.startswith("too many failed")
    # once the wait is over (the last failure moved back in time), the right password works
    conn = sqlite3.connect(paths.database_path())
    conn.execute("DROP TRIGGER audit_no_update")
    conn.execute(
        "UPDATE audit SET at = '2000-01-01T00:00:00+00:00' WHERE action = 'sign-in failed'"
    )
    conn.commit()
    conn.close()
    assert decide(PASSWORD).code == 0
    actions = [row.action for row in installation.audit_rows()]
    last_failure = len(actions) - 1 - actions[::-1].index("sign-in failed")
    assert "sign-in after failures" in actions[last_failure:]  # written at the sign-in
    assert "wrong password" in decide("not-the-password-at-all").err  # the count started over


def test_the_wait_doubles_and_is_capped() -> None:
    waits = [backoff_seconds(n) for n in range(FREE_ATTEMPTS + 12)]
    assert waits[:FREE_ATTEMPTS] == [0.0] * FREE_ATTEMPTS
    assert waits[FREE_ATTEMPTS : FREE_ATTEMPTS + 3] == [2.0, 4.0, 8.0]
    assert max(waits) == 900.0


# -- names that look like Concord's own notes -----------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["root (not signed in)", "Dr Jones not signed in", "Dr [Smith]", "<unknown>", "—", "Dr «Who»"],
)
def test_a_placeholder_cannot_be_part_of_an_enrolled_name(
    installation: Repository, run, name: str
) -> None:
    done = run("users", "add", name, "--role", "annotator", "--admin", ADMIN,
               admin_password=ADMIN_PASSWORD, password="a-long-enough-phrase-here")  # fmt: skip
    assert done.code == 1 and done.err.startswith("concord: error: ")
    assert name not in {u.name for u in installation.list_users()}


@pytest.mark.parametrize("name", ["Dr O'Neil", "Dr O’Neil-Smith", "Ann-Marie St. John"])
def test_ordinary_names_are_still_enrolled(installation: Repository, run, name: str) -> None:
    done = run("users", "add", name, "--role", "annotator", "--admin", ADMIN,
               admin_password=ADMIN_PASSWORD, password="a-long-enough-phrase-here")  # fmt: skip
    assert done.code == 0, done.err
