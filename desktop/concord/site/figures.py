"""What a validation reports, as stored and printed: the figures of each model on the
reference cases, and what a change of resources would change. Pydantic, versioned: a report
is stored whole (`validations`), hashed into its audit row and into any acceptance."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from concord.domain import ResourceVersions

REPORT_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Rate(_Model):
    """numerator / denominator; rate None when there is nothing to count."""

    numerator: int = 0
    denominator: int = 0

    @property
    def rate(self) -> float | None:
        return self.numerator / self.denominator if self.denominator else None

    def __add__(self, other: Rate) -> Rate:
        return Rate(
            numerator=self.numerator + other.numerator,
            denominator=self.denominator + other.denominator,
        )

    def text(self) -> str:
        rate = self.rate
        shown = "n/a" if rate is None else f"{rate:.0%}"
        return f"{shown} ({self.numerator}/{self.denominator})"


class Agreement(_Model):
    """Cohen's kappa of paired labels (model vs clinicians) with its 95% interval."""

    n: int = Field(description="Paired labels")
    kappa: float | None = Field(default=None, description="None: undefined (n = 0 or one class)")
    ci_low: float | None = None
    ci_high: float | None = None
    observed: float | None = Field(default=None, description="Share of labels that agree")
    method: str = Field(default="", description="How the interval was computed")
    labels: tuple[str, ...] = Field(default=(), description="The categories compared")
    note: str = ""


class RecordFigures(_Model):
    """One reference patient, one model."""

    record_id: str
    record_name: str
    case_id: str = Field(description="The case the figures come from ('' if the run failed)")
    reused: bool = Field(default=False, description="An earlier case of this model was used")
    briefs: Rate = Field(default_factory=Rate, description="Valid briefs / briefs written")
    evidence: Rate = Field(default_factory=Rate, description="Verified / evidence lines")
    gates: Rate = Field(default_factory=Rate, description="Addressed / triggered gates")
    seconds: float | None = None
    peak_memory_mb: float | None = None
    worst_grade: str | None = None
    error: str = ""


class ModelFigures(_Model):
    role: Literal["candidate", "accepted", "demonstration"]
    model_name: str
    model_sha256: str
    records: int = Field(description="Reference patients the model was run on")
    valid_outputs: Rate
    verified_evidence: Rate
    gates_addressed: Rate
    judge_agreement: Agreement
    astrid_agreement: Agreement | None = None
    seconds_per_patient: float | None = None
    peak_memory_mb: float | None = None
    per_record: tuple[RecordFigures, ...] = ()
    notes: tuple[str, ...] = ()


class ReferenceSummary(_Model):
    """The reference set the figures rest on."""

    cases: int = Field(description="Stored cases with at least one clinician decision")
    records: int
    decisions: int = Field(description="Clinician decisions in force on those cases")
    gate_confirmations: int = Field(description="Triggered gates a clinician accepted")
    regression_cases: int = Field(
        description="Gate overrides: false fires, and findings a clinician added as missed"
    )
    astrid_labelled: int = Field(default=0, description="ASTRID items with human labels")
    eval_labelled: int = Field(default=0, description="EVAL answers graded by a clinician")
    sampled_records: tuple[str, ...] = ()


class CheckResult(_Model):
    name: str
    threshold: str
    value: str
    passed: bool


class ModelReport(_Model):
    version: int = REPORT_VERSION
    kind: Literal["model"] = "model"
    validation_id: str
    created_at: datetime
    created_by: str
    resources: ResourceVersions
    reference: ReferenceSummary
    sample: int | None = None
    candidate: ModelFigures
    accepted: ModelFigures | None = None
    policy: dict[str, Any]
    policy_sha256: str
    checks: tuple[CheckResult, ...]
    passed: bool
    machine: dict[str, Any] = Field(default_factory=dict, description="cores, load average")


class GateChange(_Model):
    case_id: str
    record_id: str
    gate_id: str
    change: Literal["newly fires", "stops firing", "severity changed", "negated changed"]
    before: str
    after: str
    clinician: str = Field(
        default="", description="confirmed, false fire, added as missed, or '' (no decision)"
    )
    drops_confirmed: bool = False


class GradeChange(_Model):
    case_id: str
    specialist: str
    before_overall: float
    after_overall: float
    before_grade: str
    after_grade: str
    clinician_overall: float | None = None


class SignOff(_Model):
    user: str
    role: str
    reason: str
    at: str
    signature: str
    statement: dict[str, Any]


class ResourcesReport(_Model):
    version: int = REPORT_VERSION
    kind: Literal["resources"] = "resources"
    validation_id: str
    created_at: datetime
    created_by: str
    candidate_dir: str
    installed: ResourceVersions
    candidate: ResourceVersions
    changed_parts: tuple[str, ...]
    model_sha256: str = Field(description="The model the cases were re-adjudicated for")
    cases: int
    gate_changes: tuple[GateChange, ...]
    grade_changes: tuple[GradeChange, ...]
    per_gate: dict[str, dict[str, int]]
    dropped_confirmed: int
    needs_model_run: bool = Field(
        description="Prompts or agents changed: briefs must be written again "
        "(`concord validate model NAME --resources DIR`)"
    )
    sign_off: SignOff | None = None
    passed: bool
    note: str = ""
