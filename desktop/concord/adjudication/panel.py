"""A judge panel: N judge runs (seeds) that may each propose extra item matches.

Each run's proposals go through the same deterministic adjudication. The panel keeps the
most conservative scorecard (lowest overall), reports the spread, and sends the case to
human review when the runs disagree by more than the configured spread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from concord.adjudication.adjudicate import ACTION_SECTIONS, adjudicate, items_in
from concord.adjudication.config import ScoringConfig
from concord.adjudication.gates import GateRule
from concord.adjudication.matching import ConceptFinder, match_items
from concord.domain import Brief, BriefItem, BriefSection, GateHit, Record, Scorecard

# (unmatched specialist items, unmatched anaesthetist items, seed) -> proposed (spec, anaes) ids
Proposer = Callable[[Sequence[BriefItem], Sequence[BriefItem], int], list[tuple[str, str]]]
Ask = tuple[list[BriefItem], list[BriefItem], int]
"""What a judge run asks the proposer: the items code left unmatched, and the run's seed."""


def _unmatched(
    anaes: Brief, spec: Brief, lexicon: ConceptFinder, config: ScoringConfig
) -> tuple[list[BriefItem], list[BriefItem]]:
    spec_left: list[BriefItem] = []
    anaes_left: list[BriefItem] = []
    groups = ((BriefSection.TOP_RISKS,), ACTION_SECTIONS)
    for sections in groups:
        s_items = items_in(spec, sections)
        a_items = items_in(anaes, sections)
        matches = match_items(s_items, a_items, lexicon, config.matching)
        s_done = {m.specialist_item for m in matches}
        a_done = {m.anaesthetist_item for m in matches}
        spec_left += [i for i in s_items if i.item_id not in s_done]
        anaes_left += [i for i in a_items if i.item_id not in a_done]
    return spec_left, anaes_left


def proposer_asks(
    anaesthetist: Brief,
    specialist: Brief,
    *,
    lexicon: ConceptFinder,
    config: ScoringConfig,
    runs: int,
) -> list[Ask]:
    """What `judge_panel` will ask the proposer, run by run (nothing when code matched every
    item of one side): asked beforehand, the answers for several briefs can be decoded
    together."""
    spec_left, anaes_left = _unmatched(anaesthetist, specialist, lexicon, config)
    if not (spec_left and anaes_left):
        return []
    return [(spec_left, anaes_left, seed) for seed in range(runs)]


def judge_panel(
    record: Record,
    anaesthetist: Brief,
    specialist: Brief,
    gates: Sequence[GateHit],
    *,
    rules: Mapping[str, GateRule],
    lexicon: ConceptFinder,
    config: ScoringConfig,
    runs: int = 0,
    proposer: Proposer | None = None,
) -> Scorecard:
    """Adjudicate once deterministically, or `runs` times with LLM match proposals."""

    def score(proposals: list[tuple[str, str]]) -> Scorecard:
        return adjudicate(
            record,
            anaesthetist,
            specialist,
            gates,
            rules=rules,
            lexicon=lexicon,
            config=config,
            llm_proposals=proposals,
        )

    if runs <= 0 or proposer is None:
        return score([])
    asks = proposer_asks(anaesthetist, specialist, lexicon=lexicon, config=config, runs=runs)
    cards = [score(proposer(*ask)) for ask in asks] or [score([])]
    chosen = min(cards, key=lambda c: c.overall)
    spread = round(max(c.overall for c in cards) - chosen.overall, 1)
    reasons = list(chosen.review_reasons)
    if spread > config.judge_panel.max_overall_spread:
        reasons.append(
            f"judge runs disagree: overall spread {spread:g} > "
            f"{config.judge_panel.max_overall_spread:g}"
        )
    return chosen.model_copy(
        update={
            "judge_runs": runs,
            "judge_spread": spread,
            "review_reasons": tuple(reasons),
            "human_review": bool(reasons),
        }
    )
