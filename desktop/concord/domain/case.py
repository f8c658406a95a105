"""A case: one run of the panel and adjudication on one record."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, model_validator

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


class InjectionFinding(Frozen):
    """Instruction-like text in the record, or a place where a brief quotes or cites it."""

    kind: Literal["record", "quoted_by_agent"]
    pattern: str = Field(description="Name of the instruction pattern that matched")
    source_id: str | None = None
    start: int | None = Field(default=None, description="The record line holding the text")
    end: int | None = None
    line_id: str | None = None
    text: str = Field(description="The record line (or the brief item) holding the text")
    match: str = Field(default="", description="The matched text (record findings)")
    agent: str = Field(default="", description="The brief that quotes it")
    where: Literal["", "evidence", "item"] = ""
    id: str = Field(default="", description="Evidence or item id in that brief")


class BatchRequest(Frozen):
    server: str
    label: str
    seconds: float
    prompt_tokens: int
    completion_tokens: int
    prefix_reused: bool
    failed_over_from: tuple[str, ...] = ()


class BatchProvenance(Frozen):
    """Which llama.cpp server produced each brief of a batch case, and every request made."""

    brief_servers: dict[str, str]
    requests: tuple[BatchRequest, ...]
    server_models: dict[str, Any] = Field(default_factory=dict)
    model_verified: bool = Field(
        default=False, description="A remote model file cannot be hashed from here"
    )


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
    judges: int = Field(default=0, description="Judge runs that proposed item matches")
    specialists_chosen: tuple[str, ...] = Field(
        default=(), description="Specialists the panel consulted, in order"
    )
    judge_failures: tuple[str, ...] = Field(default=(), description="Judge runs that failed")
    injection: tuple[InjectionFinding, ...] = ()
    batch: BatchProvenance | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_meta(cls, data: Any) -> Any:
        """Cases stored before these fields were typed kept them in a free-form `meta`."""
        if isinstance(data, dict) and "meta" in data:
            data = dict(data)
            meta = data.pop("meta") or {}
            data.setdefault("judges", meta.get("judges", 0))
            data.setdefault("specialists_chosen", meta.get("specialists", ()))
            data.setdefault("judge_failures", meta.get("judge_failures", ()))
            data.setdefault("injection", meta.get("injection", ()))
            data.setdefault("batch", meta.get("batch"))
        return data

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
            or bool(self.injection)
        )
