"""Who is using the desktop."""

from __future__ import annotations

from concord.errors import ConcordError
from concord.store import Repository


def user_role(repo: Repository, user: str) -> str | None:
    """The user's role in the database, or None when the user is not registered."""
    try:
        return str(repo.get_user(user).role.value)
    except ConcordError:
        return None
