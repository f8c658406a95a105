"""Prose that wraps reads on; table rows, list items, fields and dated entries keep their breaks."""

from __future__ import annotations

import pytest

from concord.text.layout import is_row, soft_wraps


def _joined(text: str) -> str:
    wraps = set(soft_wraps(text))
    return "".join(" " if i in wraps else c for i, c in enumerate(text))


LETTER = (
    "I saw Mrs Patel in the pre-assessment clinic today ahead of her planned\n"
    "laparoscopic cholecystectomy. She remains breathless on exertion and her\n"
    "most recent echocardiogram from August showed an ejection fraction of\n"
    "30% with moderate mitral regurgitation. Her potassium this morning was\n"
    "6.4 mmol/L and I have asked the renal team to review her before surgery.\n"
    "\n"
    "Yours sincerely,\n"
    "Dr A Jones\n"
)


def test_a_rewrapped_letter_reads_as_sentences() -> None:
    joined = _joined(LETTER)
    assert "an ejection fraction of 30% with moderate" in joined
    assert "this morning was 6.4 mmol/L" in joined
    assert "her planned laparoscopic cholecystectomy." in joined
    assert "Yours sincerely,\nDr A Jones" in joined  # a sign-off is not a wrap


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("Her potassium was\n6.6 mmol/L this morning", "Her potassium was 6.6 mmol/L this morning"),
        ("an ejection fraction\nof 25%", "an ejection fraction of 25%"),
        ("His INR this morning was\n2.4", "His INR this morning was 2.4"),
    ],
)
def test_a_label_and_its_value_across_a_wrap_join(text: str, joined: str) -> None:
    assert _joined(text) == joined


@pytest.mark.parametrize(
    "text",
    [
        "Na   K    Cr\n136  6.2  110",  # a table: rows stay rows
        "Test\tResult\nPotassium\t6.6",
        "Medications:\nWarfarin 5 mg daily\nBisoprolol 2.5 mg daily",  # a list
        "Plan:\n- hold warfarin 5 days\n- bridging not required",
        "Allergies: None\nMedications: none",  # fields
        "Seen in clinic\n12/11/2026 K 6.1",  # a dated entry
        "PAST MEDICAL HISTORY\nHypertension",  # a heading in capitals
        "Potassium normal.\nPlatelets 45",  # a sentence ends the line
    ],
)
def test_rows_items_fields_and_entries_keep_their_breaks(text: str) -> None:
    assert _joined(text) == text


def test_a_double_space_after_a_full_stop_is_not_a_column() -> None:
    text = "She is well.  Her INR was 2.1 today"
    assert not is_row(text, 0, len(text))
    assert is_row("Potassium  6.6  mmol/L", 0, 22)
