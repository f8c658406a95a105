"""The screen's corpus: every phrasing gives the expected status for its gate.

`corpus/<gate_id>.jsonl` holds phrasings written as clinics write them - positives
("triggered"), hard negatives ("negated": negated, a relative's, planned, resolved,
superseded, answered no...) and look-alikes that must not be read as the gate at all
("none": targets, thresholds, protocol text, other valves, other stents). `gates.jsonl`
holds the first corpus (one line per row with its gate). `distractors.jsonl` holds text
that must fire no gate. `records/` holds whole records with the gates they must and must
not trigger.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from concord.domain.gate import GateStatus
from concord.domain.record import Record, SourceDocument
from concord.records import load_record
from concord.screen.record_screen import RecordScreen
from tests.spec import SPEC_GATES

CORPUS = Path(__file__).parent / "corpus"
HEADER = "Planned surgery date: 2026-12-01\nDate: 2026-11-20\n"


def _rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if path.stem != "gates" and path.stem != "distractors":
                row["gate_id"] = path.stem
            row["file"] = path.name
            rows.append(row)
    return rows


ROWS = [r for r in _rows() if r["file"] != "distractors.jsonl"]
DISTRACTORS = [r["text"] for r in _rows() if r["file"] == "distractors.jsonl"]


@pytest.fixture(scope="module")
def screen() -> RecordScreen:
    return RecordScreen.load()


def record_of(text: str, *, header: bool = True) -> Record:
    body = (HEADER if header else "") + text + "\n"
    return Record(name="corpus", documents=(SourceDocument(source_id="d1", kind="txt", text=body),))


def status_of(screen: RecordScreen, gate_id: str, text: str, *, header: bool = True) -> str:
    for hit in screen.screen(record_of(text, header=header)):
        if hit.gate_id == gate_id:
            return hit.status.value
    return "none"


@pytest.mark.parametrize(
    "row", ROWS, ids=[f"{r['gate_id']}:{r['expect']}:{r['text'][:40]}" for r in ROWS]
)
def test_corpus_line(screen: RecordScreen, row: dict[str, Any]) -> None:
    got = status_of(screen, row["gate_id"], row["text"], header=row.get("header", True))
    assert got == row["expect"]


@pytest.mark.parametrize("text", DISTRACTORS, ids=[t[:40] for t in DISTRACTORS])
def test_distractor_fires_no_gate(screen: RecordScreen, text: str) -> None:
    fired = [h.gate_id for h in screen.screen(record_of(text)) if h.status is GateStatus.TRIGGERED]
    assert fired == []


def test_corpus_is_large_enough() -> None:
    counts = Counter((r["gate_id"], r["expect"]) for r in ROWS)
    for gate_id in SPEC_GATES:
        assert counts[(gate_id, "triggered")] >= 25, gate_id
        assert counts[(gate_id, "negated")] + counts[(gate_id, "none")] >= 15, gate_id
        assert counts[(gate_id, "negated")] >= 3, gate_id
    assert len(DISTRACTORS) >= 30


EXPECTED_RECORDS: dict[str, dict[str, list[str]]] = json.loads(
    (CORPUS / "records" / "expected.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("name", sorted(EXPECTED_RECORDS))
def test_whole_record(screen: RecordScreen, name: str) -> None:
    record = load_record(CORPUS / "records" / name)
    hits = screen.screen(record)
    triggered = {h.gate_id for h in hits if h.status is GateStatus.TRIGGERED}
    expected = EXPECTED_RECORDS[name]
    assert set(expected["triggered"]) <= triggered
    assert not set(expected["not_triggered"]) & triggered
    for hit in hits:
        for span in hit.evidence:
            assert record.document(span.source_id).text[span.start : span.end] == span.text
