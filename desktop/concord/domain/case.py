"""A case: one run of the panel and adjudication on one record."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, model_validator

from concord.domain._base import Frozen
from concord.domain.brief import Brief, BriefStatus
from concord.domain.gate import GateHit, GateStatus, Severity
from concord.domain.scorecard import Scorecard
from concord.domain.target import TargetKind, TargetRef
from concord.domain.versions import CaseMode, ResourceVersions


class CaseStatus(StrEnum):
    """Where a case is in its life. Every state is shown as it is; none is silent:

    not run -> running -> run failed (a reason, human review, re-run makes a new case)
                       -> needs review -> reviewed -> signed -> amended (re-sign required)
                                                       ^-------------------'
    """

    NOT_RUN = "not run"
    RUNNING = "running"
    RUN_FAILED = "run failed"
    NEEDS_REVIEW = "needs review"
    REVIEWED = "reviewed"
    SIGNED = "signed"
    AMENDED = "amended - re-sign required"

    @property
    def signable(self) -> bool:
        """A clinician may sign (or, when amended, sign again) in this state."""
        return self in (CaseStatus.REVIEWED, CaseStatus.AMENDED)


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


UNVERIFIED_MODEL_SHA256 = "0" * 64
"""The model hash of a case or brief written from a remote server's answers: a model file on
another machine cannot be hashed from here, so no hash is claimed for it."""


class BatchProvenance(Frozen):
    """Which llama.cpp server produced each brief of a batch case, and every request made."""

    brief_servers: dict[str, str]
    requests: tuple[BatchRequest, ...]
    server_models: dict[str, Any] = Field(
        default_factory=dict, description="URL -> the model id the server reports (unverified)"
    )
    model_verified: bool = Field(
        default=False, description="A remote model file cannot be hashed from here"
    )
    requested_model: str = Field(
        default="", description="The registered model the servers were asked to run"
    )

    def provenance_line(self) -> str:
        """Who wrote the briefs, as the PDF and the CLI print it."""
        reported = sorted({str(m) for m in self.server_models.values()}) or ["nothing"]
        asked = f" (requested {self.requested_model})" if self.requested_model else ""
        state = "verified" if self.model_verified else "NOT VERIFIED"
        return (
            f"answered by llama.cpp server(s) {', '.join(sorted(set(self.brief_servers.values())))}"
            f", which report the model {', '.join(reported)}{asked}; {state}: a model file on "
            "another machine cannot be hashed from here"
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
    resources: ResourceVersions | None = Field(
        default=None,
        description="Content hashes of the gates, lexicon, prompts, agents and scoring the "
        "case was run with (None: run before versions were recorded)",
    )
    mode: CaseMode | None = Field(
        default=None,
        description="clinical, demonstration or silent, fixed at run time by the site's "
        "acceptances (None: run before site validation existed)",
    )
    acceptance_id: str = Field(
        default="", description="The site acceptance covering (model, resources), if any"
    )

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
    def run_failure(self) -> str | None:
        """Why the run failed, or None. Without the anaesthetist brief (the reference every
        specialist is compared with) nothing was adjudicated: the case is not a clean one."""
        try:
            anaesthetist = self.brief("anaesthetist")
        except KeyError:
            return "the anaesthetist brief is missing"
        if anaesthetist.status == BriefStatus.FAILED:
            return f"the anaesthetist brief failed: {anaesthetist.failure_reason or 'no reason'}"
        return None

    @property
    def red_flags(self) -> tuple[GateHit, ...]:
        """The triggered gates, major before moderate, each in the screen's order."""
        fired = [g for g in self.gates if g.status == GateStatus.TRIGGERED]
        return tuple(sorted(fired, key=lambda g: g.severity.rank))

    @property
    def major_gates(self) -> tuple[str, ...]:
        """Ids of the triggered major gates."""
        return tuple(
            g.gate_id
            for g in self.gates
            if g.status == GateStatus.TRIGGERED and g.severity == Severity.MAJOR
        )

    @property
    def review_reasons(self) -> tuple[str, ...]:
        """Why a human must review the case (empty: no automatic flag)."""
        reasons: list[str] = []
        if self.run_failure:
            reasons.append(f"run failed: {self.run_failure}")
        if self.major_gates:
            reasons.append("triggered major gate: " + ", ".join(self.major_gates))
        major = set(self.major_gates)
        missed_major = [g for g in self.mutual_omissions if g in major]
        if missed_major:
            reasons.append("mutual omission of " + ", ".join(missed_major))
        for card in self.scorecards:
            reasons += [f"{card.specialist}: {r}" for r in card.review_reasons]
            if card.human_review and not card.review_reasons:
                reasons.append(f"{card.specialist}: flagged by the judge")
        if self.injection:
            reasons.append("the record contains text addressed to a model")
        return tuple(dict.fromkeys(reasons))

    @property
    def human_review(self) -> bool:
        """Any triggered major gate, a failed run, a major gate missed by every brief or a
        judge's flag (a moderate red flag alone does not flag the case)."""
        return bool(self.review_reasons)

    @property
    def silent(self) -> bool:
        """Run with a (model, resources) combination the site has not accepted."""
        return self.mode is CaseMode.SILENT

    @property
    def mode_label(self) -> str:
        if self.mode is None:
            return "recorded before site validation"
        return self.mode.label

    @property
    def initial_status(self) -> CaseStatus:
        """The status a case is stored with when its run ends."""
        return CaseStatus.RUN_FAILED if self.run_failure else CaseStatus.NEEDS_REVIEW
