"""Every phrasing in the corpus gives the expected status for its gate."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from concord.domain.record import Record, SourceDocument
from concord.screen.record_screen import RecordScreen

CORPUS = Path(__file__).parent / "corpus" / "gates.jsonl"
HEADER = "Planned surgery date: 2026-12-01\nDate: 2026-11-20\n"
ROWS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def screen() -> RecordScreen:
    return RecordScreen.load()


def _status(screen: RecordScreen, gate_id: str, text: str) -> str:
    record = Record(
        name="corpus",
        documents=(SourceDocument(source_id="d1", kind="txt", text=HEADER + text + "\n"),),
    )
    for hit in screen.screen(record):
        if hit.gate_id == gate_id:
            return hit.status.value
    return "none"


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['gate_id']}:{r['text'][:40]}" for r in ROWS])
def test_corpus_line(screen: RecordScreen, row: dict[str, str]) -> None:
    assert _status(screen, row["gate_id"], row["text"]) == row["expect"]


def test_corpus_is_large_enough(screen: RecordScreen) -> None:
    counts = Counter((r["gate_id"], r["expect"]) for r in ROWS)
    for gate_id in screen.definitions:
        assert counts[(gate_id, "triggered")] >= 8, gate_id
        assert counts[(gate_id, "negated")] + counts[(gate_id, "none")] >= 4, gate_id
        assert counts[(gate_id, "negated")] >= 1, gate_id
