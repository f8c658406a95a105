"""A bullet that negates a gate's terms contradicts the gate instead of addressing it."""

from __future__ import annotations

import pytest

from concord.adjudication.gates import item_contradicts
from concord.domain import BriefItem, BriefSection
from tests.adjudication.helpers import RULES, TermRule

LVEF = TermRule(r"lvef|lv systolic dysfunction")


def bullet(text: str) -> BriefItem:
    return BriefItem(item_id="top_risks.1", section=BriefSection.TOP_RISKS, rank=1, text=text)


@pytest.mark.parametrize(
    ("text", "rule", "contradicts"),
    [
        ("No hyperkalaemia", RULES["hyperkalaemia"], True),
        ("Normal potassium", RULES["hyperkalaemia"], True),
        ("No history of bleomycin", RULES["bleomycin_exposure"], True),
        ("No evidence of severe LV systolic dysfunction", LVEF, True),
        ("Potassium 6.3 mmol/L, no arrhythmia", RULES["hyperkalaemia"], False),
        ("No chest pain but potassium 6.3", RULES["hyperkalaemia"], False),
        ("No change in LVEF 30%", LVEF, False),
        ("Delay if K+ >= 6.0 mmol/L", RULES["hyperkalaemia"], False),
    ],
)
def test_negated_gate_terms(text: str, rule: TermRule, contradicts: bool) -> None:
    assert item_contradicts(bullet(text), rule) is contradicts
