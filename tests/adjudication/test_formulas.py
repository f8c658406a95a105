"""Each sub-score formula pinned with hand-computed cases."""

from __future__ import annotations

import pytest

from concord.adjudication.adjudicate import adjudicate
from concord.adjudication.panel import judge_panel
from concord.domain import BriefSection, DisagreementKind
from tests.adjudication.helpers import RULES, brief, evidence_for, gate, item

R, A, T = BriefSection.TOP_RISKS, BriefSection.ACTIONS, BriefSection.TRIGGERS


def run(record, anaes, spec, gates, config, lexicon, proposals=()):
    return adjudicate(
        record,
        anaes,
        spec,
        gates,
        rules=RULES,
        lexicon=lexicon,
        config=config,
        llm_proposals=proposals,
    )


def test_identical_briefs_score_100_high(record, config, lexicon):
    items = [
        item(R, 1, "Potassium 6.3 mmol/L: arrhythmia risk"),
        item(R, 2, "Renal impairment, CKD"),
        item(T, 1, "Delay if K+ >= 6.0 mmol/L"),
    ]
    card = run(
        record,
        brief("anaesthetist", record, items),
        brief("renal", record, items),
        [],
        config,
        lexicon,
    )
    assert [round(s.value, 4) for s in card.subscores] == [1.0, 1.0, 1.0, 1.0, 1.0]
    assert card.overall == 100.0
    assert card.grade == "High"
    assert not card.human_review
    assert card.overall_trace.formula.startswith("100 · (0.3·1.000")


def test_coverage_eight_of_ten_and_jaccard(record, config, lexicon):
    topics = [
        "potassium",
        "SpO2",
        "bleomycin",
        "stent",
        "clopidogrel",
        "arrhythmia",
        "airway",
        "anaemia",
        "renal",
        "glucose",
    ]
    spec = [item(R, n + 1, f"{t} risk") for n, t in enumerate(topics)]
    anaes = [item(R, n + 1, f"{t} risk") for n, t in enumerate(topics[:8])]
    card = run(
        record,
        brief("anaesthetist", record, anaes),
        brief("renal", record, spec),
        [],
        config,
        lexicon,
    )
    cov = card.subscore("coverage")
    assert cov.value == pytest.approx(0.8)
    assert cov.extra["jaccard"] == pytest.approx(8 / 10)  # |A∪S| = 8 + 10 - 8
    assert cov.trace.inputs["matched"] == 8 and cov.trace.inputs["specialist_risks"] == 10


def test_one_major_gate_miss_caps_critical_and_overall(record, config, lexicon):
    hyperk = gate(record, "hyperkalaemia", "renal", "Potassium 6.3 mmol/L")
    spec = [item(R, 1, "Hyperkalaemia, potassium 6.3")]
    anaes = [item(R, 1, "Drug-eluting stent, antiplatelet plan")]
    card = run(
        record,
        brief("anaesthetist", record, anaes),
        brief("renal", record, spec),
        [hyperk],
        config,
        lexicon,
    )
    crit = card.subscore("critical_items")
    assert crit.raw_value == 0.0 and crit.cap == 0.40 and crit.value == 0.0
    assert card.capped and card.human_review
    assert card.overall <= 69
    assert any(
        d.kind == DisagreementKind.MISS and d.gate_id == "hyperkalaemia" for d in card.disagreements
    )


def test_cap_applies_to_a_high_raw_critical_score(record, config, lexicon):
    # Three gates, two addressed: raw 2/3 but one major miss caps at 0.40.
    gates = [
        gate(record, "hyperkalaemia", "renal", "Potassium 6.3 mmol/L"),
        gate(record, "hypoxaemia", "renal", "SpO2 89% on room air"),
        gate(record, "recent_coronary_stent", "renal", "Drug-eluting stent"),
    ]
    anaes = [item(R, 1, "Potassium 6.3 mmol/L"), item(R, 2, "SpO2 89% on air")]
    card = run(
        record,
        brief("anaesthetist", record, anaes),
        brief("renal", record, anaes),
        gates,
        config,
        lexicon,
    )
    crit = card.subscore("critical_items")
    assert crit.raw_value == pytest.approx(2 / 3)
    assert crit.value == pytest.approx(0.40)


