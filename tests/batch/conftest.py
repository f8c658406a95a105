"""Loopback servers for the batch tests."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

import pytest

from concord import netguard

from .fake_server import FakeLlamaServer


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def loopback_works() -> bool:
    try:
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            netguard.allow([f"http://127.0.0.1:{listener.getsockname()[1]}"])
            socket.create_connection(listener.getsockname(), timeout=2).close()
    except OSError:
        return False
    return True


@pytest.fixture(autouse=True)
def _loopback() -> None:
    if not loopback_works():
        pytest.skip("loopback is down (a network namespace without `ip link set lo up`)")


@pytest.fixture
def fake_servers() -> Iterator[list[FakeLlamaServer]]:
    """Servers a test starts; each is on the network guard's allow-list (the guard may be
    installed in this process by an earlier in-process `concord` command)."""
    started: list[FakeLlamaServer] = []
    yield started
    for server in started:
        with contextlib.suppress(OSError):
            server.stop()
