"""What a clinician must decide before signing is clinical: a disposition for every red flag
and the major disagreements about the patient, in order of harm; never an AI score. And one
count of judgements: reviewed one by one, bulk-accepted, not reviewed."""

from __future__ import annotations

import pytest

from concord.adjudication.judgements import Harm, case_judgements
from concord.domain import (
    Case,
    Decision,
    DecisionAction,
    DisagreementKind,
    Severity,
    TargetKind,
    UserRole,
)
from concord.errors import InputError
from concord.review import (
    BULK_REASON_PREFIX,
    make_decision,
    missing_dispositions,
    outstanding,
    required_targets,
    review_counts,
    review_tally,
)
from tests.report.report_fixtures import build_case, build_record


@pytest.fixture
def case() -> Case:
    return build_case(build_record())


def clinician(decision: Decision) -> Decision:
    return decision.model_copy(update={"role": UserRole.CLINICIAN})


def test_required_is_a_disposition_per_red_flag_in_order_of_harm(case: Case) -> None:
    required = [t.id for t in required_targets(case)]
    assert required == [
        "gate/bleomycin_exposure/disposition",  # missed by every agent
        "gate/low_lvef/disposition",  # a major gate the anaesthetist missed
        "gate/hyperkalaemia/disposition",  # the other red flags, in the screen's order
        "gate/thrombocytopenia/disposition",
        "gate/severe_aortic_stenosis/disposition",
    ]
    assert not any(
        t.kind in (TargetKind.OVERALL, TargetKind.SUBSCORE) for t in required_targets(case)
    )


def test_moderate_red_flags_come_after_major_ones(case: Case) -> None:
    gates = tuple(
        g.model_copy(update={"severity": Severity.MODERATE}) if g.gate_id == "hyperkalaemia" else g
        for g in case.gates
    )
    moderated = case.model_copy(update={"gates": gates})
    required = [t.ref.subject for t in required_targets(moderated)]
    assert required[-1] == "hyperkalaemia"
    harms = {j.target.ref.subject: j.harm for j in case_judgements(moderated) if j.required}
    assert harms["bleomycin_exposure"] == Harm.MISSED_BY_EVERY_AGENT


def test_a_major_disagreement_about_the_patient_is_required_after_the_red_flags(
    case: Case,
) -> None:
    card = case.scorecards[0]
    overcall = card.disagreements[0].model_copy(
        update={
            "kind": DisagreementKind.OVERCALL,
            "severity": Severity.MAJOR,
            "gate_id": None,
        }
    )
    changed = case.model_copy(
        update={"scorecards": (card.model_copy(update={"disagreements": (overcall,)}),)}
    )
    required = [t.id for t in required_targets(changed)]
    assert required[-1] == "cardiology/disagreement/D1"
    assert all(r.endswith("/disposition") for r in required[:-1])


def test_a_red_flag_takes_a_disposition_not_an_accept(case: Case) -> None:
    with pytest.raises(InputError, match="disposition"):
        make_decision(case, "gate/hyperkalaemia/disposition", user="dr", reason="ok")
    made = make_decision(
        case, "gate/hyperkalaemia", user="dr", reason="K+ to be corrected", disposition="postpone"
    )
    assert made.target_id == "gate/hyperkalaemia/disposition"
    assert made.target_kind == TargetKind.DISPOSITION
    assert (made.original_value, made.new_value) == (None, "postpone")
    assert made.action == DecisionAction.OVERRIDE
    with pytest.raises(InputError):
        make_decision(case, "gate/hyperkalaemia", user="dr", reason="x", disposition="maybe")
    with pytest.raises(InputError, match="did not fire"):
        make_decision(case, "gate/active_ischaemia", user="dr", reason="x", disposition="refer")


def test_dispositions_clear_the_red_flags(case: Case) -> None:
    assert missing_dispositions(case, []) == [
        "bleomycin_exposure",
        "low_lvef",
        "hyperkalaemia",
        "thrombocytopenia",
        "severe_aortic_stenosis",
    ]
    made = [
        clinician(make_decision(case, f"gate/{g}", user="dr", reason="seen", disposition=d))
        for g, d in (
            ("bleomycin_exposure", "refer"),
            ("low_lvef", "refer"),
            ("hyperkalaemia", "postpone"),
            ("thrombocytopenia", "proceed"),
        )
    ]
    assert missing_dispositions(case, made) == ["severe_aortic_stenosis"]
    assert [t.id for t in outstanding(case, made)] == ["gate/severe_aortic_stenosis/disposition"]


def test_the_tally_counts_judgements_one_by_one_bulk_and_not_reviewed(case: Case) -> None:
    judgements = case_judgements(case)
    first, second, third = [j for j in judgements if not j.required][:3]
    one = clinician(make_decision(case, first.target.id, user="dr", reason="looked at it"))
    bulk = [
        clinician(
            make_decision(case, t.id, user="dr", reason=f"{BULK_REASON_PREFIX} the 2 remaining")
        )
        for j in (second, third)
        for t in j.targets
    ]
    tally = review_tally(case, [one, *bulk])
    assert tally.total == len(judgements)
    assert (tally.one_by_one, tally.bulk_accepted) == (1, 2)
    assert tally.not_reviewed == len(judgements) - 3
    assert review_counts(case, [one, *bulk]) == (3, len(judgements) - 3)
    assert tally.sentence().startswith(f"{len(judgements)} judgements: 1 reviewed one by one")
    label = one.model_copy(update={"role": UserRole.ANNOTATOR})
    assert review_tally(case, [label]).not_reviewed == len(judgements)  # a label is not a review
