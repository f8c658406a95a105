"""Fixtures for the command-line tests (helpers in tests/installation.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from concord.store import Repository
from tests.installation import Ran, make_installation, make_run


@pytest.fixture
def run(capsys, monkeypatch) -> Callable[..., Ran]:
    return make_run(capsys, monkeypatch)


@pytest.fixture
def installation(repo: Repository) -> Repository:
    return make_installation(repo)
