"""The generated bench record: deterministic, grown to a token count, and its extracts."""

from __future__ import annotations

from concord.agents.prompts import build_record_block
from concord.bench.records import (
    alignment_extracts,
    alignment_record,
    bench_record,
    estimate_tokens,
)


def test_record_reaches_4k_tokens_by_the_conservative_estimate() -> None:
    made = bench_record(4096)
    block = build_record_block(made.record)
    assert made.counted_by.startswith("estimate")
    assert made.tokens == estimate_tokens(block) >= 4096


def test_record_is_grown_by_the_given_tokenizer() -> None:
    def by_chars(text: str) -> int:
        return len(text) // 2

    made = bench_record(6000, by_chars)
    assert made.counted_by == "model tokenizer"
    assert made.tokens == by_chars(build_record_block(made.record)) >= 6000


def test_record_is_deterministic_and_seeded() -> None:
    first, again = bench_record(2000), bench_record(2000)
    other = bench_record(2000, seed=99)
    assert first.record.content_hash == again.record.content_hash
    assert other.record.content_hash != first.record.content_hash
    assert first.record.operation


def test_record_triggers_a_gate() -> None:
    from concord.screen.record_screen import RecordScreen

    hits = RecordScreen.load().screen(bench_record(4096).record)
    assert "hyperkalaemia" in {h.gate_id for h in hits if h.status.value == "triggered"}


def test_alignment_record_and_extracts() -> None:
    record = alignment_record(120_000)
    assert sum(len(d.text) for d in record.documents) >= 120_000
    extracts = alignment_extracts(record, 20)
    assert len(extracts) == 20
    texts = {line.text.strip() for line in record.lines}
    assert extracts[0] in texts  # verbatim
    assert extracts[1] not in texts  # typo
    assert extracts[3] not in texts  # invented
