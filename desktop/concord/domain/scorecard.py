"""The adjudication of one specialist brief against the anaesthetist's, with traces."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field

from concord.domain._base import Frozen
from concord.domain.gate import Severity
from concord.domain.record import SpanText


class Trace(Frozen):
    """How a number was computed: inputs -> formula -> result."""

    inputs: dict[str, Any] = Field(description="Named inputs, each JSON-serialisable")
    formula: str = Field(description="The formula in words and symbols")
    result: float


class SubScore(Frozen):
    name: str = Field(description="coverage, critical_items, correctness, prioritisation...")
    weight: float
    value: float = Field(ge=0.0, le=1.0, description="After caps")
    raw_value: float = Field(ge=0.0, le=1.0, description="Before caps")
    cap: float | None = Field(default=None, description="Cap applied, if any")
    trace: Trace
    extra: dict[str, Any] = Field(default_factory=dict, description="e.g. jaccard")


class MatchMethod(StrEnum):
    EXACT = "exact"
    LEXICON = "lexicon"
    FUZZY = "fuzzy"
    LLM = "llm"


class ItemMatch(Frozen):
    specialist_item: str = Field(description="item_id in the specialist brief")
    anaesthetist_item: str = Field(description="item_id in the anaesthetist brief")
    method: MatchMethod
    score: float = Field(description="Similarity 0..100 for fuzzy; 100 otherwise")
    concepts: tuple[str, ...] = Field(default=(), description="Shared lexicon concepts")


class DisagreementKind(StrEnum):
    """What one specialist's brief and the anaesthetist's disagree about (one pair)."""

    MISS = "MISS"
    OVERCALL = "OVERCALL"
    CONFLICT = "CONFLICT"
    AMBIGUOUS = "AMBIGUOUS"
    OMITTED_BY_PAIR = "MUTUAL_OMISSION"
    """A gate the specialist owns that neither brief of this pair addresses. Pairwise: a
    gate may be omitted by this pair and addressed by another brief; the panel-wide list
    (no brief at all) is `Case.mutual_omissions`. The stored value keeps its first name
    (signed cases carry it)."""
    UNVERIFIED_EVIDENCE = "UNVERIFIED_EVIDENCE"

    @property
    def label(self) -> str:
        """How a clinician reads it (the PDF, the app, the command line)."""
        return _KIND_LABELS.get(self, self.value.replace("_", " "))


_KIND_LABELS = {DisagreementKind.OMITTED_BY_PAIR: "OMITTED BY BOTH OF THIS PAIR"}


class Disagreement(Frozen):
    disagreement_id: str = Field(description="Stable within the scorecard, e.g. D1")
    kind: DisagreementKind
    severity: Severity
    description: str
    items: tuple[str, ...] = Field(default=(), description="Brief item ids involved")
    gate_id: str | None = None
    spans: tuple[SpanText, ...] = ()


class Scorecard(Frozen):
    specialist: str
    subscores: tuple[SubScore, ...]
    overall: float = Field(ge=0.0, le=100.0)
    overall_trace: Trace
    grade: str = Field(description="High, Medium, Low or Very Low")
    capped: bool = Field(description="Overall was capped by a missed major gate")
    human_review: bool
    review_reasons: tuple[str, ...] = ()
    disagreements: tuple[Disagreement, ...] = ()
    matches: tuple[ItemMatch, ...] = ()
    config_version: str
    judge_runs: int = 1
    judge_spread: float = Field(default=0.0, description="max - min overall across judge runs")

    def subscore(self, name: str) -> SubScore:
        for s in self.subscores:
            if s.name == name:
                return s
        raise KeyError(name)

    @property
    def cap_lowered(self) -> bool:
        """Did the cap for a missed major gate lower the overall? (A score already under the
        cap is `capped` but unchanged by it.) The uncapped overall is 100 · Σ weight ·
        sub-score, rounded as adjudication rounds it."""
        uncapped = round(100.0 * sum(s.weight * s.value for s in self.subscores), 1)
        return self.capped and self.overall < uncapped
