"""The reference set: clinician decisions in force, confirmed findings, and gate overrides as
regression cases (a false fire; a finding the clinician added, also one the screen never
reported)."""

from __future__ import annotations

from concord.decisions import record_decision
from concord.review import make_decision
from concord.store import Repository
from concord.validation.reference import reference_set
from tests import factories as f
from tests.identity import enrol


def test_gate_overrides_are_regression_cases_and_labels_do_not_count(repo: Repository) -> None:
    clinician = enrol(repo, "Dr Smith", "clinician")
    annotator = enrol(repo, "Ann Otator", "annotator")
    record = f.record()
    case = f.case(record)
    repo.save_record(record, "Dr Smith")
    repo.save_case(case, "Dr Smith")
    triggered = [g.gate_id for g in case.gates if g.status.value == "triggered"]
    assert triggered

    def decide(session, target: str, override: str | None = None) -> None:
        decision = make_decision(
            case, target, user=session.name, reason="read the record", override=override,
            known_gates=("pregnancy", *triggered),
        )  # fmt: skip
        record_decision(repo, session, decision, case=case)

    decide(annotator, f"gate/{triggered[0]}", "negated")  # a label: not the reference
    assert reference_set(repo).cases == []
    decide(clinician, f"gate/{triggered[0]}", "negated")
    decide(clinician, "gate/pregnancy", "triggered")  # never reported by the screen
    (ref,) = reference_set(repo).cases
    kinds = {r.gate_id: r.kind for r in ref.regressions}
    assert kinds == {triggered[0]: "false fire", "pregnancy": "added as missed"}
    assert "pregnancy" in ref.confirmed and triggered[0] not in ref.confirmed
    summary = reference_set(repo).summary()
    assert summary.regression_cases == 2 and summary.cases == 1 and summary.decisions == 2


def test_a_red_flag_given_a_disposition_is_a_confirmed_finding(repo: Repository) -> None:
    # The required judgement on a red flag is its disposition: a clinician who proceeds,
    # postpones or refers took the finding as present, so a resources change that stops it
    # firing drops a confirmed finding. An explicit override of the gate still wins.
    clinician = enrol(repo, "Dr Smith", "clinician")
    record = f.record()
    case = f.case(record)
    repo.save_record(record, "Dr Smith")
    repo.save_case(case, "Dr Smith")
    triggered = [g.gate_id for g in case.gates if g.status.value == "triggered"]
    assert triggered
    for gate_id in triggered:
        decision = make_decision(
            case, f"gate/{gate_id}", user=clinician.name, reason="in the plan",
            disposition="proceed",
        )  # fmt: skip
        record_decision(repo, clinician, decision, case=case)
    (ref,) = reference_set(repo).cases
    assert set(ref.confirmed) == set(triggered) and ref.regressions == ()
    negated = make_decision(
        case, f"gate/{triggered[0]}", user=clinician.name, reason="artefact", override="negated"
    )
    record_decision(repo, clinician, negated, case=case)
    (ref,) = reference_set(repo).cases
    assert triggered[0] not in ref.confirmed
    assert {r.gate_id for r in ref.regressions} == {triggered[0]}
