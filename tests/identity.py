"""Enrolled users and signed-in sessions for tests (the same code path as `concord users add`).

The root conftest lowers the scrypt cost for speed; tests/pki measures the real one."""

from __future__ import annotations

from concord.accounts.enrolment import enrol_user
from concord.accounts.session import Session, sign_in
from concord.domain import UserRole
from concord.store import Repository

ADMIN = "Dr Admin"
ADMIN_PASSWORD = "ward-round-at-seven"
PASSWORD = "theatre-list-monday"


def admin_session(repo: Repository) -> Session:
    """The installation's admin, enrolled first if nobody is."""
    if not any(u.enrolled for u in repo.list_users()):
        enrol_user(repo, ADMIN, UserRole.ADMIN, ADMIN_PASSWORD, admin=None)
    return sign_in(repo, ADMIN, ADMIN_PASSWORD)


def enrol(
    repo: Repository, name: str, role: UserRole | str = UserRole.CLINICIAN, password: str = PASSWORD
) -> Session:
    """Enrol `name` (by the admin) and return their session."""
    enrol_user(repo, name, role, password, admin=admin_session(repo))
    return sign_in(repo, name, password)
