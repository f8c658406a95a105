"""A password change gives new credentials (issue 28, item 2): new keys, for a clinician a
new certificate, registered in the audit chain; a kept copy of the old credential file with
the old password no longer signs anyone in, and what the old keys signed before the change
stays valid."""

from __future__ import annotations

from pathlib import Path

from concord import paths
from concord.accounts.revocation import revoke_user
from concord.accounts.session import revocation_of, sign_in
from concord.accounts.settings import LOCK_MINUTES, lock_minutes, set_setting
from concord.pki.keys import credential_path
from concord.store import Repository
from tests.cli.test_audit_attacks import verify
from tests.identity import ADMIN, ADMIN_PASSWORD, PASSWORD, admin_session
from tests.installation import ANNOTATOR, CLINICIAN, decide_all

NEW = "a-brand-new-passphrase-for-june"


def _passwd(run, name: str, old: str, new: str = NEW, *admin: str, monkeypatch=None):
    monkeypatch.setenv("CONCORD_NEW_PASSWORD", new)
    extra = ["--admin", admin[0]] if admin else []
    return run("users", "passwd", name, *extra, password=old, admin_password=ADMIN_PASSWORD)


def _decide(run, password: str, reason: str = "checked again"):
    return run("decide", "C-1", "--target", "gate/hyperkalaemia", "--accept", "--reason", reason,
               "--user", CLINICIAN, password=password)  # fmt: skip


def test_the_old_credential_file_and_password_stop_working(
    installation: Repository, run, monkeypatch, tmp_path: Path
) -> None:
    home = paths.concord_home()
    key_file = credential_path(home, CLINICIAN)
    old_file = key_file.read_bytes()
    before = installation.get_user(CLINICIAN)
    assert _decide(run, PASSWORD).code == 0
    done = _passwd(run, CLINICIAN, PASSWORD, NEW, ADMIN, monkeypatch=monkeypatch)
    assert done.code == 0, done.err
    after = installation.get_user(CLINICIAN)
    assert after.public_key != before.public_key
    assert after.cert_fingerprint != before.cert_fingerprint  # a new signing certificate
    assert key_file.read_bytes() != old_file

    assert _decide(run, PASSWORD).code == 1  # the old password does not open the new file
    new_file = key_file.read_bytes()
    key_file.write_bytes(old_file)  # the kept copy put back, with the old password
    stale = _decide(run, PASSWORD)
    assert stale.code == 1 and "not the one registered" in stale.err
    key_file.write_bytes(new_file)
    assert _decide(run, NEW, "after the change").code == 0
    report = verify(run)  # decisions before and after verify, each with its key in force
    assert report["ok"], report["problems"]


def test_a_pdf_signed_before_the_change_stays_valid(
    installation: Repository, run, monkeypatch, tmp_path: Path
) -> None:
    decide_all(run)
    first = tmp_path / "first.pdf"
    assert run("export-pdf", "C-1", "--user", CLINICIAN, "--out", str(first),
               password=PASSWORD).code == 0  # fmt: skip
    assert _passwd(run, CLINICIAN, PASSWORD, NEW, ADMIN, monkeypatch=monkeypatch).code == 0
    assert _decide(run, NEW).code == 0
    second = tmp_path / "second.pdf"
    signed = run("export-pdf", "C-1", "--user", CLINICIAN, "--out", str(second), password=NEW)
    assert signed.code == 0, signed.err
    for pdf in (first, second):
        checked = run("verify-pdf", str(pdf), "--json").json()
        assert checked["valid"] and checked["registered"]["fingerprint_matches"], checked
    assert verify(run, "--pdfs", str(tmp_path))["ok"]


def test_a_non_admins_new_credentials_are_issued_by_an_admin(
    installation: Repository, run, monkeypatch
) -> None:
    alone = _passwd(run, ANNOTATOR, "label-queue-tuesday", NEW, monkeypatch=monkeypatch)
    assert alone.code == 1 and "must be issued by an admin" in alone.err
    done = _passwd(run, ANNOTATOR, "label-queue-tuesday", NEW, ADMIN, monkeypatch=monkeypatch)
    assert done.code == 0, done.err
    assert sign_in(installation, ANNOTATOR, NEW).name == ANNOTATOR


def test_an_admin_changes_their_own_and_what_they_signed_stays_in_force(
    installation: Repository, run, monkeypatch
) -> None:
    admin = admin_session(installation)
    set_setting(installation, admin, LOCK_MINUTES, 7)
    revoke_user(installation, ANNOTATOR, "left", admin=admin)
    assert _passwd(run, ADMIN, ADMIN_PASSWORD, NEW, monkeypatch=monkeypatch).code == 0
    # signed with the admin's old key: still theirs
    assert lock_minutes(installation) == 7.0
    assert revocation_of(installation, ANNOTATOR) is not None
    renewed = sign_in(installation, ADMIN, NEW)
    assert renewed.credential.root_passphrase is not None  # can still enrol
    added = run("users", "add", "Dr New", "--role", "clinician", "--admin", ADMIN,
                admin_password=NEW, password="another-long-passphrase-x")  # fmt: skip
    assert added.code == 0, added.err
    assert verify(run)["ok"]
