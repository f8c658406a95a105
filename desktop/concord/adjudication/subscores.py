"""The five sub-scores, each a pure function returning its value and the trace behind it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scipy.stats import kendalltau

from concord.adjudication.config import ScoringConfig
from concord.domain import BriefItem, ItemMatch, SubScore, Trace
from concord.evidence.numbers import quantities


def _clip01(value: float) -> float:
    return max(0.0, min(1.0, value))


def _subscore(
    name: str,
    config: ScoringConfig,
    value: float,
    inputs: dict[str, Any],
    formula: str,
    *,
    raw: float | None = None,
    cap: float | None = None,
    extra: dict[str, Any] | None = None,
) -> SubScore:
    """The sub-score `name` with its configured weight; the trace's result is `value`."""
    return SubScore(
        name=name,
        weight=config.weights[name],
        value=value,
        raw_value=value if raw is None else raw,
        cap=cap,
        trace=Trace(inputs=inputs, formula=formula, result=round(value, 4)),
        extra=extra or {},
    )


def coverage(
    specialist_risks: Sequence[BriefItem],
    anaesthetist_risks: Sequence[BriefItem],
    matches: Sequence[ItemMatch],
    config: ScoringConfig,
) -> SubScore:
    spec_ids = {i.item_id for i in specialist_risks}
    matched = sorted({m.specialist_item for m in matches if m.specialist_item in spec_ids})
    total = len(spec_ids)
    union = total + len(anaesthetist_risks) - len(matched)
    jaccard = len(matched) / union if union else 0.0
    if total:
        value = len(matched) / total
        formula = "matched specialist risks / all specialist risks"
    else:
        value = 1.0
        formula = "the specialist listed no risks: nothing to cover (1)"
    inputs = {
        "matched": len(matched),
        "specialist_risks": total,
        "anaesthetist_risks": len(anaesthetist_risks),
        "matched_items": matched,
    }
    return _subscore(
        "coverage",
        config,
        value,
        inputs,
        f"{formula} = {len(matched)}/{total}",
        extra={
            "jaccard": round(jaccard, 4),
            "jaccard_formula": f"|A∩S| / |A∪S| = {len(matched)}/{union}",
        },
    )


@dataclass(frozen=True)
class GateOutcome:
    """One triggered gate owned by the specialty, and whether the anaesthetist addressed it."""

    gate_id: str
    severity: str
    addressed_by_anaesthetist: bool


def critical_items(outcomes: Sequence[GateOutcome], config: ScoringConfig) -> SubScore:
    total = len(outcomes)
    addressed = [o.gate_id for o in outcomes if o.addressed_by_anaesthetist]
    major_misses = [
        o.gate_id for o in outcomes if not o.addressed_by_anaesthetist and o.severity == "major"
    ]
    raw = len(addressed) / total if total else 1.0
    caps = config.critical_caps
    cap: float | None = None
    if len(major_misses) >= 2:
        cap = caps.two_or_more_major_misses
    elif len(major_misses) == 1:
        cap = caps.one_major_miss
    value = min(raw, cap) if cap is not None else raw
    if total:
        formula = f"addressed triggered gates / triggered gates = {len(addressed)}/{total}"
    else:
        formula = "no gate of this specialty fired on the record: nothing to miss (1)"
    if cap is not None:
        formula += f"; capped at {cap} for {len(major_misses)} major miss(es)"
    inputs = {
        "triggered_gates": [o.gate_id for o in outcomes],
        "addressed": addressed,
        "major_misses": major_misses,
    }
    return _subscore("critical_items", config, value, inputs, formula, raw=raw, cap=cap)


@dataclass(frozen=True)
class ClaimCounts:
    claims: tuple[str, ...]
    unsupported: tuple[str, ...]
    contradicted: tuple[str, ...]
    vague: tuple[str, ...]


