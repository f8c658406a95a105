"""Two more realistic records (tests/evidence/corpus/) through both ways a quote reaches
verification: a quote of the record's text (`align_extract`) and an agent's citation of a
line and a range of its words (`quote_span` widened to clauses, then `align_span`)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from concord.cli import main
from concord.domain import Alignment, Record, SourceDocument
from concord.evidence.align import align_extract, align_span
from concord.evidence.normalize import normalize_whitespace
from concord.evidence.quote import quote_span
from tests.evidence.corpus import halloway, osei_bonsu
from tests.evidence.preop_corpus import Quote

CORPORA = (halloway, osei_bonsu)
CASES = [(m, q) for m in CORPORA for q in m.FAITHFUL + m.ALTERED]
_RECORDS: dict[str, Record] = {}
_WORD = re.compile(r"\S+")


def record_of(corpus: ModuleType) -> Record:
    """The corpus record with its documents' text exactly as in the file (CRLF kept: the
    importer would turn it into LF)."""
    if corpus.__name__ not in _RECORDS:
        data = json.loads(Path(corpus.RECORD).read_text(encoding="utf-8"))
        documents = tuple(
            SourceDocument(source_id=d["source_id"], kind="txt", title=d["title"], text=d["text"])
            for d in data["documents"]
        )
        _RECORDS[corpus.__name__] = Record(name=data["name"], documents=documents)
    return _RECORDS[corpus.__name__]


def case_id(case: tuple[ModuleType, Quote]) -> str:
    corpus, quote = case
    return f"{corpus.__name__.rsplit('.', 1)[-1]}:{quote.text[:40]}"


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_record_is_realistic_in_size_and_each_corpus_big_enough(corpus: ModuleType) -> None:
    record = record_of(corpus)
    lines = sum(doc.text.count("\n") for doc in record.documents)
    assert 120 <= lines <= 250
    assert any("\r\n" in doc.text for doc in record.documents)
    assert len(corpus.FAITHFUL) >= 40 and len(corpus.ALTERED) >= 60
    texts = [q.text for q in corpus.FAITHFUL + corpus.ALTERED]
    assert len(set(texts)) == len(texts)


def _span(record: Record, a: Alignment) -> str:
    assert a.source_id is not None and a.start is not None and a.end is not None
    return record.document(a.source_id).text[a.start : a.end]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_quote_is_verified_exactly_when_it_is_the_records_words(
    case: tuple[ModuleType, Quote],
) -> None:
    corpus, quote = case
    record = record_of(corpus)
    a = align_extract(record, quote.text, quote.source_id)
    assert a.verified is quote.verified, a
    assert a.source_id == quote.source_id and _span(record, a)
    assert bool(a.diff) is not quote.verified, a.diff
    if quote.flag:
        assert quote.flag in a.flags, a
    if quote.change:
        assert quote.change in [(c.record, c.quote) for c in a.diff], a.diff


def _citation(record: Record, a: Alignment) -> tuple[str, Alignment] | None:
    """The agents' way to the same record text: its line and word range, widened by
    `quote_span`, checked by `align_span`; None when the text is not on one line."""
    assert a.source_id is not None and a.start is not None and a.end is not None
    lines = [
        ln for ln in record.lines if ln.source_id == a.source_id and ln.start <= a.start < ln.end
    ]
    if not lines or a.end > lines[0].end:
        return None
    line = lines[0]
    words = [(m.start() + line.start, m.end() + line.start) for m in _WORD.finditer(line.text)]
    first = next(k for k, (_, e) in enumerate(words) if e > a.start) + 1
    last = max(k for k, (s, _) in enumerate(words) if s < a.end) + 1
    start, end = quote_span(record, line, (first, last))
    return record.document(line.source_id).text[start:end], align_span(
        record, line.source_id, start, end
    )


def _folded(text: str) -> str:
    return normalize_whitespace(text).casefold()


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_a_citation_of_the_same_words_keeps_what_governs_them(corpus: ModuleType) -> None:
    """Each quote whose words are the record's (verified, or refused only for what it cut
    off) and lie on one line, cited as that line and word range: a faithful one is
    verified, and a cut one is verified only with what governs it inside the extract."""
    record = record_of(corpus)
    cited, wrong = 0, []
    for quote in corpus.FAITHFUL + corpus.ALTERED:
        a = align_extract(record, quote.text, quote.source_id)
        cut = {"context_cut", "negation_mismatch"} & set(a.flags)
        changed = {"word_mismatch", "number_mismatch", "row_join"} & set(a.flags)
        citation = _citation(record, a) if a.verified or (cut and not changed) else None
        if citation is None:
            continue
        cited += 1
        extract, alignment = citation
        kept = _folded(_span(record, a)) in _folded(extract)
        if quote.verified:
            ok = kept and alignment.verified
        else:
            governors = [_folded(c.record).strip(" :-") for c in a.diff]
            ok = kept and (not alignment.verified or all(g in _folded(extract) for g in governors))
        if not ok:
            wrong.append((quote.text, extract, alignment.flags))
    assert cited >= 60
    assert wrong == []


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_verify_extracts_command_gives_the_same_verdicts(
    corpus: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quotes = corpus.FAITHFUL + corpus.ALTERED
    pack = tmp_path / "pack.jsonl"
    lines = [
        {"source_id": q.source_id, "locator": "", "extract_text": q.text, "tag": "T"}
        for q in quotes
    ]
    pack.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n")
    assert main(["verify-extracts", str(corpus.RECORD), str(pack), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["lines"]
    assert [row["verified"] for row in rows] == [q.verified for q in quotes]
    assert all(bool(row["diff"]) != q.verified for row, q in zip(rows, quotes, strict=True))