def test_two_major_misses_cap_at_020(record, config, lexicon):
    gates = [
        gate(record, "hyperkalaemia", "renal", "Potassium 6.3 mmol/L"),
        gate(record, "hypoxaemia", "renal", "SpO2 89% on room air"),
        gate(record, "recent_coronary_stent", "renal", "Drug-eluting stent"),
    ]
    anaes = [item(R, 1, "Drug-eluting stent on clopidogrel")]
    card = run(
        record,
        brief("anaesthetist", record, anaes),
        brief("renal", record, anaes),
        gates,
        config,
        lexicon,
    )
    crit = card.subscore("critical_items")
    assert crit.raw_value == pytest.approx(1 / 3) and crit.cap == 0.20
    assert crit.value == pytest.approx(0.20)


def test_correctness_counts_each_kind(record, config, lexicon):
    hyperk = gate(record, "hyperkalaemia", "renal", "Potassium 6.3 mmol/L")
    ev = [
        evidence_for(record, "E1", "Potassium 6.3 mmol/L"),
        evidence_for(record, "E2", "SpO2 89% on room air"),
    ]
    anaes = [
        item(R, 1, "SpO2 89% on room air", ("E2",)),  # supported, specific
        item(R, 2, "Drug-eluting stent, antiplatelet", ()),  # unsupported (no cite)
        item(R, 3, "No hyperkalaemia", ("E1",)),  # contradicts a fired gate
        item(R, 4, "Optimise before theatre", ("E1",)),  # vague: no concept, no number
    ]
    card = run(
        record,
        brief("anaesthetist", record, anaes, ev),
        brief("renal", record, [item(R, 1, "potassium")]),
        [hyperk],
        config,
        lexicon,
    )
    corr = card.subscore("correctness")
    assert corr.trace.inputs["unsupported"] == ["top_risks.2"]
    assert corr.trace.inputs["contradicted"] == ["top_risks.3"]
    assert corr.trace.inputs["vague"] == ["top_risks.4"]
    assert corr.value == pytest.approx(1 - (1 + 2 + 0.5) / 4)
    assert any(d.kind == DisagreementKind.CONFLICT for d in card.disagreements)
    assert any(d.kind == DisagreementKind.OVERCALL for d in card.disagreements)


def test_correctness_clipped_at_zero(record, config, lexicon):
    anaes = [item(R, 1, "stent", ()), item(R, 2, "potassium", ())]
    bad = run(
        record,
        brief("anaesthetist", record, anaes),
        brief("renal", record, [item(R, 1, "potassium")]),
        [],
        config,
        lexicon,
    )
    assert bad.subscore("correctness").value == 0.0  # 1 - 2/2 = 0


def test_prioritisation_reversed_order_is_zero(record, config, lexicon):
    spec = [item(R, 1, "potassium"), item(R, 2, "SpO2"), item(R, 3, "stent")]
    anaes = [item(R, 1, "stent"), item(R, 2, "SpO2"), item(R, 3, "potassium")]
    card = run(
        record,
        brief("anaesthetist", record, anaes),
        brief("renal", record, spec),
        [],
        config,
        lexicon,
    )
    pri = card.subscore("prioritisation")
    assert pri.trace.inputs["kendall_tau"] == pytest.approx(-1.0)
    assert pri.value == pytest.approx(0.0)


def test_prioritisation_one_swap_of_three(record, config, lexicon):
    spec = [item(R, 1, "potassium"), item(R, 2, "SpO2"), item(R, 3, "stent")]
    anaes = [item(R, 1, "SpO2"), item(R, 2, "potassium"), item(R, 3, "stent")]
    card = run(
        record,
        brief("anaesthetist", record, anaes),
        brief("renal", record, spec),
        [],
        config,
        lexicon,
    )
    # 3 pairs, 1 discordant: tau = (2 - 1) / 3
    assert card.subscore("prioritisation").value == pytest.approx((1 / 3 + 1) / 2)


