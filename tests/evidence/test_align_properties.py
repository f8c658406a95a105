"""Properties of align_extract.

On any text: every span is `text[start:end]` and a verified span says what the quote says.
On clinical records: a whole line, reformatted in any way that keeps its words, verifies;
one substituted word, one changed digit, one changed sign, or a dropped negation never
does, and the diff names the change.
"""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from concord.domain import AlignmentStatus, Record, SourceDocument
from concord.evidence.align import align_extract
from concord.evidence.normalize import normalize_whitespace
from concord.text.layout import soft_wraps
from tests.evidence.clinical_text import (
    NEGATED,
    clinical_record,
    digit_changed,
    loose,
    negation_dropped,
    reformatted,
    sign_changed,
    substituted,
)

_WORD_TEXT = (
    "patient denies chest pain K+ Na Hb platelets INR LVEF mmol/L g/L mg/dL % mmHg severe "
    "aortic stenosis no history of on ramipril with without resolved echo"
)
WORDS = _WORD_TEXT.split()
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEF0123456789 .,;:%/+-()\n\t"

texts = st.one_of(
    st.lists(
        st.one_of(
            st.sampled_from(WORDS),
            st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,2})?", fullmatch=True),
            st.sampled_from([" ", "  ", "\n", ".\n", ", ", "\n\n", "\t"]),
        ),
        min_size=1,
        max_size=60,
    ).map(" ".join),
    st.text(alphabet=ALPHABET, min_size=1, max_size=300),
)
whitespace = st.sampled_from([" ", "  ", "\n", "\t", " \n ", "\r\n"])


def record_of(texts_: list[str]) -> Record:
    docs = tuple(
        SourceDocument(source_id=f"d{i}", kind="txt", text=t) for i, t in enumerate(texts_)
    )
    return Record(name="r", documents=docs)


def mangle(extract: str, data: st.DataObject) -> str:
    """Each whitespace run replaced by random whitespace, plus some at both ends."""
    parts = extract.split()
    glue = [data.draw(whitespace) for _ in range(len(parts) + 1)]
    out = glue[0]
    for part, sep in zip(parts, glue[1:], strict=True):
        out += part + sep
    return out


def _without_stop(text: str) -> str:
    return text[:-1] if text.endswith(".") else text


@settings(max_examples=300, deadline=None)
@given(docs=st.lists(texts, min_size=1, max_size=3), extract=texts)
def test_every_alignment_satisfies_the_span_invariant(docs: list[str], extract: str) -> None:
    record = record_of(docs)
    result = align_extract(record, extract, "d0")
    if result.start is None:
        assert result.end is None and result.source_id is None and not result.verified
        return
    assert result.source_id is not None and result.end is not None
    doc_text = record.document(result.source_id).text
    assert 0 <= result.start <= result.end <= len(doc_text)
    aligned = doc_text[result.start : result.end]
    if result.status is AlignmentStatus.EXACT:
        assert normalize_whitespace(aligned) == normalize_whitespace(extract)
        assert result.score == 100
    if result.verified:
        assert _without_stop(loose(aligned)) == _without_stop(loose(extract))
        assert result.diff == ()
    else:
        assert result.status is AlignmentStatus.FAILED


@settings(max_examples=300, deadline=None)
@given(docs=st.lists(texts, min_size=1, max_size=3), data=st.data())
def test_verbatim_whole_words_verify_unless_their_context_is_cut(
    docs: list[str], data: st.DataObject
) -> None:
    record = record_of(docs)
    which = data.draw(st.integers(0, len(docs) - 1))
    words = list(re.finditer(r"\S+", docs[which]))
    assume(words)
    first = data.draw(st.integers(0, len(words) - 1))
    last = data.draw(st.integers(first, len(words) - 1))
    extract = docs[which][words[first].start() : words[last].end()]
    result = align_extract(record, mangle(extract, data), f"d{which}")
    assume("empty_extract" not in result.flags)  # a lone bullet: no words to quote
    assert result.start is not None and result.end is not None and result.source_id
    if result.verified:
        aligned = record.document(result.source_id).text[result.start : result.end]
        assert _without_stop(loose(aligned)) == _without_stop(loose(extract))
    else:
        assert {"context_cut", "row_join"} & set(result.flags), result


