"""Negation cues before and after a span, clause limits, pseudo-negations."""

from __future__ import annotations

import pytest

from concord.evidence.negation import (
    negation_cue_after,
    negation_cue_before,
    negation_cue_leading,
    negation_cues_in,
)


def before(text: str, target: str) -> str | None:
    return negation_cue_before(text, text.index(target))


@pytest.mark.parametrize(
    ("text", "target", "cue"),
    [
        ("PMH: No history of bleomycin exposure.", "bleomycin", "no history of"),
        ("Patient denies chest pain.", "chest pain", "denies"),
        ("CT negative for pulmonary embolism", "pulmonary", "negative for"),
        ("No fever, cough or sputum", "sputum", "no"),
        ("Not on anticoagulants", "anticoagulants", "not on"),
        ("Walks without dyspnoea", "dyspnoea", "without"),
        ("Known allergies: nil", "nil", None),
        ("MI ruled out; troponin flat", "troponin", None),
        ("ruled out MI", "MI", "ruled out"),
        ("no history of\nbleomycin", "bleomycin", "no history of"),
    ],
)
def test_cue_before(text: str, target: str, cue: str | None) -> None:
    assert before(text, target) == cue


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("No diabetes. Hypertension on ramipril.", "Hypertension"),
        ("No chest pain\nHypertension", "Hypertension"),
        ("Denies chest pain but reports dyspnoea", "dyspnoea"),
        ("No change in LVEF 30%", "LVEF"),
        ("Pneumonia not ruled out", "Pneumonia"),
        ("Gram negative sepsis", "sepsis"),
        ("Notes reviewed: bleomycin 2015", "bleomycin"),
        ("No one two three four five six seven bleomycin", "bleomycin"),
    ],
)
def test_no_cue_before(text: str, target: str) -> None:
    assert before(text, target) is None


def test_cue_after() -> None:
    text = "Pneumonia 2019 - resolved. Chest infection now."
    assert negation_cue_after(text, len("Pneumonia")) == "resolved"
    assert negation_cue_after(text, text.index("now")) is None
    assert negation_cue_after("MI ruled out", 2) == "ruled out"


def test_cues_inside_and_leading() -> None:
    assert negation_cues_in("no fever, no cough; pneumonia not ruled out") == {"no": 2}
    assert negation_cue_leading("No history of bleomycin") == "no history of"
    assert negation_cue_leading("Chest pain, no radiation to the left arm or jaw") is None
