"""Layouts and phrasings that verification once misread: evenly spaced (scanned) text read
as columns, plain-text comparison signs, a lab row quoted without its flag column, negative
answers and predicates after a finding, a reporter taken for family, a quote's own
negation standing after words it does not govern, and where the diff points."""

from __future__ import annotations

import pytest

from concord.domain import AlignmentStatus, Record, SourceDocument
from concord.evidence.align import align_extract
from concord.evidence.canonical import GAP, TokenText
from concord.text.layout import evenly_spaced


def make_record(text: str) -> Record:
    return Record(name="t", documents=(SourceDocument(source_id="n", kind="txt", text=text),))


def verified(text: str, quote: str) -> bool:
    return align_extract(make_record(text), quote, "n").verified


SCAN = (
    "Mrs  Halloway  is  doing  well .  We  tried  to  reduce  the  dose  twice ,  so  she  will\n"
    "stay  on  5  mg  once  daily  long  term .  She  does  not  have  arteritis  -  no\n"
    "headache ,  no  jaw  claudication ,\n"
    "no  visual  symptoms .\n"
)


def test_evenly_spaced_prose_has_no_columns() -> None:
    assert evenly_spaced("stay  on  5  mg  once  daily  long  term .")
    assert evenly_spaced("resolved  completely .   Left  ICA  stenosis  80 – 99 %  on  duplex .")
    assert not evenly_spaced("Hb  121  g/L  130-180  LOW")  # values, not words
    assert not evenly_spaced("Potassium   5.4   H   mmol/L   3.5-5.3")
    assert not evenly_spaced("White cell count      6.4      4.0-11.0  x10^9/L")  # wide gaps
    assert not evenly_spaced("no  visual  symptoms .")  # too few gaps on its own ...
    assert evenly_spaced("no  visual  symptoms .", paragraph=True)  # ... but not in a paragraph
    tt = TokenText.of(SCAN)
    assert not any(tt.flags[k] & GAP for k in range(len(tt)))


def test_a_scanned_paragraph_reads_as_sentences() -> None:
    assert verified(SCAN, "she will stay on 5 mg once daily long term")  # across its wrap
    assert verified(SCAN, "She does not have arteritis")  # the dash opens its evidence
    assert not verified(SCAN, "jaw claudication")  # "no" two spaces before still governs
    assert not verified(SCAN, "visual symptoms")  # on the paragraph's short last line


def test_rows_of_a_table_spaced_by_two_stay_rows() -> None:
    table = "Hb  121  g/L  130-180  LOW\nPlt  142  x10^9/L  150-400  LOW\n"
    a = align_extract(make_record(table), "LOW Plt 142", "n")
    assert not a.verified and "row_join" in a.flags


@pytest.mark.parametrize(
    ("record", "quote"),
    [
        ("eGFR 34 mL/min >=90", "eGFR 34 mL/min ≥90"),
        ("eGFR 34 mL/min ≤ 90", "eGFR 34 mL/min <= 90"),
    ],
)
def test_a_comparison_sign_may_be_spelt_in_plain_text(record: str, quote: str) -> None:
    a = align_extract(make_record(record), quote, "n")
    assert a.status is AlignmentStatus.FUZZY and a.verified


def test_a_plain_text_sign_is_still_its_own_comparison() -> None:
    assert not verified("eGFR 34 mL/min ≥90", "eGFR 34 mL/min >90")
    assert not verified("eGFR 34 mL/min ≥90", "eGFR 34 mL/min <=90")


LABS = (
    "Test            Result   Flag   Units     Range\n"
    "Haemoglobin     102      L      g/L       115-165\n"
    "Potassium       5.4      H      mmol/L    3.5-5.3\n"
    "Sodium          138             mmol/L    133-146\n"
)


def test_a_lab_row_quoted_without_its_flag_column_is_verified() -> None:
    record = make_record(LABS)
    a = align_extract(record, "Potassium 5.4 mmol/L 3.5-5.3", "n")
    assert a.status is AlignmentStatus.FUZZY and a.verified and a.diff == ()
    assert a.start is not None and a.end is not None
    assert " ".join(LABS[a.start : a.end].split()) == "Potassium 5.4 H mmol/L 3.5-5.3"
    assert align_extract(record, "Haemoglobin 102 g/L", "n").verified


@pytest.mark.parametrize(
    "quote",
    [
        "Potassium 5.3 mmol/L",  # the range's limit is not the result
        "Potassium 5.4 mmol/L 3.5-5.8",
        "Haemoglobin 102 H g/L",  # a flag quoted is still compared
        "Haemoglobin 102 g/L 115-165 Potassium 5.4",  # two rows joined
    ],
)
def test_leaving_out_the_flag_column_forgives_nothing_else(quote: str) -> None:
    assert not verified(LABS, quote)


def test_a_flag_word_that_is_not_a_flag_cell_is_never_skipped() -> None:
    assert not verified("Knee   L   effusion on MRI", "Knee effusion on MRI")  # a side


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("ALLERGIES\nChlorhexidine: no known reaction\n", "Chlorhexidine"),
        ("Iodinated contrast - no reaction (CT 2026).", "Iodinated contrast"),
        ("Smoking: never smoked.", "Smoking"),
        ("CT head: no acute infarct. MRI not performed (valve).", "MRI"),
        (
            "2. Two units of packed red cells are not required at present.",
            "Two units of packed red cells",
        ),
        ("Sleep study was not yet done.", "Sleep study"),
    ],
)
def test_a_negation_after_the_quote_governs_it(text: str, quote: str) -> None:
    a = align_extract(make_record(text), quote, "n")
    assert not a.verified and "negation_mismatch" in a.flags


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("CKD stage 4 (baseline 210), not on dialysis.", "CKD stage 4 (baseline 210)"),
        ("She does not have arteritis - no headache, no jaw pain.", "She does not have arteritis"),
        ("ECG: no change from 2024.", "ECG"),
        ("PMH: Hypertension (not on treatment), gout.", "PMH: Hypertension"),
    ],
)
def test_a_negation_that_is_another_findings_does_not(text: str, quote: str) -> None:
    assert verified(text, quote)


def test_who_tells_is_not_whose_history() -> None:
    text = "Her daughter tells me she has become more breathless on the hills."
    assert verified(text, "she has become more breathless on the hills")
    assert not verified("Her daughter has breast cancer.", "breast cancer")


def test_a_quotes_own_negation_covers_only_what_follows_it() -> None:
    text = "CT showed no evidence of distant\nmetastases and no enlarged nodes."
    a = align_extract(make_record(text), "metastases and no enlarged nodes", "n")
    assert not a.verified and "negation_mismatch" in a.flags
    assert verified(text, "no enlarged nodes")
    assert verified(
        "Denies chest pain, she does not have palpitations.", "she does not have palpitations"
    )


def test_a_coordinated_clause_with_its_own_verb_is_not_governed() -> None:
    text = "She has never had a blood transfusion and\nwould accept one if needed."
    assert verified(text, "would accept one if needed")
    assert not verified(text, "had a blood transfusion")


def test_the_diff_points_at_the_rarest_agreement() -> None:
    drugs = "Bisoprolol Ramipril Amlodipine Doxazosin Sertraline Omeprazole Allopurinol"
    text = "".join(f"{drug} 2 mg daily.\n" for drug in drugs.split()) + "ASA 3. Frail.\n"
    a = align_extract(make_record(text), "ASA 2.", "n")
    assert not a.verified and [(c.record, c.quote) for c in a.diff] == [("3", "2")]
