"""Named alignment cases: EXACT, FUZZY, FAILED, numbers, negation, context, sources, hints,
and the diff shown for what is not verified."""

from __future__ import annotations

from pathlib import Path

import pytest

from concord.domain import Alignment, AlignmentStatus, EvidenceLine, Record, SourceDocument
from concord.errors import InputError
from concord.evidence.align import align_extract, align_span, read_evidence_jsonl, verify_lines
from concord.evidence.normalize import normalize_whitespace

NOTE = """Bloods 12/03:
K+ 6.3 mmol/L (repeat pending), Na 139 mmol/L.
PMH: No history of bleomycin exposure.
Echo: severe aortic stenosis, AVA 0.8 cm2,
mean gradient 45 mmHg.
Denies chest pain.
Platelets 450 x10^9/L
"""
LETTER = "Cardiology letter: drug-eluting stent to LAD 3 months ago. K+ 3.9 mmol/L in clinic."


def make_record(**texts: str) -> Record:
    return Record(
        name="test",
        documents=tuple(SourceDocument(source_id=k, kind="txt", text=v) for k, v in texts.items()),
    )


@pytest.fixture
def record() -> Record:
    return make_record(note=NOTE, letter=LETTER)


def span_text(record: Record, alignment: Alignment) -> str:
    assert alignment.source_id is not None
    assert alignment.start is not None and alignment.end is not None
    return record.document(alignment.source_id).text[alignment.start : alignment.end]


def test_exact_with_mangled_whitespace_maps_to_original_text(record: Record) -> None:
    a = align_extract(
        record, "severe aortic   stenosis, AVA 0.8 cm2, mean\tgradient 45 mmHg", "note"
    )
    assert a.status is AlignmentStatus.EXACT and a.verified and a.score == 100
    assert span_text(record, a) == "severe aortic stenosis, AVA 0.8 cm2,\nmean gradient 45 mmHg"
    assert a.flags == ()


def changes(alignment: Alignment) -> list[tuple[str, str]]:
    return [(c.record, c.quote) for c in alignment.diff]


def test_potassium_3_6_against_6_3_is_never_verified(record: Record) -> None:
    a = align_extract(record, "K+ 3.6 mmol/L", "note")
    assert not a.verified
    assert a.status is AlignmentStatus.FAILED
    assert "number_mismatch" in a.flags
    assert span_text(record, a) == "K+ 6.3 mmol/L"
    assert changes(a) == [("6.3", "3.6")]


def test_potassium_verbatim_is_exact(record: Record) -> None:
    a = align_extract(record, "K+ 6.3 mmol/L", "note")
    assert a.status is AlignmentStatus.EXACT and a.verified


def test_truncated_number_is_a_mismatch(record: Record) -> None:
    a = align_extract(record, "Platelets 45", "note")
    assert not a.verified and "number_mismatch" in a.flags
    b = align_extract(record, "K+ 6", "note")
    assert not b.verified and "number_mismatch" in b.flags


def test_unit_swap_is_a_mismatch(record: Record) -> None:
    a = align_extract(record, "mean gradient 45 cmH2O", "note")
    assert not a.verified


def test_negated_mention_is_flagged_and_verified_when_quoted_whole(record: Record) -> None:
    a = align_extract(record, "No history of bleomycin", "note")
    assert a.status is AlignmentStatus.EXACT and a.verified
    assert "negated" in a.flags and "negation_mismatch" not in a.flags


def test_dropping_the_negation_is_never_verified(record: Record) -> None:
    a = align_extract(record, "bleomycin exposure", "note")
    assert not a.verified and a.status is AlignmentStatus.FAILED
    assert {"negated", "negation_mismatch", "context_cut"} <= set(a.flags)
    assert span_text(record, a) == "bleomycin exposure"
    assert changes(a) == [("No history of", "")]
    b = align_extract(record, "chest pain", "note")
    assert not b.verified and "negation_mismatch" in b.flags
    assert changes(b) == [("Denies", "")]


def test_adding_a_negation_is_never_verified() -> None:
    record = make_record(n="Reports exertional chest pain radiating to the left arm.")
    a = align_extract(record, "no exertional chest pain radiating to the left arm", "n")
    assert not a.verified and "negation_mismatch" in a.flags


def test_a_misspelt_word_is_not_the_same_words(record: Record) -> None:
    a = align_extract(record, "severe aortic stenossis, AVA 0.8 cm2", "note")
    assert a.status is AlignmentStatus.FAILED and not a.verified
    assert a.flags == ("word_mismatch",) and 90 <= a.score < 100
    assert span_text(record, a) == "severe aortic stenosis, AVA 0.8 cm2"
    assert changes(a) == [("stenosis", "stenossis")]


def test_fuzzy_is_case_insensitive(record: Record) -> None:
    a = align_extract(record, "DENIES CHEST PAIN", "note")
    assert a.status is AlignmentStatus.FUZZY and a.verified and a.score == 100
    assert span_text(record, a) == "Denies chest pain"
    assert a.diff == ()


