"""Who is consulted and what the whole panel missed: decided in adjudication from the
record screen's gates (issue 25, item 3), one meaning per word."""

from __future__ import annotations

from concord.adjudication.consults import choose_specialists, mutual_omissions
from concord.domain import Brief, DisagreementKind, GateHit, GateStatus, Severity

SPECIALISTS = ("cardiology", "haematology", "nephrology", "respiratory")


def _gate(gate_id: str, specialty: str, severity: Severity = Severity.MAJOR) -> GateHit:
    return GateHit(
        gate_id=gate_id, severity=severity, status=GateStatus.TRIGGERED, specialty=specialty
    )


def test_the_owner_of_a_major_red_flag_is_consulted_beyond_the_cap() -> None:
    anaes = Brief(agent="anaesthetist", consult=("cardiology", "respiratory", "haematology"))
    gates = (_gate("hyperkalaemia", "nephrology"),)
    chosen = choose_specialists(anaes, gates, SPECIALISTS, limit=2)
    assert chosen == ["cardiology", "respiratory", "nephrology"]


def test_a_moderate_red_flag_gets_its_owner_only_under_the_cap() -> None:
    gates = (_gate("anaemia", "haematology", Severity.MODERATE),)
    full = Brief(agent="anaesthetist", consult=("cardiology", "respiratory"))
    room = Brief(agent="anaesthetist", consult=("cardiology",))
    assert choose_specialists(full, gates, SPECIALISTS, limit=2) == ["cardiology", "respiratory"]
    assert choose_specialists(room, gates, SPECIALISTS, limit=2) == ["cardiology", "haematology"]


def test_only_known_specialists_are_consulted() -> None:
    anaes = Brief(agent="anaesthetist", consult=("astrology", "cardiology"))
    owned_by_anaesthesia = (_gate("difficult_airway", "anaesthesia"),)
    chosen = choose_specialists(anaes, owned_by_anaesthesia, SPECIALISTS, limit=3)
    assert chosen == ["cardiology"]


def test_a_panel_that_addresses_nothing_misses_every_triggered_gate() -> None:
    gates = (
        _gate("hyperkalaemia", "nephrology"),
        GateHit(gate_id="anaemia", severity=Severity.MODERATE, status=GateStatus.NEGATED),
    )
    briefs = [Brief(agent="anaesthetist"), Brief(agent="nephrology")]
    assert mutual_omissions(gates, briefs, {}) == ["hyperkalaemia"]  # not the negated one


def test_the_pairwise_kind_reads_as_pairwise_and_keeps_its_stored_value() -> None:
    kind = DisagreementKind.OMITTED_BY_PAIR
    assert kind.value == "MUTUAL_OMISSION"  # stored and signed cases carry this value
    assert DisagreementKind("MUTUAL_OMISSION") is kind
    assert "pair" in kind.label.lower() and "mutual" not in kind.label.lower()
    assert DisagreementKind.CONFLICT.label == "CONFLICT"
