"""Who the panel consults, and what the whole panel missed: both decided by the record
screen's gates, not by the agents.

`mutual_omissions` is the panel-wide meaning (a triggered gate that no brief of the panel
addresses), computed once per case and stored as `Case.mutual_omissions`; a gate that
neither brief of one specialist's comparison addresses is a pairwise disagreement
(`DisagreementKind.OMITTED_BY_PAIR`), which another brief may still have addressed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from concord.adjudication.gates import GateRule, addressing_items, triggered
from concord.domain import Brief, GateHit, Severity


def required_specialists(gates: tuple[GateHit, ...], specialists: Collection[str]) -> list[str]:
    """The owners of triggered major gates among `specialists`, most severe first: consulted
    whatever the anaesthetist asks for (`choose_specialists`), so known from the record
    screen before any agent writes, and started beside the anaesthetist."""
    required: list[str] = []
    for gate in sorted(triggered(gates), key=lambda g: g.severity.rank):
        owner = gate.specialty
        if gate.severity is Severity.MAJOR and owner in specialists and owner not in required:
            required.append(owner)
    return required


def choose_specialists(
    anaesthetist: Brief,
    gates: tuple[GateHit, ...],
    specialists: Collection[str],
    limit: int,
) -> list[str]:
    """The anaesthetist's ranked consult list among `specialists`, capped, plus the owners
    of fired gates.

    The owner of a triggered major gate is always consulted, beyond the cap: a critical
    finding in the record always gets its specialist's brief, whatever the anaesthetist
    asked for. The owner of a moderate gate is consulted while there is room under the cap
    (its gate is checked against the anaesthetist's brief either way). Gates owned by
    anaesthesia need no specialist.
    """
    chosen = [s for s in anaesthetist.consult if s in specialists][:limit]
    required = required_specialists(gates, specialists)
    fired = sorted(triggered(gates), key=lambda g: g.severity.rank)
    for gate in fired:
        if gate.specialty not in specialists or gate.specialty in chosen:
            continue
        if gate.specialty in required or len(chosen) < limit:
            chosen.append(gate.specialty)
    return chosen


def mutual_omissions(
    gates: tuple[GateHit, ...], briefs: list[Brief], rules: Mapping[str, GateRule]
) -> list[str]:
    """Triggered gates that no brief of the whole panel addresses (panel-wide)."""
    return [
        g.gate_id
        for g in triggered(gates)
        if not any(addressing_items(b, g, rules) for b in briefs)
    ]
