"""The synonym lexicon: concepts, abbreviations, word boundaries, implications."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from concord.errors import InputError
from concord.screen.lexicon import Lexicon


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return Lexicon.load()


@pytest.mark.parametrize(
    "text",
    [
        "SpO2 91%",
        "SpO₂ 91%",
        "O2 sats 91%",
        "O2  sats",
        "oxygen saturation",
        "arterial oxygen saturation",
        "sats 90 on air",
    ],
)
def test_oxygen_saturation_synonyms_are_one_concept(lexicon: Lexicon, text: str) -> None:
    assert "spo2" in lexicon.concepts_in(text)


def test_canonical_maps_synonyms_to_one_id(lexicon: Lexicon) -> None:
    assert lexicon.canonical("SpO2") == "spo2"
    assert lexicon.canonical("O2 sats") == "spo2"
    assert lexicon.canonical("arterial oxygen saturation") == "spo2"
    assert lexicon.canonical("K+") == "potassium"
    assert lexicon.canonical("serum potassium") == "potassium"
    assert lexicon.canonical("LV ejection fraction") == "lvef"
    assert lexicon.canonical("not a clinical term at all") is None


@pytest.mark.parametrize(
    ("text", "concept"),
    [
        ("K+ 6.3", "potassium"),
        ("K 6.1 mmol/l", "potassium"),
        ("Plt 45", "platelets"),
        ("EF 30%", "lvef"),
        ("drug eluting stent", "des"),
        ("drug-eluting stent", "des"),
        ("BMS to RCA", "bms"),
        ("AVA 0.8 cm2", "ava"),
        ("chest infection", "lrti"),
        ("hsTnI", "troponin"),
        ("hs-TnT", "troponin"),
        ("apixaban", "doac"),
        ("apixaban", "anticoagulant"),
        ("ticagrelor", "antiplatelet"),
        ("STOP-BANG 5", "stop_bang"),
    ],
)
def test_terms_and_implications(lexicon: Lexicon, text: str, concept: str) -> None:
    assert concept in lexicon.concepts_in(text)


@pytest.mark.parametrize("regimen", ["ABVD", "ABVD x6", "BEP", "BVD", "bleo", "escalated BEACOPP"])
def test_regimens_imply_bleomycin(lexicon: Lexicon, regimen: str) -> None:
    assert "bleomycin" in lexicon.concepts_in(f"Treated with {regimen} in 2016")


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("That is OK 6.3", "potassium"),
        ("vitamin K 10 mg", "potassium"),
        ("as severe as before", "aortic_stenosis"),
        ("it was as expected", "aortic_stenosis"),
        ("the DESK", "des"),
        ("HbA1c 48", "haemoglobin"),
        ("A+AVD chemotherapy", "bleomycin"),
        ("Ida came with her", "anaemia"),
    ],
)
def test_word_boundaries_and_case(lexicon: Lexicon, text: str, absent: str) -> None:
    assert absent not in lexicon.concepts_in(text)


def test_find_returns_exact_spans(lexicon: Lexicon) -> None:
    text = "K+ 6.3 mmol/L, repeat serum potassium 6.1"
    spans = lexicon.find(text, "potassium")
    assert [text[s:e] for s, e in spans] == ["K+", "serum potassium"]


def test_bad_lexicon_file_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text(json.dumps({"version": "1", "concepts": [{"id": 3}]}))
    with pytest.raises(InputError, match="broken.json"):
        Lexicon.load(tmp_path)


def test_duplicate_term_across_concepts_is_refused(tmp_path: Path) -> None:
    data = {
        "version": "1",
        "concepts": [{"id": "a", "terms": ["same"]}, {"id": "b", "terms": ["Same"]}],
    }
    (tmp_path / "dup.json").write_text(json.dumps(data))
    with pytest.raises(InputError, match="dup.json"):
        Lexicon.load(tmp_path)