@settings(max_examples=400, deadline=None)
@given(case=clinical_record(), data=st.data())
def test_formatting_only_changes_still_verify(
    case: tuple[Record, list[str]], data: st.DataObject
) -> None:
    record, lines = case
    line = data.draw(st.sampled_from(lines))
    # A bare line of prose that ran to the paragraph's width, followed by this line, reads
    # as one sentence wrapped over two lines (concord.text.layout, the documented rule the
    # screen and the verifier share: "a suspected" / "COPD diagnosis" must keep its
    # qualifier); the quoted line is then not a whole clause of its own.
    text = record.documents[0].text
    at = text.find(line)
    assume(at <= 0 or (at - 1) not in soft_wraps(text))
    quote = data.draw(reformatted(line))
    result = align_extract(record, quote, "note")
    assert result.verified, (quote, result)
    assert result.status in (AlignmentStatus.EXACT, AlignmentStatus.FUZZY)
    aligned = record.documents[0].text[result.start : result.end]
    assert loose(_without_stop(aligned)) == loose(_without_stop(line))


def _meaning_changed(record: Record, changed: str) -> None:
    """The changed quote is nowhere in the record, so it must not be verified."""
    assume(loose(changed) not in loose(record.documents[0].text))
    result = align_extract(record, changed, "note")
    assert not result.verified, (changed, result)
    assert result.status is AlignmentStatus.FAILED
    if result.start is not None:
        assert result.diff, result


@settings(max_examples=300, deadline=None)
@given(case=clinical_record(), data=st.data())
def test_a_substituted_word_is_never_verified(
    case: tuple[Record, list[str]], data: st.DataObject
) -> None:
    record, lines = case
    line = data.draw(st.sampled_from(lines))
    assume(re.search(r"[^\W\d_]{2,}", line))
    _meaning_changed(record, data.draw(substituted(line)))


@settings(max_examples=300, deadline=None)
@given(case=clinical_record(), data=st.data())
def test_a_changed_digit_is_never_verified(
    case: tuple[Record, list[str]], data: st.DataObject
) -> None:
    record, lines = case
    line = data.draw(st.sampled_from([ln for ln in lines if re.search(r"\d", ln)] or lines))
    assume(re.search(r"\d", line))
    changed = data.draw(digit_changed(line))
    _meaning_changed(record, changed)
    assert "number_mismatch" in align_extract(record, changed, "note").flags


@settings(max_examples=300, deadline=None)
@given(case=clinical_record(), data=st.data())
def test_a_changed_sign_is_never_verified(
    case: tuple[Record, list[str]], data: st.DataObject
) -> None:
    record, lines = case
    line = data.draw(st.sampled_from([ln for ln in lines if re.search(r"\d", ln)] or lines))
    assume(re.search(r"\d", line))
    changed = data.draw(sign_changed(line))
    _meaning_changed(record, changed)
    assert "number_mismatch" in align_extract(record, changed, "note").flags


@settings(max_examples=200, deadline=None)
@given(case=clinical_record(), data=st.data())
def test_a_dropped_negation_is_never_verified(
    case: tuple[Record, list[str]], data: st.DataObject
) -> None:
    record, lines = case
    negated = [ln for ln in lines if ln in NEGATED]
    assume(negated)
    line = data.draw(st.sampled_from(negated))
    changed = data.draw(reformatted(negation_dropped(line)))
    result = align_extract(record, changed, "note")
    assert not result.verified, (changed, result)
    assert "negation_mismatch" in result.flags
    assert result.diff and result.diff[0].quote == ""
