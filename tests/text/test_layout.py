"""Prose that wraps reads on; table rows, list items, fields and dated entries keep their breaks."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from concord.text import layout
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


@pytest.mark.parametrize(
    "line",
    [
        "HISTORY OF PRESENT ILLNESS:  The patient is a 71-year-old gentleman with a",
        "takes metoprolol 50 mg  twice daily and lisinopril 10 mg daily for her blood",
        "\tMr. Alvarez is a 66-year-old man scheduled for right total knee arthroplasty",
        "HISTORY OF PRESENT ILLNESS:\tThe patient is a 71-year-old gentleman with a",
        "she has  undiagnosed sleep apnea",  # two spaces after a word a sentence goes on from
        "PHYSICAL EXAMINATION:  BP 142/84  HR 68  SpO2 95% on room air.  He appears well",
        "stay  on  5  mg  once  daily  long  term .",  # a scan's even spacing
    ],
)
def test_prose_with_wide_spaces_is_not_a_row(line: str) -> None:
    assert not is_row(line, 0, len(line))


@pytest.mark.parametrize(
    "line",
    [
        "Potassium  6.6  mmol/L",
        "Vitals: BP 108/66  HR 92  RR 20  SpO2 93% RA  Wt 81 kg",
        "Hypertension              amlodipine 10 mg daily, home readings around 135/85",
        "Furosemide\t40 mg\tPO\tdaily",
        "Chest pain  no",
    ],
)
def test_cells_apart_make_a_row(line: str) -> None:
    assert is_row(line, 0, len(line))


def test_a_table_of_sentences_spaced_by_two_keeps_its_rows() -> None:
    table = (
        "Hypertension  on amlodipine 10 mg daily, well controlled at home readings\n"
        "Diabetes      on metformin 1 g twice daily and gliclazide with good control\n"
    )
    first_end = table.index("\n")
    assert is_row(table, 0, first_end)  # its cells start where the next row's do
    assert soft_wraps(table) == []


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("PMH: no history of\ndiabetes", "PMH: no history of diabetes"),
        ("- Denies chest pain or\n  palpitations", "- Denies chest pain or   palpitations"),
        (
            "He was admitted on\n12/03/2024 with chest pain",
            "He was admitted on 12/03/2024 with chest pain",
        ),
        ("Her potassium was\r\n6.6 mmol/L", "Her potassium was\r 6.6 mmol/L"),
    ],
)
def test_a_line_ending_on_a_word_that_goes_on_continues(text: str, joined: str) -> None:
    assert _joined(text) == joined


def test_a_scanned_paragraph_wraps_like_prose() -> None:
    scan = (
        "Mrs  Halloway  is  doing  well .  She  will  stay  on  5  mg  once\n"
        "daily  long  term .  She  does  not  have  arteritis  -  no\n"
        "headache ,  no  jaw  claudication ,\n"
        "no  visual  symptoms .\n"
    )
    assert len(soft_wraps(scan)) == 3


@pytest.mark.parametrize(
    "text",
    [
        "Allergies: none\nmedications reconciled: yes",  # the next line is a field
        "Seen in clinic\n12/11/2026 K 6.1",  # a dated entry after a complete line
        "- Warfarin 5 mg\n- Bisoprolol 2.5 mg",
    ],
)
def test_fields_entries_and_items_still_keep_their_breaks(text: str) -> None:
    assert _joined(text) == text


def _after_short_lines_walking_back(text: str) -> list[bool]:
    """The rule as first written: from each line, walk back over its paragraph."""
    lines = layout._real_lines(text)
    widest = layout._paragraph_widths(text, lines)
    out = []
    for i in range(len(lines)):
        before = []
        for k in range(i - 1, -1, -1):
            body = text[lines[k][0] : lines[k][1]]
            if not body.strip():
                break
            before.append(body)
        out.append(
            len(before) >= layout.MIN_LIST_LINES
            and all(
                len(b.rstrip()) < layout.WIDTH_SHARE * widest[i] and not layout._ITEM_RE.match(b)
                for b in before
            )
        )
    return out


_LINE_KINDS = st.sampled_from(
    [
        "",
        "   ",
        "Sodium 139 mmol/L",
        "Warfarin 5 mg once daily",
        "- hold apixaban 48 hours before surgery",
        "2. bridging not required",
        "She remains breathless on exertion and her most recent echocardiogram showed",
        "EF 30%",
    ]
)


@given(st.lists(_LINE_KINDS, min_size=1, max_size=30))
def test_the_list_rule_in_one_pass_is_the_rule_walking_back(kinds: list[str]) -> None:
    text = "\n".join(kinds)
    lines = layout._real_lines(text)
    widest = layout._paragraph_widths(text, lines)
    assert layout._after_short_lines(text, lines, widest) == _after_short_lines_walking_back(text)


def test_a_long_unbroken_list_is_read_once_not_once_per_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A lab printout of thousands of short lines with no blank line between them: the list
    rule looks at each line a bounded number of times (walking back from every line looked
    at 2,000 lines 2 million times)."""
    looked = 0
    item_re = layout._ITEM_RE

    class Counting:
        def match(self, body: str) -> re.Match[str] | None:
            nonlocal looked
            looked += 1
            return item_re.match(body)

    monkeypatch.setattr(layout, "_ITEM_RE", Counting())
    lines = 2_000
    header = "Results from the pre-assessment clinic this morning (venous, not haemolysed)"
    text = "\n".join([header, *(f"Sodium {130 + i % 10} mmol/L" for i in range(lines))])
    soft_wraps(text)
    assert looked <= 3 * lines
