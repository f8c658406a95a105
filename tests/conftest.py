"""Shared fixtures: every test gets its own CONCORD_HOME, and `repo` a fresh database there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from concord.store import Repository


@pytest.fixture(autouse=True)
def concord_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "concord-home"
    home.mkdir()
    monkeypatch.setenv("CONCORD_HOME", str(home))
    return home


@pytest.fixture
def repo(concord_home: Path) -> Iterator[Repository]:
    repository = Repository.open()
    yield repository
    repository.close()
