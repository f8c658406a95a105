from __future__ import annotations

import pytest

from concord.errors import InputError, NotFoundError
from concord.store import Repository, UserRole
from tests.identity import ADMIN, enrol


def test_enrolled_users_are_stored_with_key_skeleton_and_enroller(repo: Repository) -> None:
    enrol(repo, "dr.jones", "clinician")
    enrol(repo, "ann", UserRole.ANNOTATOR)
    user = repo.get_user("dr.jones")
    assert user.role is UserRole.CLINICIAN and user.enrolled
    assert user.created_at.utcoffset() is not None
    assert user.cert_fingerprint is not None and len(user.cert_fingerprint) == 64
    assert user.enrolled_by == ADMIN and user.skeleton == "drjones"
    assert repo.get_user("ann").cert_fingerprint is None
    assert [u.name for u in repo.list_users()] == [ADMIN, "ann", "dr.jones"]
    last = repo.audit_rows()[-1]
    assert (last.action, last.entity, last.user) == ("user enrol", "user:ann", ADMIN)
    assert '"public_key"' in (last.new_value or "") and '"signature"' in (last.new_value or "")


def test_the_same_skeleton_twice_is_refused_by_the_table_itself(repo: Repository) -> None:
    """The unique index on the skeleton is the backstop behind the confusables check."""
    enrol(repo, "dr.jones", "clinician")
    statement = {
        "name": "Dr.Jones",
        "role": "admin",
        "skeleton": "drjones",
        "public_key": "x",
        "cert_fingerprint": None,
        "enrolled_by": ADMIN,
        "at": "2025-01-01T00:00:00.000000+00:00",
    }
    with pytest.raises(InputError, match="already exists"):
        repo.enrol_user(statement, "sig", legacy=False)
    assert [u.name for u in repo.list_users()] == [ADMIN, "dr.jones"]


def test_unknown_user_names_the_user(repo: Repository) -> None:
    with pytest.raises(NotFoundError, match="nobody"):
        repo.get_user("nobody")
