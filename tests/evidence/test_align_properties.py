"""Properties of align_extract: verbatim extracts are EXACT with a faithful span; every
aligned span satisfies the span invariant; changed numbers or units are never verified."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from concord.domain import AlignmentStatus, Record, SourceDocument
from concord.evidence.align import BLOCKING_FLAGS, FUZZY_THRESHOLD, align_extract
from concord.evidence.normalize import fold_case, normalize_whitespace
from concord.evidence.numbers import numeric_tokens

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


@settings(max_examples=300, deadline=None)
@given(docs=st.lists(texts, min_size=1, max_size=3), data=st.data())
def test_verbatim_substring_is_exact_and_span_is_faithful(
    docs: list[str], data: st.DataObject
) -> None:
    record = record_of(docs)
    which = data.draw(st.integers(0, len(docs) - 1))
    text = docs[which]
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    extract = text[start:end]
    assume(extract.strip())
    result = align_extract(record, mangle(extract, data), f"d{which}")
    assert result.start is not None and result.end is not None and result.source_id
    doc_text = record.document(result.source_id).text
    assert 0 <= result.start <= result.end <= len(doc_text)
    assert normalize_whitespace(doc_text[result.start : result.end]) == normalize_whitespace(
        extract
    )
    if result.status is not AlignmentStatus.EXACT:
        # only a number cut in half or a governing negation may stop a verbatim extract
        assert result.status is AlignmentStatus.FAILED
        assert BLOCKING_FLAGS & set(result.flags)
    assert result.verified == (result.status is AlignmentStatus.EXACT)


@settings(max_examples=300, deadline=None)
@given(docs=st.lists(texts, min_size=1, max_size=3), extract=texts)
def test_every_alignment_satisfies_the_span_invariant(docs: list[str], extract: str) -> None:
    record = record_of(docs)
    result = align_extract(record, extract, "d0")
    if result.status is AlignmentStatus.FAILED and result.start is None:
        assert result.end is None and not result.verified
        return
    assert result.source_id is not None
    assert result.start is not None and result.end is not None
    doc_text = record.document(result.source_id).text
    assert 0 <= result.start <= result.end <= len(doc_text)
    aligned = normalize_whitespace(doc_text[result.start : result.end])
    if result.status is AlignmentStatus.EXACT:
        assert aligned == normalize_whitespace(extract) and result.score == 100
    if result.status is AlignmentStatus.FUZZY:
        query = fold_case(normalize_whitespace(extract))
        score = fuzz.ratio(query, fold_case(aligned))
        assert score >= FUZZY_THRESHOLD
        assert abs(score - result.score) < 0.01


LABELS = ["K+", "Na", "Hb", "Platelets", "INR", "LVEF", "AVA", "mean gradient", "SpO2", "eGFR"]
UNITS = ["mmol/L", "g/L", "x10^9/L", "%", "cm2", "mmHg", "mg/dL", "/µL", ""]
UNIT_SWAPS = {
    "mmol/L": "mg/dL",
    "%": "mmHg",
    "mg/dL": "mmol/L",
    "mmHg": "%",
    "g/L": "g/dL",
    "x10^9/L": "/µL",
    "/µL": "x10^9/L",
    "cm2": "mm2",
}
numbers = st.from_regex(r"-?(0|[1-9][0-9]{0,2})(,[0-9]{3})?(\.[0-9]{0,1}[1-9])?", fullmatch=True)
lab_lines = st.tuples(st.sampled_from(LABELS), numbers, st.sampled_from(UNITS)).map(
    lambda t: f"{t[0]} {t[1]} {t[2]}".strip()
)
filler = st.sampled_from(
    ["Seen in clinic today.", "Plan: proceed.", "Hypertension on ramipril.", "Echo report:"]
)


@st.composite
def record_and_line(draw: st.DrawFn) -> tuple[Record, str]:
    lines = draw(st.lists(st.one_of(lab_lines, filler), min_size=1, max_size=12))
    line = draw(lab_lines)
    lines.insert(draw(st.integers(0, len(lines))), line)
    sep = draw(st.sampled_from(["\n", "\n\n", ". "]))
    return record_of([sep.join(lines)]), line


def _claim_absent(record: Record, extract: str) -> bool:
    """No line of the record states the same numbers and units as `extract`."""
    claim = numeric_tokens(extract)
    pieces = re.split(r"\n|\. ", record.documents[0].text)
    return all(numeric_tokens(piece) != claim for piece in pieces) and fold_case(
        normalize_whitespace(extract)
    ) not in fold_case(normalize_whitespace(record.documents[0].text))


@settings(max_examples=400, deadline=None)
@given(case=record_and_line(), data=st.data())
def test_changed_digit_is_never_verified(case: tuple[Record, str], data: st.DataObject) -> None:
    record, line = case
    digits = [m.start() for m in re.finditer(r"\d", line)]
    at = data.draw(st.sampled_from(digits))
    new = data.draw(st.sampled_from([d for d in "0123456789" if d != line[at]]))
    changed = line[:at] + new + line[at + 1 :]
    assume(_claim_absent(record, changed))
    result = align_extract(record, changed, "d0")
    assert not result.verified
    assert "number_mismatch" in result.flags


@settings(max_examples=300, deadline=None)
@given(
    case=record_and_line(),
    label=st.sampled_from(LABELS),
    number=numbers,
    unit=st.sampled_from(sorted(UNIT_SWAPS)),
    data=st.data(),
)
def test_swapped_unit_is_never_verified(
    case: tuple[Record, str], label: str, number: str, unit: str, data: st.DataObject
) -> None:
    record, _ = case
    lines = record.documents[0].text.split("\n")
    line = f"{label} {number} {unit}"
    lines.insert(data.draw(st.integers(0, len(lines))), line)
    record = record_of(["\n".join(lines)])
    changed = f"{label} {number} {UNIT_SWAPS[unit]}"
    assume(_claim_absent(record, changed))
    result = align_extract(record, changed, "d0")
    assert not result.verified
    assert "number_mismatch" in result.flags
