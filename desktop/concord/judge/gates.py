"""Which triggered gates a brief addresses, and which it contradicts.

A bullet addresses a gate when it names the gate id or when its text uses the gate's address
terms (lexicon). Citing the line that fired the gate is not enough: the bullet must say it.
A bullet that puts a negation cue right before the gate's terms ("no bleomycin exposure")
contradicts the gate instead of addressing it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Protocol

from concord.domain import Brief, BriefItem, GateHit, GateStatus

NEGATION_WINDOW_WORDS = 4
_NEGATION_CUE = re.compile(
    r"\b(no|not|denies|denied|without|negative for|nil|absence of|never|normal)\b", re.IGNORECASE
)
_CLAUSE_SPLIT = re.compile(r"[;.,]|\bbut\b", re.IGNORECASE)


class GateRule(Protocol):
    def addressed_by(self, text: str) -> bool: ...


def _negates(clause: str, rule: GateRule) -> bool:
    for cue in _NEGATION_CUE.finditer(clause):
        window = " ".join(clause[cue.end() :].split()[:NEGATION_WINDOW_WORDS])
        if window and rule.addressed_by(window):
            return True
    return False


def item_contradicts(item: BriefItem, rule: GateRule) -> bool:
    return any(_negates(clause, rule) for clause in _CLAUSE_SPLIT.split(item.text))


def item_addresses(item: BriefItem, gate: GateHit, rule: GateRule | None) -> bool:
    if rule is not None and item_contradicts(item, rule):
        return False
    if gate.gate_id in item.gate_ids:
        return True
    return rule is not None and rule.addressed_by(item.text)


def addressing_items(
    brief: Brief, gate: GateHit, rules: Mapping[str, GateRule]
) -> tuple[BriefItem, ...]:
    rule = rules.get(gate.gate_id)
    return tuple(i for i in brief.items if item_addresses(i, gate, rule))


def contradicting_items(
    brief: Brief, gate: GateHit, rules: Mapping[str, GateRule]
) -> tuple[BriefItem, ...]:
    rule = rules.get(gate.gate_id)
    if rule is None:
        return ()
    return tuple(i for i in brief.items if item_contradicts(i, rule))


def triggered(gates: tuple[GateHit, ...] | list[GateHit]) -> list[GateHit]:
    return [g for g in gates if g.status == GateStatus.TRIGGERED]
