"""Match specialist brief items to anaesthetist brief items: exact, lexicon, fuzzy, then LLM.

Matching is one-to-one and greedy by strength, so the same anaesthetist bullet cannot be
credited twice. Matches an LLM proposed keep the method `llm` so a reader can tell.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rapidfuzz import fuzz

from concord.adjudication.config import MatchingThresholds
from concord.domain import BriefItem, ItemMatch, MatchMethod

_METHOD_STRENGTH = {MatchMethod.EXACT: 3, MatchMethod.LEXICON: 2, MatchMethod.FUZZY: 1}


class ConceptFinder(Protocol):
    def concepts_in(self, text: str) -> frozenset[str]: ...


@dataclass(frozen=True)
class _Candidate:
    spec: BriefItem
    anaes: BriefItem
    method: MatchMethod
    score: float
    concepts: tuple[str, ...]


def normalise(text: str) -> str:
    return " ".join(re.sub(r"[^\w%+./]+", " ", text.lower()).split())


def _candidate(
    spec: BriefItem, anaes: BriefItem, lexicon: ConceptFinder, limits: MatchingThresholds
) -> _Candidate | None:
    if normalise(spec.text) == normalise(anaes.text) and normalise(spec.text):
        return _Candidate(spec, anaes, MatchMethod.EXACT, 100.0, ())
    spec_concepts = lexicon.concepts_in(spec.text)
    anaes_concepts = lexicon.concepts_in(anaes.text)
    shared = spec_concepts & anaes_concepts
    union = spec_concepts | anaes_concepts
    if shared and len(shared) / len(union) >= limits.lexicon_min_jaccard:
        jaccard = 100.0 * len(shared) / len(union)
        return _Candidate(spec, anaes, MatchMethod.LEXICON, jaccard, tuple(sorted(shared)))
    score = float(fuzz.token_set_ratio(normalise(spec.text), normalise(anaes.text)))
    if score >= limits.fuzzy_threshold:
        return _Candidate(spec, anaes, MatchMethod.FUZZY, score, tuple(sorted(shared)))
    return None


def match_items(
    specialist_items: Sequence[BriefItem],
    anaesthetist_items: Sequence[BriefItem],
    lexicon: ConceptFinder,
    limits: MatchingThresholds,
    llm_proposals: Iterable[tuple[str, str]] = (),
) -> tuple[ItemMatch, ...]:
    """One-to-one matches; deterministic methods first, then LLM proposals for what is left."""
    candidates = [
        c
        for spec in specialist_items
        for anaes in anaesthetist_items
        if (c := _candidate(spec, anaes, lexicon, limits)) is not None
    ]
    candidates.sort(
        key=lambda c: (-_METHOD_STRENGTH[c.method], -c.score, c.spec.item_id, c.anaes.item_id)
    )
    used_spec: set[str] = set()
    used_anaes: set[str] = set()
    matches: list[ItemMatch] = []
    for c in candidates:
        if c.spec.item_id in used_spec or c.anaes.item_id in used_anaes:
            continue
        used_spec.add(c.spec.item_id)
        used_anaes.add(c.anaes.item_id)
        matches.append(
            ItemMatch(
                specialist_item=c.spec.item_id,
                anaesthetist_item=c.anaes.item_id,
                method=c.method,
                score=round(c.score, 1),
                concepts=c.concepts,
            )
        )
    spec_ids = {i.item_id for i in specialist_items}
    anaes_ids = {i.item_id for i in anaesthetist_items}
    for spec_id, anaes_id in llm_proposals:
        if spec_id in spec_ids - used_spec and anaes_id in anaes_ids - used_anaes:
            used_spec.add(spec_id)
            used_anaes.add(anaes_id)
            matches.append(
                ItemMatch(
                    specialist_item=spec_id,
                    anaesthetist_item=anaes_id,
                    method=MatchMethod.LLM,
                    score=100.0,
                )
            )
    return tuple(matches)
