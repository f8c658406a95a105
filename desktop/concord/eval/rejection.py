"""Rejection sampling: of K candidate answers to a question at one configuration, keep the
one the reward model scores highest. Reported as human-graded accuracy with and without it,
per temperature band (the form of Table 2 of the EVAL paper), over graded answers only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from concord.eval.bands import BANDS, OVERALL, band_of, band_titles


@dataclass(frozen=True)
class Candidate:
    answer_id: str
    group: str  # question + configuration: the K candidates compete within it
    temperature: float
    sample: int
    score: float


def pick_best(candidates: Sequence[Candidate]) -> Candidate:
    """The arg-max of the reward score; ties go to the earliest sample (deterministic)."""
    if not candidates:
        raise ValueError("no candidates")
    return max(candidates, key=lambda c: (c.score, -c.sample))


def select(candidates: Sequence[Candidate], k: int) -> dict[str, Candidate]:
    """group -> chosen candidate, among each group's first k samples."""
    groups: dict[str, list[Candidate]] = {}
    for c in candidates:
        if c.sample < k:
            groups.setdefault(c.group, []).append(c)
    return {group: pick_best(items) for group, items in groups.items()}


def _accuracy(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def rejection_table(
    candidates: Sequence[Candidate],
    human: Mapping[str, str],
    k: int,
    training_ids: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Only candidates a human graded take part, so every accuracy is a human one."""
    graded = [c for c in candidates if c.answer_id in human and c.sample < k]
    chosen = select(graded, k)
    columns: dict[str, Any] = {}
    titles = band_titles()
    for name in (OVERALL, *(b.name for b in BANDS)):

        def in_band(c: Candidate, name: str = name) -> bool:
            return name == OVERALL or band_of(c.temperature) == name

        base = [human[c.answer_id] == "good" for c in graded if in_band(c)]
        picks = [c for c in chosen.values() if in_band(c)]
        with_rs = [human[c.answer_id] == "good" for c in picks]
        baseline, rejected = _accuracy(base), _accuracy(with_rs)
        improvement = None
        if baseline and rejected is not None:
            improvement = round(100.0 * (rejected - baseline) / baseline, 1)
        columns[name] = {
            "title": titles[name],
            "baseline": baseline,
            "with_rejection_sampling": rejected,
            "improvement_pct": improvement,
            "graded_answers": len(base),
            "questions_x_configs": len(picks),
            "chosen_in_training": sum(c.answer_id in training_ids for c in picks),
        }
    return {"k": k, "columns": columns, "chosen": sorted(c.answer_id for c in chosen.values())}
