"""Judgement ids: one format, one parse, every kind round-trips, malformed ids are refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from concord.domain import TargetKind, TargetRef, TargetRefError

EXAMPLES = {
    "gate/hyperkalaemia": TargetRef.gate("hyperkalaemia"),
    "gate/hyperkalaemia/disposition": TargetRef.disposition("hyperkalaemia"),
    "cardiology/overall": TargetRef.overall("cardiology"),
    "cardiology/subscore/critical_items": TargetRef.subscore("cardiology", "critical_items"),
    "renal/disagreement/D3": TargetRef.disagreement("renal", "D3"),
    "haematology/match/S2=A1": TargetRef.match("haematology", "S2", "A1"),
    "astrid/q7/cf/sentence/3": TargetRef.astrid_sentence("q7", 3),
    "astrid/q7/cf": TargetRef.astrid_metric("q7", TargetKind.ASTRID_CF),
    "astrid/q7/cr": TargetRef.astrid_metric("q7", TargetKind.ASTRID_CR),
    "astrid/q7/ra": TargetRef.astrid_metric("q7", TargetKind.ASTRID_RA),
    "eval/ans-1f3/grade": TargetRef.eval_grade("ans-1f3"),
    "astrid/q7/harm": TargetRef.astrid_harm("q7"),
    "astrid/q7/harm/sentence/2": TargetRef.astrid_harm("q7", 2),
    "eval/ans-1f3/harm": TargetRef.eval_harm("ans-1f3"),
}


@pytest.mark.parametrize("text", sorted(EXAMPLES))
def test_each_kind_formats_and_parses(text: str) -> None:
    ref = EXAMPLES[text]
    assert ref.format() == text
    assert TargetRef.parse(text) == ref


def test_every_kind_has_an_example() -> None:
    assert {ref.kind for ref in EXAMPLES.values()} == set(TargetKind)


def test_typed_parts() -> None:
    assert TargetRef.parse("renal/disagreement/D3").specialist == "renal"
    assert TargetRef.parse("gate/raised_inr").specialist is None
    assert TargetRef.parse("gate/raised_inr/disposition").gate_id == "raised_inr"
    assert TargetRef.parse("gate/raised_inr/disposition").specialist is None
    assert TargetRef.parse("astrid/q7/cf/sentence/3").sentence_number == 3
    assert TargetRef.parse("haematology/match/S2=A1").match_items == ("S2", "A1")
    assert TargetRef.parse("astrid/q7/cr").kind.is_astrid
    assert not TargetRef.parse("eval/a/grade").kind.is_case
    assert TargetRef.parse("astrid/q7/harm/sentence/2").sentence_number == 2
    assert TargetRef.parse("eval/a/harm").kind.is_harm
    assert not TargetRef.parse("astrid/q7/cr").kind.is_harm


@pytest.mark.parametrize(
    "text",
    [
        "",
        "gate",
        "gate/",
        "gate/a/b",
        "cardiology",
        "cardiology/subscore",
        "cardiology/subscore/",
        "cardiology/unknown/x",
        "cardiology/match/S1",
        "astrid/q7/cf/sentence/0",
        "astrid/q7/cf/sentence/x",
        "astrid/q7/harm/sentence/0",
        "astrid/q7/harm/x",
        "astrid/q7/xx",
        "eval/a/b",
        "eval//grade",
        "gate/has space",
    ],
)
def test_malformed_ids_are_refused(text: str) -> None:
    with pytest.raises(TargetRefError):
        TargetRef.parse(text)


@pytest.mark.parametrize("head", ["gate", "astrid", "eval"])
def test_a_specialist_cannot_take_a_reserved_name(head: str) -> None:
    with pytest.raises(TargetRefError):
        TargetRef.overall(head)


def test_constructors_refuse_a_slash_in_a_part() -> None:
    with pytest.raises(TargetRefError):
        TargetRef.gate("a/b")
    with pytest.raises(TargetRefError):
        TargetRef.subscore("cardiology", "a/b")


_part = st.text(
    alphabet=st.characters(blacklist_characters="/=", blacklist_categories=("Z", "C")),
    min_size=1,
    max_size=12,
)


@given(subject=_part, detail=_part, number=st.integers(1, 999))
def test_round_trip_for_any_parts(subject: str, detail: str, number: int) -> None:
    refs = [TargetRef.astrid_sentence(subject, number), TargetRef.eval_grade(subject)]
    if subject not in ("gate", "astrid", "eval"):
        refs += [
            TargetRef.overall(subject),
            TargetRef.subscore(subject, detail),
            TargetRef.disagreement(subject, detail),
            TargetRef.match(subject, detail, detail),
        ]
    for ref in refs:
        assert TargetRef.parse(ref.format()) == ref
