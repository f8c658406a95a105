"""The wrapped-layout corpus (tests/evidence/wrapped_corpus.py): every faithful quote
verified across the wraps of re-wrapped prose, every meaning-changing one refused with the
flag that says why."""

from __future__ import annotations

import pytest

from concord.domain import Record, SourceDocument
from concord.evidence.align import align_extract
from tests.evidence.wrapped_corpus import CHANGED, DOCUMENTS, FAITHFUL, Quote


@pytest.fixture(scope="module")
def record() -> Record:
    documents = tuple(
        SourceDocument(source_id=source_id, kind="txt", text=text)
        for source_id, text in DOCUMENTS.items()
    )
    return Record(name="wrapped", documents=documents)


def test_the_corpus_is_big_enough_and_each_quote_is_the_records() -> None:
    assert len(FAITHFUL) >= 50 and len(CHANGED) >= 50
    keys = [(q.source_id, q.text) for q in FAITHFUL + CHANGED]
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("quote", FAITHFUL, ids=lambda q: q.text[:50])
def test_faithful_quote_is_verified(record: Record, quote: Quote) -> None:
    a = align_extract(record, quote.text, quote.source_id)
    assert a.verified, a
    assert a.source_id == quote.source_id and a.diff == ()
    if quote.flag:
        assert quote.flag in a.flags


@pytest.mark.parametrize("quote", CHANGED, ids=lambda q: q.text[:50])
def test_meaning_changing_quote_is_refused(record: Record, quote: Quote) -> None:
    a = align_extract(record, quote.text, quote.source_id)
    assert not a.verified, a
    assert a.source_id == quote.source_id, a
    assert quote.flag in a.flags, a
    assert a.diff, a
