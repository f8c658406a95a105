"""quantities and is_unit: numbers and units, normalised, from clinical text."""

from __future__ import annotations

import pytest

from concord.evidence.numbers import is_unit, quantities


@pytest.mark.parametrize(
    "unit", ["mmol/L", " cm²", "/µL", "days", "x10^9/L", "×10⁹/L", "mmHg", "%", "mL/min/1.73m2"]
)
def test_known_units(unit: str) -> None:
    assert is_unit(unit)


@pytest.mark.parametrize("word", ["daily", "severe", "on", "repeat", "left"])
def test_words_are_not_units(word: str) -> None:
    assert not is_unit(word)


def test_quantities_pair_each_number_with_its_unit() -> None:
    assert quantities("Delay if K+ >= 6.0 mmol/L") == {("6", "mmol/l")}
    assert quantities("potassium 6 mmol/l") == quantities("K+ 6.00 mmol/L")
    assert quantities("AVA 0.9 cm²") == quantities("AVA 0.9 cm2") == {("0.9", "cm^2")}
    assert quantities("Plt < 50 x 10^9/L") == {("50", "x10^9/l")}
    assert quantities("platelets 45,000/µL") == {("45000", "/ul")}
    assert quantities("SpO2 < 92%") == {("92", "%")}
    assert quantities("5 mg/kg") != quantities("5 mg")
    assert quantities("Monitor potassium") == frozenset()
