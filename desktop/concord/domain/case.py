"""A case: one run of the panel and adjudication on one record."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field

from concord.domain._base import Frozen
from concord.domain.brief import Brief
from concord.domain.gate import GateHit
from concord.domain.scorecard import Scorecard
from concord.domain.target import TargetKind, TargetRef


class CaseStatus(StrEnum):
    NOT_RUN = "not run"
    RUNNING = "running"
    NEEDS_REVIEW = "needs review"
    REVIEWED = "reviewed"
    SIGNED = "signed"
    FAILED = "failed"


class Target(Frozen):
    """A judgement that a human can accept or override."""

    id: str = Field(description="Stable id (`TargetRef.format()`), e.g. gate/hyperkalaemia")
    kind: TargetKind
    value: Any
    label: str = Field(default="", description="Human description")

    @property
    def ref(self) -> TargetRef:
        return TargetRef.parse(self.id)


class Case(Frozen):
    case_id: str
    record_id: str
    created_at: datetime
    model_sha256: str
    model_name: str
    operation: str = ""
    operation_source: str = Field(
        default="", description="'record', 'surgeon agent', or why no operation was named"
    )
    briefs: tuple[Brief, ...] = ()
    gates: tuple[GateHit, ...] = ()
    scorecards: tuple[Scorecard, ...] = ()
    mutual_omissions: tuple[str, ...] = Field(default=(), description="Gate ids both missed")
    config_version: str = ""
    timings: dict[str, float] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)

    def brief(self, agent: str) -> Brief:
        for b in self.briefs:
            if b.agent == agent:
                return b
        raise KeyError(agent)

    @property
    def worst_grade(self) -> str | None:
        """The grade of the lowest-scoring brief (grades are bands of the overall score)."""
        if not self.scorecards:
            return None
        return min(self.scorecards, key=lambda s: s.overall).grade

    @property
    def human_review(self) -> bool:
        return (
            any(s.human_review for s in self.scorecards)
            or bool(self.mutual_omissions)
            or bool(self.meta.get("injection"))
        )
