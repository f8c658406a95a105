"""The verification corpus (tests/evidence/preop_corpus.py) through align_extract and
through `concord verify-extracts --json`: every faithful quote verified, no altered one,
and the diff names what each altered quote changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from concord.cli import main
from concord.domain import Alignment, Record
from concord.evidence.align import align_extract
from concord.records import load_record
from tests.evidence.preop_corpus import ALTERED, FAITHFUL, RECORD, Quote


@pytest.fixture(scope="module")
def record() -> Record:
    return load_record(RECORD)


def _span(record: Record, a: Alignment) -> str:
    assert a.source_id is not None and a.start is not None and a.end is not None
    return record.document(a.source_id).text[a.start : a.end]


def test_the_corpus_is_big_enough() -> None:
    assert len(FAITHFUL) >= 25 and len(ALTERED) >= 35
    assert len({q.text for q in FAITHFUL + ALTERED}) == len(FAITHFUL) + len(ALTERED)


@pytest.mark.parametrize("quote", FAITHFUL, ids=lambda q: q.text[:40])
def test_faithful_quote_is_verified(record: Record, quote: Quote) -> None:
    a = align_extract(record, quote.text, quote.source_id)
    assert a.verified, a
    assert a.source_id == quote.source_id and a.diff == ()
    if quote.flag:
        assert quote.flag in a.flags
    assert _span(record, a)  # a span of the record's own text


@pytest.mark.parametrize("quote", ALTERED, ids=lambda q: q.text[:40])
def test_altered_quote_is_not_verified(record: Record, quote: Quote) -> None:
    a = align_extract(record, quote.text, quote.source_id)
    assert not a.verified and a.status.value == "FAILED", a
    assert quote.flag in a.flags, a
    assert a.source_id == quote.source_id and a.diff, a
    if quote.change:
        assert quote.change in [(c.record, c.quote) for c in a.diff], a.diff
    assert _span(record, a)


def test_verify_extracts_json_carries_the_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quotes = FAITHFUL + ALTERED
    pack = tmp_path / "pack.jsonl"
    lines = [
        {"source_id": q.source_id, "locator": "", "extract_text": q.text, "tag": "T"}
        for q in quotes
    ]
    pack.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n")
    assert main(["verify-extracts", str(RECORD), str(pack), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["lines"]
    assert [row["verified"] for row in rows] == [q.verified for q in quotes]
    keys = {"index", "status", "verified", "source_id", "start", "end", "score", "flags", "diff"}
    for row, quote in zip(rows, quotes, strict=True):
        assert keys <= set(row)
        assert bool(row["diff"]) != quote.verified
        if quote.change:
            assert {"record": quote.change[0], "quote": quote.change[1]} in row["diff"]
