"""Who an import or a run from the command line is attributed to: once anyone is enrolled, a
signed-in user (password from CONCORD_PASSWORD or the prompt), as for a decision; before
anyone is (a fresh installation, the demo), the login name marked as not signed in."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from concord.accounts.revocation import revoke_user
from concord.store import Repository
from tests.identity import PASSWORD, admin_session
from tests.installation import ANNOTATOR, ANNOTATOR_PASSWORD, CLINICIAN

RECORD = Path(__file__).parents[1] / "fixtures" / "records" / "patient_a.txt"


def _import(run, *extra: str, password: str | None = None):
    return run("import", str(RECORD), "--json", *extra, password=password)


def _importers(repo: Repository) -> list[str]:
    return [str(r["imported_by"]) for r in repo.db.query("SELECT imported_by FROM records")]


def test_before_anyone_is_enrolled_the_login_name_is_marked_not_signed_in(
    repo: Repository, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CONCORD_USER", raising=False)
    done = _import(run)
    assert done.code == 0, done.err
    expected = f"{getpass.getuser()} (not signed in)"
    assert _importers(repo) == [expected]
    assert repo.audit_rows()[-1].user == expected


def test_a_claimed_name_without_its_password_imports_nothing(installation: Repository, run) -> None:
    before = _importers(installation)
    done = _import(run, "--user", CLINICIAN)
    assert done.code == 1 and "no password" in done.err
    wrong = _import(run, "--user", CLINICIAN, password=ANNOTATOR_PASSWORD)
    assert wrong.code == 1 and "wrong password" in wrong.err
    assert _importers(installation) == before


def test_a_signed_in_user_is_the_importer(installation: Repository, run) -> None:
    done = _import(run, "--user", ANNOTATOR, password=ANNOTATOR_PASSWORD)
    assert done.code == 0, done.err
    assert _importers(installation)[-1] == ANNOTATOR
    assert installation.audit_rows()[-1].user == ANNOTATOR


def test_the_environment_names_the_user_as_in_the_app(
    installation: Repository, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONCORD_USER", CLINICIAN)
    done = _import(run, password=PASSWORD)
    assert done.code == 0, done.err
    assert _importers(installation)[-1] == CLINICIAN


def test_a_revoked_user_imports_nothing(installation: Repository, run) -> None:
    revoke_user(installation, CLINICIAN, "left", admin=admin_session(installation))
    before = _importers(installation)
    done = _import(run, "--user", CLINICIAN, password=PASSWORD)
    assert done.code == 1 and "revoked" in done.err
    assert _importers(installation) == before
