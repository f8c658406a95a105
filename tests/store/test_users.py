from __future__ import annotations

import pytest

from concord.errors import InputError, NotFoundError
from concord.store import Repository, UserRole


def test_add_get_and_list_users(repo: Repository) -> None:
    repo.add_user("dr.jones", "clinician")
    repo.add_user("ann", UserRole.ANNOTATOR)
    user = repo.get_user("dr.jones")
    assert user.role is UserRole.CLINICIAN
    assert user.created_at.utcoffset() is not None
    assert user.cert_fingerprint is None
    assert [u.name for u in repo.list_users()] == ["ann", "dr.jones"]


def test_duplicate_user_is_an_input_error(repo: Repository) -> None:
    repo.add_user("dr.jones", "clinician")
    with pytest.raises(InputError, match="dr.jones"):
        repo.add_user("dr.jones", "admin")
    assert repo.get_user("dr.jones").role is UserRole.CLINICIAN


def test_bad_role_and_empty_name_are_input_errors(repo: Repository) -> None:
    with pytest.raises(InputError, match="surgeon"):
        repo.add_user("x", "surgeon")
    with pytest.raises(InputError):
        repo.add_user("  ", "admin")


def test_certificate_fingerprint_is_set_and_audited(repo: Repository) -> None:
    repo.add_user("dr.jones", "clinician")
    repo.set_user_certificate("dr.jones", "ab" * 32)
    assert repo.get_user("dr.jones").cert_fingerprint == "ab" * 32
    last = repo.audit_rows()[-1]
    assert (last.action, last.entity) == ("user certificate", "user:dr.jones")


def test_unknown_user_names_the_user(repo: Repository) -> None:
    with pytest.raises(NotFoundError, match="nobody"):
        repo.get_user("nobody")
    with pytest.raises(NotFoundError, match="nobody"):
        repo.set_user_certificate("nobody", "ff")
