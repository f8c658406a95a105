"""Adjudicate the anaesthetist brief against one specialist brief: the scorecard.

Every number is computed here by code from the two briefs, the record screen and the
scoring config; the trace of each number says which inputs and formula produced it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from concord.adjudication import subscores
from concord.adjudication.config import SUBSCORE_NAMES, ScoringConfig
from concord.adjudication.disagreements import find_disagreements
from concord.adjudication.gates import GateRule, addressing_items, contradicting_items, triggered
from concord.adjudication.matching import ConceptFinder, match_items
from concord.domain import (
    Brief,
    BriefItem,
    BriefSection,
    BriefStatus,
    DisagreementKind,
    GateHit,
    ItemMatch,
    Record,
    Scorecard,
    Severity,
    Trace,
)
from concord.evidence.numbers import quantities

ACTION_SECTIONS = (BriefSection.ACTIONS, BriefSection.TRIGGERS, BriefSection.MONITORING)
CLAIM_SECTIONS = (BriefSection.TOP_RISKS, *ACTION_SECTIONS)


def items_in(brief: Brief, sections: Iterable[BriefSection]) -> list[BriefItem]:
    """The brief's items in `sections`, section by section, each by rank."""
    return [item for section in sections for item in brief.section(section)]


def owned_gates(gates: Sequence[GateHit], specialist: str) -> list[GateHit]:
    return [g for g in triggered(gates) if g.specialty == specialist]


def _claim_counts(
    anaes: Brief,
    claims: Sequence[BriefItem],
    matches: Sequence[ItemMatch],
    specialist_items: Mapping[str, BriefItem],
    contradicted: set[str],
    lexicon: ConceptFinder,
) -> subscores.ClaimCounts:
    unsupported = {i.item_id for i in anaes.unsupported_items()}
    partner = {m.anaesthetist_item: specialist_items.get(m.specialist_item) for m in matches}
    vague: list[str] = []
    for item in claims:
        spec_item = partner.get(item.item_id)
        lost_numbers = (
            spec_item is not None and quantities(spec_item.text) and not quantities(item.text)
        )
        generic = not lexicon.concepts_in(item.text) and not quantities(item.text)
        if lost_numbers or generic:
            vague.append(item.item_id)
    claim_ids = [i.item_id for i in claims]
    checked = any(i.supported is not None for i in claims)
    return subscores.ClaimCounts(
        claims=tuple(claim_ids),
        unsupported=tuple(i for i in claim_ids if i in unsupported),
        contradicted=tuple(i for i in claim_ids if i in contradicted),
        # a bullet found unsupported by the claim check is counted once, as unsupported
        vague=tuple(
            i
            for i in claim_ids
            if i in set(vague) and i not in contradicted and not (checked and i in unsupported)
        ),
    )


def adjudicate(
    record: Record,
    anaesthetist: Brief,
    specialist: Brief,
    gates: Sequence[GateHit],
    *,
    rules: Mapping[str, GateRule],
    lexicon: ConceptFinder,
    config: ScoringConfig,
    llm_proposals: Iterable[tuple[str, str]] = (),
) -> Scorecard:
    """Score how well `anaesthetist` agrees with `specialist`; pure and deterministic."""
    spec_risks = specialist.section(BriefSection.TOP_RISKS)
    anaes_risks = anaesthetist.section(BriefSection.TOP_RISKS)
    spec_actions = items_in(specialist, ACTION_SECTIONS)
    anaes_actions = items_in(anaesthetist, ACTION_SECTIONS)
    proposals = list(llm_proposals)
    risk_matches = match_items(spec_risks, anaes_risks, lexicon, config.matching, proposals)
    action_matches = match_items(spec_actions, anaes_actions, lexicon, config.matching, proposals)
    matches = (*risk_matches, *action_matches)

    owned = owned_gates(gates, specialist.agent)
    outcomes = [
        subscores.GateOutcome(
            gate_id=g.gate_id,
            severity=g.severity.value,
            addressed_by_anaesthetist=bool(addressing_items(anaesthetist, g, rules)),
        )
        for g in owned
    ]
    contradicted = {
        item.item_id
        for gate in triggered(gates)
        for item in contradicting_items(anaesthetist, gate, rules)
    }
    claims = items_in(anaesthetist, CLAIM_SECTIONS)
    spec_by_id = {i.item_id: i for i in specialist.items}
    counts = _claim_counts(anaesthetist, claims, matches, spec_by_id, contradicted, lexicon)

    scores = (
        subscores.coverage(spec_risks, anaes_risks, risk_matches, config),
        subscores.critical_items(outcomes, config),
        subscores.correctness(counts, config),
        subscores.prioritisation(risk_matches, spec_risks, anaes_risks, config),
        subscores.actionability(spec_actions, anaes_actions, action_matches, config),
    )
    assert tuple(s.name for s in scores) == SUBSCORE_NAMES

    weighted = sum(s.weight * s.value for s in scores)
    uncapped = round(100.0 * weighted, 1)
    major_misses = [
        o.gate_id
        for o in outcomes
        if not o.addressed_by_anaesthetist and o.severity == Severity.MAJOR.value
    ]
    overall = min(uncapped, config.overall_cap_on_major_miss) if major_misses else uncapped
    terms = " + ".join(f"{s.weight:g}·{s.value:.3f}" for s in scores)
    formula = f"100 · ({terms}) = {uncapped:g}"
    if major_misses:
        formula += (
            f"; missed major gate ({', '.join(major_misses)}) caps overall at "
            f"{config.overall_cap_on_major_miss:g}"
        )
    overall_trace = Trace(
        inputs={s.name: {"weight": s.weight, "value": round(s.value, 4)} for s in scores},
        formula=formula,
        result=overall,
    )

    disagreements = find_disagreements(
        record, anaesthetist, specialist, gates, owned, matches, counts, rules=rules
    )
    reasons: list[str] = []
    if major_misses:
        reasons.append(f"missed major gate: {', '.join(major_misses)}")
    if specialist.status == BriefStatus.FAILED:
        reasons.append(f"{specialist.agent} brief failed: {specialist.failure_reason}")
    if anaesthetist.status == BriefStatus.FAILED:
        reasons.append(f"anaesthetist brief failed: {anaesthetist.failure_reason}")
    # a missed moderate gate is a moderate disagreement, counted in critical items; only a
    # major one caps the overall and flags human review
    mutual = [
        d.gate_id
        for d in disagreements
        if d.kind is DisagreementKind.OMITTED_BY_PAIR and d.severity == Severity.MAJOR
    ]
    if mutual:
        reasons.append(f"omitted by both of this pair: {', '.join(g for g in mutual if g)}")
    if any(
        d.kind is DisagreementKind.CONFLICT and d.severity == Severity.MAJOR for d in disagreements
    ):
        reasons.append("major conflict between the brief and the record")

    return Scorecard(
        specialist=specialist.agent,
        subscores=scores,
        overall=overall,
        overall_trace=overall_trace,
        grade=config.grade(overall),
        capped=bool(major_misses),
        human_review=bool(reasons),
        review_reasons=tuple(reasons),
        disagreements=disagreements,
        matches=matches,
        config_version=config.version,
    )