def correctness(counts: ClaimCounts, config: ScoringConfig) -> SubScore:
    p = config.correctness_penalties
    n = len(counts.claims)
    penalty = (
        p.unsupported * len(counts.unsupported)
        + p.contradicted * len(counts.contradicted)
        + p.vague * len(counts.vague)
    )
    if n:
        raw = 1.0 - penalty / n
        formula = (
            f"1 − ({p.unsupported:g}·unsupported + {p.contradicted:g}·contradicted + "
            f"{p.vague:g}·vague) / claims = 1 − ({len(counts.unsupported)} + "
            f"{p.contradicted:g}·{len(counts.contradicted)} + {p.vague:g}·{len(counts.vague)})"
            f" / {n}, clipped to [0, 1]"
        )
    else:
        raw = 0.0
        formula = "the anaesthetist brief makes no claims: nothing is supported (0)"
    value = _clip01(raw)
    inputs = {
        "claims": n,
        "unsupported": list(counts.unsupported),
        "contradicted": list(counts.contradicted),
        "vague": list(counts.vague),
    }
    return _subscore(
        "correctness", config, value, inputs, formula, extra={"unclipped": round(raw, 4)}
    )


def prioritisation(
    matches: Sequence[ItemMatch],
    specialist_risks: Sequence[BriefItem],
    anaesthetist_risks: Sequence[BriefItem],
    config: ScoringConfig,
) -> SubScore:
    spec_rank = {i.item_id: i.rank for i in specialist_risks}
    anaes_rank = {i.item_id: i.rank for i in anaesthetist_risks}
    pairs = [
        (spec_rank[m.specialist_item], anaes_rank[m.anaesthetist_item])
        for m in matches
        if m.specialist_item in spec_rank and m.anaesthetist_item in anaes_rank
    ]
    pairs.sort()
    if len(pairs) >= 2:
        tau = float(kendalltau([a for a, _ in pairs], [b for _, b in pairs]).statistic)
        value = _clip01((tau + 1.0) / 2.0)
        formula = f"(Kendall τ + 1) / 2 over {len(pairs)} matched risks = ({tau:.3f} + 1) / 2"
    elif len(pairs) == 1:
        tau, value = 1.0, 1.0
        formula = "a single matched risk: its order cannot disagree (1)"
    else:
        tau, value = 0.0, 0.0
        formula = "no matched risks: no shared order to compare (0)"
    inputs = {"rank_pairs_specialist_anaesthetist": pairs, "kendall_tau": round(tau, 4)}
    return _subscore("prioritisation", config, value, inputs, formula)


def threshold_credit(spec_item: BriefItem, anaes_item: BriefItem, config: ScoringConfig) -> float:
    """Full credit when every threshold (number and unit) the specialist wrote is repeated."""
    wanted = quantities(spec_item.text)
    if wanted and wanted <= quantities(anaes_item.text):
        return config.actionability_credit.same_threshold
    if not wanted:
        return config.actionability_credit.same_threshold
    return config.actionability_credit.concept_only


def actionability(
    specialist_actions: Sequence[BriefItem],
    anaesthetist_actions: Sequence[BriefItem],
    matches: Sequence[ItemMatch],
    config: ScoringConfig,
) -> SubScore:
    anaes = {i.item_id: i for i in anaesthetist_actions}
    matched = {
        m.specialist_item: anaes[m.anaesthetist_item]
        for m in matches
        if m.anaesthetist_item in anaes
    }
    credits: dict[str, float] = {}
    for item in specialist_actions:
        partner = matched.get(item.item_id)
        credits[item.item_id] = threshold_credit(item, partner, config) if partner else 0.0
    if credits:
        value = sum(credits.values()) / len(credits)
        formula = (
            "mean credit over specialist actions/triggers: 1 same threshold and unit, "
            f"0.5 concept only, 0 unmatched = {sum(credits.values()):g}/{len(credits)}"
        )
    else:
        value = 1.0
        formula = "the specialist gave no actions or triggers: nothing to align (1)"
    return _subscore("actionability", config, value, {"credits": credits}, formula)
