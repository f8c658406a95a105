"""One layout model for the verifier and the screen: a soft wrap of prose is not a row
boundary, a table's rows stay apart; a trailing clause governs a quote only when it
negates, conditions or qualifies it; a qualifier just before a quote governs it."""

from __future__ import annotations

import pytest

from concord.domain import Alignment, Record, SourceDocument
from concord.evidence.align import align_extract


def align(text: str, quote: str) -> Alignment:
    record = Record(name="t", documents=(SourceDocument(source_id="n", kind="txt", text=text),))
    return align_extract(record, quote, "n")


PARAGRAPH = (
    "HISTORY OF PRESENT ILLNESS:  The patient is a 67-year-old woman with a history of\n"
    "hypertension and asthma who presents for a laparoscopic cholecystectomy.  She takes\n"
    "amlodipine 5 mg  once daily and a salbutamol inhaler when wheezy, and she reports\n"
    "good exercise tolerance.\n"
)


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        (PARAGRAPH, "The patient is a 67-year-old woman with a history of hypertension and asthma"),
        (PARAGRAPH, "She takes amlodipine 5 mg once daily"),
        (PARAGRAPH, "and she reports good exercise tolerance"),
        (
            "\tShe was reviewed by the cardiology team who recommended continuing bisoprolol\n"
            "throughout the perioperative period.",
            "continuing bisoprolol throughout the perioperative period",
        ),
        (
            "Examination:  BP 150/90  HR 80  SpO2 97% on air.  Chest clear and heart sounds\n"
            "normal with no added sounds.",
            "Chest clear and heart sounds normal",
        ),
    ],
)
def test_a_quote_across_the_wraps_of_a_paragraph_verifies(text: str, quote: str) -> None:
    a = align(text, quote)
    assert a.verified, a


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("| Hb | 104 | g/L |\n| Plt | 162 | x10^9/L |\n", "g/L Plt 162"),
        ("Furosemide\t40 mg\tdaily\nBisoprolol\t2.5 mg\tdaily\n", "daily Bisoprolol 2.5 mg"),
        (
            "Hypertension  on amlodipine 10 mg daily, well controlled at home readings\n"
            "Diabetes      on metformin 1 g twice daily and gliclazide with good control\n",
            "well controlled at home readings Diabetes",
        ),
    ],
)
def test_a_quote_joining_two_rows_of_a_table_is_refused(text: str, quote: str) -> None:
    a = align(text, quote)
    assert not a.verified and "row_join" in a.flags, a


@pytest.mark.parametrize(
    ("text", "quote", "governor"),
    [
        ("DVT in 2020, which was excluded on duplex.", "DVT in 2020", ", which was excluded"),
        ("A DVT was excluded on duplex.", "A DVT", "was excluded"),
        ("Pulmonary embolism - ruled out by CTPA.", "Pulmonary embolism", "- ruled out"),
        (
            "Spinal anaesthesia, provided platelets stay above 80.",
            "Spinal anaesthesia",
            ", provided",
        ),
        ("Continue aspirin unless bleeding.", "Continue aspirin", "unless"),
        (
            "Oxycodone 5 mg every 6 hours as needed for pain.",
            "Oxycodone 5 mg every 6 hours",
            "as needed",
        ),
        (
            "Pharmacy to follow with dosing guidance as needed.",
            "Pharmacy to follow with dosing",
            "guidance as needed",
        ),
        ("Ondansetron 4 mg PO q8h PRN nausea", "Ondansetron 4 mg PO q8h", "PRN"),
        ("Salbutamol 2 puffs q4h p.r.n. wheeze", "Salbutamol 2 puffs q4h", "p.r.n"),
        (
            "Paracetamol 1 g four times daily as required.",
            "Paracetamol 1 g four times daily",
            "as required",
        ),
        ("An LV thrombus was suspected on the first echo.", "An LV thrombus", "was suspected"),
        (
            "Mitral regurgitation, moderate to severe.",
            "Mitral regurgitation",
            ", moderate to severe",
        ),
        ("Breast cancer, in remission.", "Breast cancer", ", in remission"),
        ("Ischaemic heart disease in her father.", "Ischaemic heart disease", "in her father"),
        ("DVT, not confirmed.", "DVT", ", not confirmed"),
        ("Oramorph 5 mg when necessary.", "Oramorph 5 mg", "when necessary"),
    ],
)
def test_a_trailing_clause_that_negates_conditions_or_qualifies_governs(
    text: str, quote: str, governor: str
) -> None:
    a = align(text, quote)
    assert not a.verified and "context_cut" in a.flags, a
    assert (governor, "") in [(c.record, c.quote) for c in a.diff], a.diff


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        (
            "Hodgkin lymphoma 2009 treated with ABVD, in remission.",
            "Hodgkin lymphoma 2009 treated with ABVD",
        ),
        (
            "History of breast cancer 2014 treated with mastectomy.",
            "breast cancer 2014 treated with mastectomy",
        ),
        ("Previous DVT in 2015, treated for 3 months.", "DVT in 2015"),
        ("Hodgkin lymphoma treated with ABVD, in remission.", "Hodgkin lymphoma treated with ABVD"),
        ("Penicillin, which causes hives.", "Penicillin"),
        ("Pulmonary embolism, which has never recurred.", "Pulmonary embolism"),
        ("Aspirin 75 mg daily and paracetamol as needed.", "Aspirin 75 mg daily"),
        ("Aspirin 75 mg daily, oxycodone 5 mg as needed.", "Aspirin 75 mg daily"),
        ("Severe aortic stenosis with a valve area of 0.8 cm2.", "with a valve area of 0.8 cm2"),
    ],
)
def test_a_trailing_clause_that_does_not_govern_leaves_the_quote_verified(
    text: str, quote: str
) -> None:
    a = align(text, quote)
    assert a.verified, a


