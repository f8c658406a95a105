"""Numbers dictated as words read as the digits a clinician means."""

from __future__ import annotations

import pytest

from concord.text.numwords import number_word_spans


def _read(text: str) -> list[tuple[str, str]]:
    return [(text[n.start : n.end], n.digits) for n in number_word_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a potassium of six point two this morning", [("six point two", "6.2")]),
        ("platelets of sixty-one thousand", [("sixty-one thousand", "61000")]),
        ("satting eighty-eight percent on room air", [("eighty-eight", "88")]),
        ("EF of twenty to twenty-five percent", [("twenty", "20"), ("twenty-five", "25")]),
        (
            "went from point zero four to point three one",
            [("point zero four", "0.04"), ("point three one", "0.31")],
        ),
        ("sodium of one twenty-one", [("one twenty-one", "121")]),
        ("blood pressure one ninety over one ten", [("one ninety", "190"), ("one ten", "110")]),
        ("glucose of one oh five", [("one oh five", "105")]),
        ("one hundred and twenty", [("one hundred and twenty", "120")]),
        ("a hundred and ten", [("a hundred and ten", "110")]),
        ("BMI of forty-three point five", [("forty-three point five", "43.5")]),
        ("Stage three chronic kidney disease", [("three", "3")]),
        ("type two diabetes", [("two", "2")]),
        ("creatinine two point eight", [("two point eight", "2.8")]),
        ("Ninety-two percent", [("Ninety-two", "92")]),
        ("sats in the eighties on air", [("eighties", "80s")]),
        ("sugars in the high three hundreds", [("three hundreds", "300s")]),
        ("gravida two para one", [("two", "2"), ("one", "1")]),
        ("G three P two", [("three", "3"), ("two", "2")]),
    ],
)
def test_dictated_numbers_read_as_digits(text: str, expected: list[tuple[str, str]]) -> None:
    assert _read(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "one of her two sons",
        "no one at home",
        "she has two daughters",
        "seen by a nurse and a doctor",
        "one tablet at night",
        "the point is",
        "a man in his sixties",
        "hundreds of patients",
    ],
)
def test_ordinary_words_stay_words(text: str) -> None:
    assert _read(text) == []