def test_a_word_and_a_number_changed_are_both_shown(record: Record) -> None:
    a = align_extract(record, "severe aortic stenossis, AVA 0.6 cm2", "note")
    assert a.status is AlignmentStatus.FAILED and not a.verified
    assert {"number_mismatch", "word_mismatch"} <= set(a.flags)
    assert changes(a) == [("stenosis", "stenossis"), ("0.8", "0.6")]


def test_unrelated_sentence_fails(record: Record) -> None:
    a = align_extract(record, "The patient enjoys sailing on weekends with family", "note")
    assert a.status is AlignmentStatus.FAILED and not a.verified
    assert a.start is None and a.end is None and a.source_id is None


def test_unknown_source_searches_everything(record: Record) -> None:
    a = align_extract(record, "drug-eluting stent to LAD", "discharge.pdf")
    assert a.status is AlignmentStatus.EXACT and a.source_id == "letter"
    assert "unknown_source" in a.flags


def test_other_document_is_source_mismatch(record: Record) -> None:
    a = align_extract(record, "drug-eluting stent to LAD 3 months ago", "note")
    assert a.status is AlignmentStatus.EXACT and a.source_id == "letter"
    assert "source_mismatch" in a.flags and a.verified


def test_named_source_is_preferred() -> None:
    record = make_record(a="Hypertension on ramipril.", b="Hypertension on ramipril.")
    assert align_extract(record, "Hypertension on ramipril", "b").source_id == "b"
    assert align_extract(record, "Hypertension on ramipril", None).source_id == "a"


def test_clean_occurrence_beats_negated_one() -> None:
    record = make_record(n="No chest pain at rest.\nChest pain on exertion since May.")
    a = align_extract(record, "chest pain on exertion", "n")
    assert a.status is AlignmentStatus.FUZZY and a.verified  # case differs from the record


def test_line_hint_picks_the_nearer_occurrence() -> None:
    text = "INR 1.2\nWarfarin held.\nINR 1.2\n"
    record = make_record(n=text)
    a = align_extract(record, "INR 1.2", "n", line_hint="L3")
    assert a.start == text.rindex("INR 1.2")
    b = align_extract(record, "INR 1.2", "n", line_hint="L1")
    assert b.start == 0


def test_empty_extract_fails(record: Record) -> None:
    a = align_extract(record, "  \n ", "note")
    assert a.status is AlignmentStatus.FAILED and "empty_extract" in a.flags


def test_short_extract_without_exact_match_fails(record: Record) -> None:
    a = align_extract(record, "K+ 6.4", "note")
    assert not a.verified and "number_mismatch" in a.flags


