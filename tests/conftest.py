"""Shared fixtures: the network guard for the whole suite; every test gets its own
CONCORD_HOME, and `repo` a fresh database there."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from concord import netguard
from concord.llm.default_model import DEFAULT_MODEL_NAME
from concord.llm.registry import ModelEntry, ModelStore
from concord.store import Repository

settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
"""CI runs the property tests on hypothesis's fixed examples (`--hypothesis-profile=ci`,
.ci/run): a failure there is the code's, reproducible, never a new random draw; a developer's
run explores new examples each time, and what it finds becomes a pinned example. No deadline
per example there: a machine that stalls a quarter of a second is not a defect."""

SIGN_IN_ENV = ("CONCORD_USER", "CONCORD_PASSWORD")

REAL_MODEL_FIXTURES = frozenset({"default_entry"})
"""Fixtures that hand a test the real default GGUF: a test that uses one, directly or through
another fixture, runs the real model."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses the real model `real_model`, whether or not its module says
    so, so that `-m "not real_model"` reliably leaves the model out."""
    for item in items:
        if REAL_MODEL_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.real_model)


@pytest.fixture(autouse=True)
def no_user_left_behind() -> Iterator[None]:
    """A test that signs a user in through the environment (CONCORD_USER/CONCORD_PASSWORD,
    as `sign_server_list` does) leaves it as it found it: a later test's subprocess would
    otherwise sign in as that user in another installation ('no such user')."""
    before = {n: os.environ.get(n) for n in SIGN_IN_ENV}
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


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
def fast_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Credentials sealed at a low scrypt cost so the suite stays fast; the production cost
    (a wrong password costs >= ~100 ms) is measured in tests/pki/test_credentials.py."""
    monkeypatch.setattr("concord.pki.credentials.SCRYPT_N", 2**10)


_KEY_POOL: dict[int, list[object]] = {}
"""RSA keys made once for the whole run, by size: generating a 3072-bit key takes most of a
second, and the suite enrols hundreds of users."""


@pytest.fixture(autouse=True)
def pooled_rsa_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real RSA keys from a session-wide pool: within a test every key is a different one
    (the pool grows when a test needs more), across tests they are reused. Key generation
    itself is what `cryptography` does; only its cost is shared."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    generate = rsa.generate_private_key
    taken: dict[int, int] = {}

    def pooled(public_exponent: int, key_size: int, backend: object = None) -> object:
        pool = _KEY_POOL.setdefault(key_size, [])
        index = taken.get(key_size, 0)
        if index == len(pool):
            pool.append(generate(public_exponent=public_exponent, key_size=key_size))
        taken[key_size] = index + 1
        return pool[index]

    monkeypatch.setattr(rsa, "generate_private_key", pooled)


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


@pytest.fixture(scope="session")
def default_entry() -> ModelEntry:
    """The default model from the real store, verified; skips when it is not installed."""
    from concord.errors import ModelError

    try:
        store = ModelStore.open()
        entry = store.resolve(DEFAULT_MODEL_NAME)
        store.verify(entry)
    except ModelError as exc:
        pytest.skip(
            f"default model not installed in the model store ({exc}); install it with "
            "`python -m concord.llm.default_model`"
        )
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        pytest.skip("llama-cpp-python is not installed")
    return entry
