"""numeric_tokens and quantities: numbers and units, normalised, from clinical text."""

from __future__ import annotations

import pytest

from concord.evidence.numbers import numbers_differ, numeric_tokens, quantities, widen_to_numbers


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("K+ 6.3 mmol/L", "K+ 6.3mmol/l"),
        ("Plt 45 x 10^9/L", "Plt 45×10⁹/L"),
        ("Plt 45 x10^9/L", "Plt 45 x10e9/L"),
        ("AVA 0.8 cm²", "AVA 0.8 cm2"),
        ("platelets 45,000/µL", "platelets 45000/uL"),
        ("Na 139 mmol/L", "Na 139.0 mmol/L"),
        ("SpO2 91 %", "SpO2 91%"),
    ],
)
def test_same_numbers(a: str, b: str) -> None:
    assert not numbers_differ(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("K+ 3.6", "K+ 6.3"),
        ("K+ 6.3 mmol/L", "K+ 6.3 mg/dL"),
        ("LVEF 35%", "LVEF 35 mmHg"),
        ("BE -2.5", "BE 2.5"),
        ("EF 25-30%", "EF 25-35%"),
        ("EF 25-30%", "EF 25%"),
        ("Plt 45,000/µL", "Plt 45/µL"),
        ("Plt 45 x10^9/L", "Plt 45 x10^12/L"),
        ("SpO2 91%", "SpO3 91%"),
        ("DES 3 months ago", "DES 3 weeks ago"),
        ("HbA1c 48", "HbA1c 48 mmol/mol"),
        ("v2.1.4", "v2.1.5"),
        ("K+ 6.3", "K+ 6.3 6.3"),
    ],
)
def test_different_numbers(a: str, b: str) -> None:
    assert numbers_differ(a, b)


def test_tokens() -> None:
    assert numeric_tokens("EF 25-30%, BE -2.5, range 25 - 30") == {
        "25": 2,
        "30": 2,
        "%": 1,
        "-2.5": 1,
    }
    assert numeric_tokens("eGFR 45 mL/min/1.73m2") == {"45": 1, "ml/min/1.73m^2": 1}
    assert numeric_tokens("6.3 on repeat") == {"6.3": 1}


def test_widen_to_numbers() -> None:
    text = "Platelets 450, K+ 6.3, BE -2.5"
    assert text[slice(*widen_to_numbers(text, 0, text.index("0,")))] == "Platelets 450"
    k = text.index("K+")
    assert text[slice(*widen_to_numbers(text, k, k + 4))] == "K+ 6.3"
    at = text.index("2.5")
    assert text[slice(*widen_to_numbers(text, at, at + 3))] == "-2.5"


def test_quantities_pair_each_number_with_its_unit() -> None:
    assert quantities("Delay if K+ >= 6.0 mmol/L") == {("6", "mmol/l")}
    assert quantities("potassium 6 mmol/l") == quantities("K+ 6.00 mmol/L")
    assert quantities("AVA 0.9 cm²") == quantities("AVA 0.9 cm2") == {("0.9", "cm^2")}
    assert quantities("Plt < 50 x 10^9/L") == {("50", "x10^9/l")}
    assert quantities("platelets 45,000/µL") == {("45000", "/ul")}
    assert quantities("SpO2 < 92%") == {("92", "%")}
    assert quantities("5 mg/kg") != quantities("5 mg")
    assert quantities("Monitor potassium") == frozenset()
