"""The ASTRID score registry: each per-item score is one entry, stored in long format.

A score is computed by code from one item's verdicts in one repeat (never by the LLM). The
built-in four (cf, cr, ra_refused, ra_correct) are registered here; a new one is one more
`@item_score` function, in this module or any module imported before a run. Every
registered score of every item and repeat is stored as one row of `qa_item_scores` (run,
repeat, item, score name, value) — no column or CHECK list names a score — and shown in
`concord astrid --json` (each run's `scores`, and the item's `mean`). How to add one:
README, "How to add a metric".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from concord.astrid.items import QaItem
from concord.astrid.metrics import (
    CfCounts,
    cf_counts,
    conversational_faithfulness,
    refusal_correct,
)
from concord.astrid.prompts import Metric
from concord.astrid.results import Verdict


@dataclass(frozen=True)
class ScoreInputs:
    """What a score is computed from: the item and its verdicts in one repeat."""

    item: QaItem
    verdicts: tuple[Verdict, ...]

    def item_verdict(self, metric: str) -> Verdict | None:
        """The item-level verdict of `metric` (CR, RA), None when it was not asked."""
        return next((v for v in self.verdicts if v.metric == metric), None)

    def sentence_values(self, metric: str, n: int) -> list[bool | None]:
        """Per-sentence verdict values of `metric` (None where not asked or failed)."""
        by_index = {v.sentence_index: v.value for v in self.verdicts if v.metric == metric}
        return [by_index.get(i) for i in range(n)]

    @property
    def cf_counts(self) -> CfCounts:
        n = 1 + max((v.sentence_index or 0 for v in self.verdicts), default=-1)
        return cf_counts(
            self.sentence_values(Metric.CF_INFO, n), self.sentence_values(Metric.CF_GROUNDED, n)
        )


ScoreFn = Callable[[ScoreInputs], float | None]


@dataclass(frozen=True)
class ItemScoreSpec:
    """One registered per-item score."""

    name: str  # stored id, e.g. "cf"; lower-case, never renamed once stored
    label: str  # what a report calls it
    binary: bool  # 0/1 (a share of items) rather than a fraction in [0, 1]
    compute: ScoreFn  # None: not computable for this item (a failed verdict, no scope)

    def value(self, inputs: ScoreInputs) -> float | None:
        value = self.compute(inputs)
        if value is None:
            return None
        value = float(value)
        if not 0.0 <= value <= 1.0 or (self.binary and value not in (0.0, 1.0)):
            raise ValueError(f"score {self.name} gave {value}, outside its range")
        return value


_REGISTRY: dict[str, ItemScoreSpec] = {}


def register_score(spec: ItemScoreSpec) -> ItemScoreSpec:
    if spec.name in _REGISTRY:
        raise ValueError(f"ASTRID score {spec.name!r} is already registered")
    if not spec.name or spec.name != spec.name.lower() or not spec.name.isidentifier():
        raise ValueError(f"ASTRID score name {spec.name!r} must be a lower-case identifier")
    _REGISTRY[spec.name] = spec
    return spec


def unregister_score(name: str) -> None:
    """Remove a registered score (tests)."""
    _REGISTRY.pop(name, None)


def item_score(name: str, *, label: str, binary: bool = False) -> Callable[[ScoreFn], ScoreFn]:
    """Decorator: register the decorated function as the per-item score `name`."""

    def register(fn: ScoreFn) -> ScoreFn:
        register_score(ItemScoreSpec(name=name, label=label, binary=binary, compute=fn))
        return fn

    return register


def item_scores() -> tuple[ItemScoreSpec, ...]:
    """Every registered score, built-ins first."""
    return tuple(_REGISTRY.values())


def score_values(item: QaItem, verdicts: Sequence[Verdict]) -> dict[str, float | None]:
    """Every registered score of one item in one repeat."""
    inputs = ScoreInputs(item=item, verdicts=tuple(verdicts))
    return {spec.name: spec.value(inputs) for spec in item_scores()}


def _flag(value: bool | None) -> float | None:
    return None if value is None else float(value)


@item_score("cf", label="Conversational faithfulness")
def _cf(inputs: ScoreInputs) -> float:
    return conversational_faithfulness(inputs.cf_counts)


@item_score("cr", label="Context relevant", binary=True)
def _cr(inputs: ScoreInputs) -> float | None:
    verdict = inputs.item_verdict(Metric.CR)
    return None if verdict is None else _flag(verdict.value)


@item_score("ra_refused", label="Answer declines", binary=True)
def _ra_refused(inputs: ScoreInputs) -> float | None:
    verdict = inputs.item_verdict(Metric.RA)
    return None if verdict is None else _flag(verdict.value)


@item_score("ra_correct", label="Refusal matches scope", binary=True)
def _ra_correct(inputs: ScoreInputs) -> float | None:
    verdict = inputs.item_verdict(Metric.RA)
    refused = None if verdict is None else verdict.value
    return _flag(refusal_correct(refused, inputs.item.scope))


BUILTIN_SCORES = ("cf", "cr", "ra_refused", "ra_correct")
"""Also kept as columns of `qa_scores` (migration 2) for the readers written before the
registry; every score, these included, is in `qa_item_scores`."""
