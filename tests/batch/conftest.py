"""Loopback servers for the batch tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.llm.fake_llama_server import FakeLlamaServer, loopback_works, started_servers


@pytest.fixture(autouse=True)
def _loopback() -> None:
    if not loopback_works():
        pytest.skip("loopback is down (a network namespace without `ip link set lo up`)")


@pytest.fixture
def fake_servers() -> Iterator[list[FakeLlamaServer]]:
    """Servers a test starts (each allows its own URL in the network guard); all are
    stopped at the end."""
    with started_servers() as started:
        yield started
