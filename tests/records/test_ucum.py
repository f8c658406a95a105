"""UCUM codes as FHIR Quantities carry them: conversions the screen relies on, and codes
that are not UCUM."""

from __future__ import annotations

import pytest

from concord.records.ucum import UcumError, convertible, parse_ucum, to_unit


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [
        (6.4, "meq/L", "mmol/L", 6.4),
        (6400, "umol/L", "mmol/L", 6.4),
        (45, "10*3/uL", "10*9/L", 45),
        (45000, "/uL", "10*9/L", 45),
        (45000, "/mm3", "10*9/L", 45),
        (45, "10^9/L", "10*9/L", 45),
        (0.3, "1", "%", 30),
        (0.045, "ug/L", "ng/L", 45),
        (0.045, "ng/mL", "ng/L", 45),
        (12, "mm[Hg]", "kPa", 1.59987),
        (2, "L/min", "mL/min", 2000),
        (60, "mL/min/{1.73_m2}", "mL/min", 60),
        (1.7, "{INR}", "1", 1.7),
        (0.9, "cm2", "mm2", 90),
        (3, "/min", "/h", 180),
        (2, "kg.m-2", "g/cm2", 0.2),
    ],
)
def test_conversions(value: float, source: str, target: str, expected: float) -> None:
    assert to_unit(value, source, target) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("code", ["mmol/Lx", "", "mmol /L", "10*9/L)", "(mg", "mg/", "{x"])
def test_not_ucum(code: str) -> None:
    with pytest.raises(UcumError, match="not a UCUM unit"):
        parse_ucum(code)


def test_substance_and_mass_do_not_convert() -> None:
    """mmol/L to mg/dL needs a molar mass: refused, never guessed."""
    assert not convertible("mmol/L", "mg/dL")
    with pytest.raises(UcumError, match="different kinds"):
        to_unit(5.0, "mmol/L", "mg/dL")


def test_arbitrary_units_only_convert_to_themselves() -> None:
    assert convertible("[IU]/L", "m[IU]/mL")
    assert not convertible("[IU]/L", "U/L")
