"""Fixtures for the report tests; the case itself is built in report_fixtures.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from concord.domain import Case, Decision, Record
from concord.pki.credentials import Credential
from tests.report.report_fixtures import (
    build_case,
    build_decisions,
    build_record,
    credential_of,
    make_installation,
)


@pytest.fixture()
def record() -> Record:
    return build_record()


@pytest.fixture()
def case(record: Record) -> Case:
    return build_case(record)


@pytest.fixture()
def decisions(case: Case) -> list[Decision]:
    return build_decisions(case)


@pytest.fixture(scope="session")
def pki_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One installation with a root CA and the signer's key, shared (key generation is slow)."""
    home = tmp_path_factory.mktemp("concord-home")
    make_installation(home)
    return home


@pytest.fixture(scope="session")
def credential(pki_home: Path) -> Credential:
    """The signer's unlocked credential."""
    return credential_of(pki_home)
