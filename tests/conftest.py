"""Shared fixtures: the network guard for the whole suite; every test gets its own
CONCORD_HOME, and `repo` a fresh database there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from concord import netguard
from concord.store import Repository


@pytest.fixture(scope="session", autouse=True)
def network_guard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The application's network guard, installed once for the whole run (an audit hook
    cannot be removed): any test that tries an internet socket or a name lookup fails with
    PermissionError. No server is configured for the session, whatever the developer's
    environment says; a test that starts a loopback server allows its URL itself
    (`netguard.allow([url])`), as an administrator would list it in servers.json."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(netguard.SERVERS_ENV, raising=False)
        netguard.install_network_guard(home=tmp_path_factory.mktemp("no-servers"))
        yield


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
