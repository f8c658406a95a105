"""Agents cannot misquote: an evidence item names a line (and maybe some of its words), the
schema has no place for text of the model's, and code takes the quote from the record,
widened to whole clauses, so it always verifies and never drops a governing negation."""

from __future__ import annotations

import json
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from concord.agents.convert import evidence_for
from concord.agents.output import InvalidOutput, OutputContext, parse_brief
from concord.agents.profiles import AgentProfile
from concord.agents.schema import brief_schema, line_ids, line_word_counts
from concord.domain import Record, SourceDocument
from tests.evidence.clinical_text import NEGATED, PROSE, clinical_record

NOTE = (
    "Seen today. No history of\n"
    "bleomycin exposure. Smoker, 20 pack years.\n"
    "Echo: severe aortic stenosis, AVA 0.8 cm2,\n"
    "mean gradient 45 mmHg.\n"
    "  Potassium     6.3   H   (3.5-5.3)  mmol/L\n"
    "Chest pain: none\n"
)


def note_record(text: str = NOTE) -> Record:
    return Record(name="n", documents=(SourceDocument(source_id="n", kind="txt", text=text),))


def line(record: Record, starts: str) -> str:
    return next(ln.line_id for ln in record.lines if ln.text.strip().startswith(starts))


def context(record: Record, profile: AgentProfile) -> OutputContext:
    return OutputContext(
        line_ids=frozenset(line_ids(record)),
        tags=frozenset(profile.tags),
        gate_ids=frozenset(profile.gate_ids),
        specialist_ids=frozenset(),
        max_items=profile.max_items.model_dump(),
        line_words=line_word_counts(record),
    )


def answer(evidence: dict) -> str:
    risk = {"text": "risk", "cites": [evidence["line"]]}
    empty: list[object] = []
    return json.dumps(
        {
            "evidence": [evidence],
            "top_risks": [risk],
            "actions": empty,
            "triggers": empty,
            "monitoring": empty,
            "risk_scores": empty,
        }
    )


def test_the_schema_has_no_text_of_the_model_in_evidence(profiles: dict) -> None:
    record = note_record()
    item = brief_schema(profiles["cardiology"], record)["properties"]["evidence"]["items"]
    assert set(item["properties"]) == {"line", "tag", "comment", "words"}
    assert item["properties"]["line"] == {"enum": line_ids(record)}
    words = item["properties"]["words"]
    assert words["items"]["type"] == "integer" and words["minItems"] == words["maxItems"] == 2
    assert item["additionalProperties"] is False


def test_a_word_range_is_bounded_by_its_own_line_in_the_schema(profiles: dict) -> None:
    # The grammar follows `anyOf` (one object per word count) and enums, not an integer's
    # maximum: each line's object allows exactly the numbers of its own words.
    record = note_record()
    counts = line_word_counts(record)
    assert len(set(counts.values())) > 1
    item = brief_schema(profiles["cardiology"], record)["properties"]["evidence"]["items"]
    grouped: dict[str, list[int]] = {}
    for variant in item["anyOf"]:
        words = variant["properties"]["words"]["items"]["enum"]
        for line_id in variant["properties"]["line"]["enum"]:
            assert line_id not in grouped
            grouped[line_id] = words
        assert variant["required"] == item["required"]
        assert variant["additionalProperties"] is False
    assert grouped == {i: list(range(1, max(1, n) + 1)) for i, n in counts.items()}


def test_a_record_whose_lines_have_one_word_count_needs_no_alternatives(profiles: dict) -> None:
    record = note_record("Potassium six\nSodium low\n")
    item = brief_schema(profiles["cardiology"], record)["properties"]["evidence"]["items"]
    assert "anyOf" not in item
    assert item["properties"]["words"]["items"]["enum"] == [1, 2]


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ({"quote": "LVEF 60%"}, "quote"),
        ({"words": [3, 9]}, "not a range of line"),
        ({"words": [2, 1]}, "not a range of line"),
        ({"words": [0, 1]}, "not a range of line"),
    ],
)
def test_a_quote_or_a_word_range_outside_the_line_is_refused(
    profiles: dict, extra: dict, problem: str
) -> None:
    record = note_record()
    profile = profiles["cardiology"]
    evidence = {"line": line(record, "Chest pain"), "tag": profile.tags[0], "comment": "c"}
    with pytest.raises(InvalidOutput, match=problem):
        parse_brief(answer({**evidence, **extra}), context(record, profile))


@pytest.mark.parametrize(
    ("starts", "words", "quote"),
    [
        ("bleomycin", None, "No history of\nbleomycin exposure. Smoker, 20 pack years."),
        ("bleomycin", (1, 2), "No history of\nbleomycin exposure."),
        ("bleomycin", (4, 4), "Smoker, 20 pack years."),
        (
            "mean gradient",
            None,
            "Echo: severe aortic stenosis, AVA 0.8 cm2,\nmean gradient 45 mmHg.",
        ),
        ("Potassium", (2, 2), "Potassium     6.3   H   (3.5-5.3)  mmol/L"),
        ("Chest pain", (1, 2), "Chest pain: none"),
    ],
)
def test_code_quotes_whole_clauses_of_the_cited_line(
    starts: str, words: tuple[int, int] | None, quote: str
) -> None:
    record = note_record()
    cited = record.line_index[line(record, starts)]
    ev = evidence_for(record, "E1", cited, "TAG", "comment", words)
    assert ev.line.extract_text == quote
    assert ev.alignment.verified and ev.alignment.status.value == "EXACT"
    assert NOTE[ev.alignment.start : ev.alignment.end] == quote
    assert ev.line_id == cited.line_id and ev.line.locator == cited.line_id


@st.composite
def wrapped_letter(draw: st.DrawFn) -> Record:
    """Sentences of a clinic letter wrapped at a random width, as letters are."""
    sentences = draw(st.lists(st.sampled_from(NEGATED + PROSE), min_size=2, max_size=8))
    width = draw(st.integers(24, 80))
    text = textwrap.fill(". ".join(sentences) + ".", width=width)
    return note_record(text + "\n")


def _record_only(case: tuple[Record, list[str]]) -> Record:
    return case[0]


@settings(max_examples=200, deadline=None)
@given(
    record=st.one_of(wrapped_letter(), clinical_record().map(lambda case: case[0])), data=st.data()
)
def test_any_cited_line_and_word_range_gives_a_verified_verbatim_quote(
    record: Record, data: st.DataObject
) -> None:
    cited = data.draw(st.sampled_from(record.lines))
    count = len(cited.text.split())
    first = data.draw(st.integers(1, count))
    words = data.draw(st.sampled_from([None, (first, data.draw(st.integers(first, count)))]))
    ev = evidence_for(record, "E1", cited, "TAG", "", words)
    a = ev.alignment
    assert a.verified, (ev.line.extract_text, a)
    text = record.document(cited.source_id).text
    assert text[a.start : a.end] == ev.line.extract_text
    assert a.start <= cited.end and a.end >= cited.start  # the cited line is in the quote