def test_verify_lines_and_jsonl(tmp_path: Path, record: Record) -> None:
    lines = [
        EvidenceLine(source_id="note", locator="L2", extract_text="K+ 6.3 mmol/L", tag="lab"),
        EvidenceLine(source_id="note", locator="L2", extract_text="K+ 3.6 mmol/L", tag="lab"),
    ]
    path = tmp_path / "pack.jsonl"
    path.write_text("\n".join(line.model_dump_json() for line in lines) + "\n\n", encoding="utf-8")
    assert read_evidence_jsonl(path) == lines
    results = verify_lines(record, lines)
    assert [r.verified for r in results] == [True, False]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"source_id": "a"}\n', "line 1: not an evidence line"),
        (
            '\n{"source_id": "a", "locator": "L1", "extract_text": "x", "tag": "t"}\n{oops\n',
            "line 3",
        ),
        ("[1, 2]\n", "line 1"),
        ("[" * 50_000 + "\n", "line 1"),
        (b"\xff\xfe".decode("latin-1"), "not UTF-8"),
    ],
)
def test_bad_jsonl_names_file_and_line(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "bad_pack.jsonl"
    data = content.encode("latin-1") if "\xff" in content else content.encode("utf-8")
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        read_evidence_jsonl(path)
    assert "bad_pack.jsonl" in str(caught.value) and expected in str(caught.value)


def test_empty_jsonl_is_no_lines(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("", encoding="utf-8")
    assert read_evidence_jsonl(path) == []


def test_exact_span_normalises_to_extract(record: Record) -> None:
    extract = "Denies chest pain.\nPlatelets 450"
    a = align_extract(record, extract, "note")
    assert normalize_whitespace(span_text(record, a)) == normalize_whitespace(extract)


def test_extract_must_carry_the_governing_negation() -> None:
    record = make_record(
        n="Denies chest pain, no radiation to the arm.\nPMH: no diabetes, no history of bleomycin"
    )
    a = align_extract(record, "chest pain, no radiation to the arm", "n")
    assert not a.verified and {"negation_mismatch", "context_cut"} <= set(a.flags)
    b = align_extract(record, "no history of bleomycin", "n")
    assert b.verified and "negated" in b.flags


def test_pdf_record_alignment_spans_pages(tmp_path: Path) -> None:
    doc = SourceDocument(
        source_id="d.pdf",
        kind="pdf",
        text="Page one end\n\f\nLVEF 25-30% on echo",
        page_starts=(0, 15),
    )
    record = Record(name="d.pdf", documents=(doc,))
    a = align_extract(record, "end LVEF 25-30%", "d.pdf")
    assert a.status is AlignmentStatus.EXACT
    assert span_text(record, a) == "end\n\f\nLVEF 25-30%"


def test_align_span_judges_the_record_text_in_place() -> None:
    text = "No history of bleomycin exposure. No history of bleomycin exposure."
    record = make_record(n=text)
    whole = align_span(record, "n", 34, len(text))
    assert whole.verified and whole.status is AlignmentStatus.EXACT
    assert (whole.start, whole.end) == (34, len(text)) and "negated" in whole.flags
    cut = align_span(record, "n", text.index("bleomycin", 30), len(text))
    assert not cut.verified and "context_cut" in cut.flags
    assert changes(cut) == [("No history of", "")]


def test_abbreviations_do_not_end_the_clause() -> None:
    record = make_record(n="Re: Mr. A. Smith, Hosp no. NG4471. No history of DVT.")
    assert align_extract(record, "Re: Mr. A. Smith, Hosp no. NG4471.", "n").flags == ()
    a = align_extract(record, "history of DVT", "n")
    assert not a.verified and changes(a) == [("No", "")]


@pytest.mark.parametrize(
    ("text", "quote", "verified"),
    [
        ("Plan: continue aspirin 75 mg once daily.", "continue aspirin 75 mg once daily", True),
        ("Denies chest pain, reports dyspnoea on exertion.", "reports dyspnoea on exertion", True),
        ("Murphy's sign positive, rebound negative.", "Murphy's sign positive", True),
        ("No LVH, EF 55% on echo.", "EF 55% on echo", True),
        ("38 year old teacher with biliary colic.", "teacher with biliary colic", True),
        ("Pneumonia treated and resolved.", "Pneumonia", False),
        ("No chest pain, palpitations or syncope.", "palpitations or syncope", False),
        ("FH: IHD (father, aged 58).", "IHD", False),
        ("TAVI planned for March.", "TAVI", False),
        ("Planned right THR.", "right THR", False),
        ("Chest pain, none.", "Chest pain", False),
        ("DVT? Doppler booked.", "DVT", False),
        ("? PE, CTPA requested.", "PE, CTPA requested", False),
        ("AS (severe) on echo.", "AS", False),
        ("Hernia repair 2008, left.", "Hernia repair 2008", False),
        ("Epidural only if INR < 1.4 on the morning of surgery.", "Epidural", False),
        ("Proceed with spinal unless platelets fall below 80.", "Proceed with spinal", False),
        (
            "Restart apixaban 48 h post-op provided that haemostasis is secure.",
            "Restart apixaban 48 h post-op",
            False,
        ),
        ("Regional block, if coagulation normal.", "Regional block", False),
        ("Oramorph 5 mg PO if required for pain.", "Oramorph 5 mg PO", False),
        ("Bridging enoxaparin as long as eGFR stays above 30.", "Bridging enoxaparin", False),
        ("Day-case surgery subject to a normal ECG.", "Day-case surgery", False),
        (
            "Epidural only if INR < 1.4 on the morning of surgery.",
            "Epidural only if INR < 1.4",
            True,
        ),
        ("Metformin 500 mg once daily; omit on the morning of surgery.", "Metformin 500 mg", True),
        ("Aspirin 75 mg. If bleeding, stop.", "Aspirin 75 mg", True),
        ("Information leaflet provided.", "Information leaflet", True),
        ("Spinal anaesthesia - provided platelets remain above 80.", "Spinal anaesthesia", False),
        (
            "Continue bisoprolol unless HR < 50 on the morning of surgery.",
            "Continue bisoprolol",
            False,
        ),
        ("Leaflet provided, consent signed.", "Leaflet", True),
    ],
)
def test_what_governs_a_quote_stays_in_it(text: str, quote: str, verified: bool) -> None:
    a = align_extract(make_record(n=text), quote, "n")
    assert a.verified is verified, a
    assert bool(a.diff) is not verified


@pytest.mark.parametrize("answer", ["denies", "denied", "Denies", "no", "nil"])
@pytest.mark.parametrize("mark", [":", " -"])
def test_a_label_whose_answer_is_a_denial_is_not_verified_without_it(answer, mark) -> None:
    record = make_record(n=f"Exertional chest pain{mark} {answer}.\nOrthopnoea: yes.\n")
    cut = align_extract(record, "Exertional chest pain", "n")
    assert not cut.verified and "context_cut" in cut.flags
    whole = align_extract(record, f"Exertional chest pain{mark} {answer}", "n")
    assert whole.verified and "negated" in whole.flags
    assert align_extract(record, "Orthopnoea", "n").verified  # answered yes: nothing cut