@pytest.mark.parametrize(
    ("anaes_text", "expected"),
    [("Delay surgery if K+ >= 6.0 mmol/L", 1.0), ("Monitor potassium", 0.5), ("Check airway", 0.0)],
)
def test_actionability_threshold_credit(record, config, lexicon, anaes_text, expected):
    spec = [item(T, 1, "Delay if K+ >= 6.0 mmol/L")]
    anaes = [item(T, 1, anaes_text)]
    card = run(
        record,
        brief("anaesthetist", record, anaes),
        brief("renal", record, spec),
        [],
        config,
        lexicon,
    )
    assert card.subscore("actionability").value == pytest.approx(expected)


def test_mutual_omission_bleomycin(record, config, lexicon):
    """Both briefs miss the ABVD history; the screen fired; the case is flagged."""
    bleo = gate(record, "bleomycin_exposure", "oncology", "ABVD x6")
    anaes = [item(R, 1, "Potassium 6.3 mmol/L, arrhythmia")]
    spec = [item(R, 1, "Potassium 6.3 mmol/L, arrhythmia")]
    card = run(
        record,
        brief("anaesthetist", record, anaes),
        brief("oncology", record, spec),
        [bleo],
        config,
        lexicon,
    )
    kinds = {d.kind for d in card.disagreements}
    assert DisagreementKind.OMITTED_BY_PAIR in kinds
    mo = next(d for d in card.disagreements if d.kind == DisagreementKind.OMITTED_BY_PAIR)
    assert mo.gate_id == "bleomycin_exposure" and mo.spans[0].text == "ABVD x6"
    assert card.human_review and card.capped and card.overall <= 69
    # Coverage alone would have been perfect: the cap is what stops the false reassurance.
    assert card.subscore("coverage").value == 1.0


def test_unverified_evidence_is_a_disagreement(record, config, lexicon):
    ev = [evidence_for(record, "E1", "Potassium 3.6 mmol/L", verified=False)]
    anaes = [item(R, 1, "potassium 3.6", ("E1",))]
    card = run(
        record,
        brief("anaesthetist", record, anaes, ev),
        brief("renal", record, [item(R, 1, "potassium")]),
        [],
        config,
        lexicon,
    )
    unv = [d for d in card.disagreements if d.kind == DisagreementKind.UNVERIFIED_EVIDENCE]
    assert unv and unv[0].severity.value == "major"
    assert card.subscore("correctness").trace.inputs["unsupported"] == ["top_risks.1"]


def test_llm_matches_are_marked(record, config, lexicon):
    spec = [item(R, 1, "Cardiac event risk")]
    anaes = [item(R, 1, "Perioperative MI possible")]
    card = run(
        record,
        brief("anaesthetist", record, anaes),
        brief("renal", record, spec),
        [],
        config,
        lexicon,
        proposals=[("top_risks.1", "top_risks.1")],
    )
    assert [m.method.value for m in card.matches] == ["llm"]
    assert card.subscore("coverage").value == 1.0


def test_panel_spread_sends_to_review(record, config, lexicon):
    spec = [item(R, 1, "Cardiac event risk"), item(R, 2, "Bleeding")]
    anaes = [item(R, 1, "Perioperative MI possible"), item(R, 2, "Haemorrhage")]

    def proposer(_s, _a, seed):
        return [("top_risks.1", "top_risks.1"), ("top_risks.2", "top_risks.2")] if seed else []

    card = judge_panel(
        record,
        brief("anaesthetist", record, anaes),
        brief("renal", record, spec),
        [],
        rules=RULES,
        lexicon=lexicon,
        config=config,
        runs=3,
        proposer=proposer,
    )
    assert card.judge_runs == 3
    assert card.judge_spread > config.judge_panel.max_overall_spread
    assert card.human_review
    assert card.subscore("coverage").value == 0.0  # the conservative run is kept


@pytest.mark.parametrize(
    ("overall", "grade"),
    [
        (100, "High"),
        (90, "High"),
        (89.9, "Medium"),
        (70, "Medium"),
        (69.9, "Low"),
        (40, "Low"),
        (39.9, "Very Low"),
        (0, "Very Low"),
    ],
)
def test_grade_bands(config, overall, grade):
    assert config.grade(overall) == grade
