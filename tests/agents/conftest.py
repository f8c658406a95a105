"""A demo-sized record (four documents, ~1.7k tokens) and the bundled profiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from concord.agents.profiles import AgentProfile, assign_gates, load_profiles
from concord.domain.record import Record, SourceDocument
from concord.screen.record_screen import RecordScreen

DATA = Path(__file__).parent / "data"


def demo_record() -> Record:
    documents = tuple(
        SourceDocument(
            source_id=path.name,
            title=path.stem.replace("_", " "),
            kind="txt",
            text=path.read_text(encoding="utf-8"),
        )
        for path in sorted(DATA.glob("*.txt"))
    )
    return Record(name="demo patient", documents=documents)


@pytest.fixture
def record() -> Record:
    return demo_record()


@pytest.fixture(scope="session")
def profiles() -> dict[str, AgentProfile]:
    """The bundled profiles, each with the gates the gate files say it owns."""
    return assign_gates(load_profiles(), RecordScreen.load().owners())
