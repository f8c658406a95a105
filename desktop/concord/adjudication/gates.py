"""Which triggered gates a brief addresses, and which it contradicts.

A bullet addresses a gate when code's claim check (`concord.adjudication.support`) stored it
on the bullet: it is supported by its cited evidence, its words name the gate, and it cites
the gate's own finding. `addressing_items` is the one rule: the scorecard, the
mutual-omission check, the app and the PDF all use it.

A brief stored before claims were checked (its bullets' `addresses` is None) is read by the
rule it was scored with: the bullet names the gate id or uses the gate's address terms, and
cites at least one verified evidence line.
A bullet that puts a negation cue right before the gate's terms ("no bleomycin exposure")
contradicts the gate instead of addressing it. The cues are the context file's
(`resources/lexicon/context.json`, the words the record screen and the verifier read, through
`concord.evidence.negation`) plus "normal": a brief that says "normal potassium" denies
hyperkalaemia.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Protocol

from concord.domain import Brief, BriefItem, GateHit, GateStatus
from concord.evidence.negation import negated_words

NEGATION_WINDOW_WORDS = 4
BRIEF_NEGATION_CUES = ("normal",)
"""Cues that negate in a brief's bullet, on top of the record's negation cues."""
_CLAUSE_SPLIT = re.compile(r"[;.,]|\bbut\b", re.IGNORECASE)


class GateRule(Protocol):
    def addressed_by(self, text: str) -> bool: ...


def _negates(clause: str, rule: GateRule) -> bool:
    negated = negated_words(clause, words=NEGATION_WINDOW_WORDS, extra_cues=BRIEF_NEGATION_CUES)
    return any(rule.addressed_by(words) for words in negated)


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
    """The bullets of `brief` that address `gate`."""
    rule = rules.get(gate.gate_id)
    unsupported = {i.item_id for i in brief.unsupported_items()}
    return tuple(
        i
        for i in brief.items
        if (
            gate.gate_id in i.addresses
            if i.addresses is not None
            else i.item_id not in unsupported and item_addresses(i, gate, rule)
        )
    )


def contradicting_items(
    brief: Brief, gate: GateHit, rules: Mapping[str, GateRule]
) -> tuple[BriefItem, ...]:
    rule = rules.get(gate.gate_id)
    if rule is None:
        return ()
    return tuple(i for i in brief.items if item_contradicts(i, rule))


def triggered(gates: Iterable[GateHit]) -> list[GateHit]:
    return [g for g in gates if g.status == GateStatus.TRIGGERED]