@pytest.mark.parametrize(
    ("text", "quote", "governor"),
    [
        (
            "He has undiagnosed sleep apnoea per his wife.",
            "sleep apnoea per his wife",
            "undiagnosed",
        ),
        ("She is at risk of postoperative delirium.", "postoperative delirium", "risk of"),
        (
            "Concern for pulmonary embolism on the ward.",
            "pulmonary embolism on the ward",
            "Concern for",
        ),
        (
            "Plan to evaluate for coronary artery disease.",
            "coronary artery disease",
            "evaluate for",
        ),
        (
            "Family history of malignant hyperthermia.",
            "malignant hyperthermia",
            "Family history of",
        ),
        ("Rule out PE.", "PE", "Rule out"),
        ("He is not yet on the transplant list.", "the transplant list", "not yet on"),
        ("Her father, who died of an MI at 52.", "an MI at 52", "father, who died of"),
        ("Her mother who had breast cancer at 40.", "breast cancer at 40", "mother who had"),
        ("Previous DVT, treated for 3 months.", "DVT, treated for 3 months", "Previous"),
        (
            "Previous hypertension treated with amlodipine.",
            "hypertension treated with amlodipine",
            "Previous",
        ),
        (
            "He has a long smoking history, breathlessness on exertion and a suspected\n"
            "COPD diagnosis on spirometry, which the respiratory team will confirm.",
            "COPD diagnosis on spirometry",
            "suspected",
        ),
    ],
)
def test_a_qualifier_just_before_the_quote_governs(text: str, quote: str, governor: str) -> None:
    a = align(text, quote)
    assert not a.verified and "context_cut" in a.flags, a
    assert any(c.record.endswith(governor) and not c.quote for c in a.diff), a.diff


@pytest.mark.parametrize(
    ("text", "quote", "flag"),
    [
        ("Chest pain:\nnone\nPalpitations:\nyes", "Chest pain", "negation_mismatch"),
        ("Diagnosis: possible\npneumonia", "pneumonia", "context_cut"),
        ("- Denies chest pain or\n  palpitations", "palpitations", "negation_mismatch"),
    ],
)
def test_what_governs_reaches_a_line_that_goes_on(text: str, quote: str, flag: str) -> None:
    a = align(text, quote)
    assert not a.verified and flag in a.flags, a


def test_a_capitalised_line_after_one_at_the_margin_may_be_a_statement_of_its_own() -> None:
    text = (
        "Metoprolol 2.5 mg once daily\n"
        "Seen in pre-assessment clinic today with her husband\n"
        "Not on anticoagulants\n"
    )
    assert align(text, "Seen in pre-assessment clinic today with her husband").verified
    wrapped = "Seen in pre-assessment clinic today; a pulmonary embolism was\nexcluded on CT."
    assert not align(wrapped, "a pulmonary embolism").verified


def test_a_field_on_the_next_line_is_not_governed_by_the_answer_before_it() -> None:
    assert align("Allergies: none\nmedications reconciled: yes", "medications reconciled").verified


@pytest.mark.parametrize(
    ("quote", "flag"),
    [
        ("She takes amlodipine 10 mg once daily", "number_mismatch"),
        ("She takes amlodipine 5 mcg once daily", "number_mismatch"),
        ("no exercise tolerance", "negation_mismatch"),
    ],
)
def test_across_a_wrap_a_changed_number_unit_or_negation_is_refused(quote: str, flag: str) -> None:
    a = align(PARAGRAPH, quote)
    assert not a.verified and flag in a.flags, a
