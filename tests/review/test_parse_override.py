"""A human override is validated against the range of the judgement it replaces."""

from __future__ import annotations

import pytest

from concord.domain import Target, TargetKind, TargetRef
from concord.errors import InputError
from concord.review import (
    DISAGREEMENT_VALUES,
    DISPOSITION_VALUES,
    GATE_VALUES,
    MATCH_VALUES,
    parse_override,
)


def target(ref: TargetRef, value: object = None) -> Target:
    return Target(id=ref.format(), kind=ref.kind, value=value)


SUBSCORE = target(TargetRef.subscore("cardiology", "coverage"), 0.5)
OVERALL = target(TargetRef.overall("cardiology"), 72.0)
GATE = target(TargetRef.gate("hyperkalaemia"), "triggered")
DISAGREEMENT = target(TargetRef.disagreement("cardiology", "D1"), {"severity": "major"})
MATCH = target(TargetRef.match("cardiology", "S1", "A1"), "lexicon")
DISPOSITION = target(TargetRef.disposition("hyperkalaemia"))
WORDS = (GATE_VALUES, DISAGREEMENT_VALUES, MATCH_VALUES, DISPOSITION_VALUES)


@pytest.mark.parametrize(
    ("tgt", "raw", "expected"),
    [
        (SUBSCORE, "0", 0.0),
        (SUBSCORE, "1", 1.0),
        (SUBSCORE, " 0.35 ", 0.35),
        (OVERALL, "0", 0.0),
        (OVERALL, "100", 100.0),
        (OVERALL, "69.5", 69.5),
    ],
)
def test_numbers_inside_the_range_are_taken(tgt: Target, raw: str, expected: float) -> None:
    assert parse_override(tgt, raw) == expected


@pytest.mark.parametrize(
    ("tgt", "raw"),
    [
        (SUBSCORE, "1.01"),
        (SUBSCORE, "-0.1"),
        (SUBSCORE, "72"),
        (SUBSCORE, "high"),
        (SUBSCORE, ""),
        (SUBSCORE, "nan"),
        (OVERALL, "100.5"),
        (OVERALL, "-1"),
        (OVERALL, "seventy"),
        (OVERALL, "inf"),
    ],
)
def test_numbers_outside_the_range_or_not_numbers_are_refused(tgt: Target, raw: str) -> None:
    with pytest.raises(InputError):
        parse_override(tgt, raw)


@pytest.mark.parametrize(
    ("tgt", "allowed"),
    [
        (GATE, GATE_VALUES),
        (DISAGREEMENT, DISAGREEMENT_VALUES),
        (MATCH, MATCH_VALUES),
        (DISPOSITION, DISPOSITION_VALUES),
    ],
)
def test_each_word_kind_takes_exactly_its_words(tgt: Target, allowed: tuple[str, ...]) -> None:
    for word in allowed:
        assert parse_override(tgt, f" {word} ") == word
    others = {w for values in WORDS for w in values}
    for word in sorted(others - set(allowed)) + ["", "0.5", "TRIGGERED"]:
        with pytest.raises(InputError):
            parse_override(tgt, word)


def test_every_case_kind_is_covered() -> None:
    covered = {t.kind for t in (SUBSCORE, OVERALL, GATE, DISAGREEMENT, MATCH, DISPOSITION)}
    assert covered == {k for k in TargetKind if k.is_case}
