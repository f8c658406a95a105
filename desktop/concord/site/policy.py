"""The site's validation policy: the thresholds a candidate's figures must meet before a
clinician and an admin may sign its acceptance. `CONCORD_HOME/policy.json`, written with the
defaults below on first use; the site edits it (a threshold set to null is not checked).

A bad file is one clear error naming the file and the field; nothing is accepted under a
policy that does not read.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from concord import paths
from concord.atomic_io import write_atomic
from concord.errors import InputError, first_validation_error
from concord.site.figures import ModelFigures

POLICY_FILE = "policy.json"


class SitePolicy(BaseModel):
    """Thresholds for accepting a (model, resources) combination. Fractions are of the
    reference cases the candidate was run on; null switches a check off."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: Literal[1] = Field(default=1, description="Format of this file")
    min_reference_cases: int = Field(
        default=10, ge=1, description="Patients the candidate must have been run on"
    )
    min_valid_outputs: float | None = Field(
        default=0.9, ge=0.0, le=1.0, description="Briefs that fit the schema / briefs asked"
    )
    min_verified_evidence: float | None = Field(
        default=0.9, ge=0.0, le=1.0, description="Evidence lines verified against the record"
    )
    min_gates_addressed: float | None = Field(
        default=0.5, ge=0.0, le=1.0, description="Triggered gates the briefs address"
    )
    min_judge_kappa_lower: float | None = Field(
        default=0.2,
        ge=-1.0,
        le=1.0,
        description="Lower end of the 95% interval of Cohen's kappa, judge vs clinicians",
    )
    min_judge_n: int = Field(
        default=20, ge=0, description="Clinician decisions the judge agreement rests on"
    )
    min_astrid_kappa: float | None = Field(
        default=None,
        ge=-1.0,
        le=1.0,
        description="Kappa against human ASTRID labels (checked only where labelled)",
    )
    max_seconds_per_patient: float | None = Field(
        default=1800.0, gt=0, description="Mean wall time of one patient's panel"
    )
    max_peak_memory_mb: float | None = Field(
        default=16000.0, gt=0, description="Peak resident memory of the model process"
    )
    max_drop_vs_accepted: float | None = Field(
        default=0.05,
        ge=0.0,
        le=1.0,
        description="How far valid outputs, verified evidence and gates addressed may fall "
        "below the accepted model's on the same cases",
    )

    def sha256(self) -> str:
        text = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def policy_path(home: Path | None = None) -> Path:
    return (home or paths.concord_home()) / POLICY_FILE


def load_policy(home: Path | None = None) -> SitePolicy:
    """The site's policy; the defaults are written to the file on first use."""
    path = policy_path(home)
    if not path.exists():
        policy = SitePolicy()
        text = json.dumps(policy.model_dump(mode="json"), indent=2) + "\n"
        write_atomic(path, text.encode("utf-8"))
        return policy
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the site policy: {exc}", subject=path) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"the site policy is not valid JSON (line {exc.lineno}: {exc.msg})", subject=path
        ) from None
    try:
        return SitePolicy.model_validate(data)
    except ValidationError as exc:
        where, problem = first_validation_error(exc)
        raise InputError(
            f"invalid site policy: {where or 'top level'}: {problem}", subject=path
        ) from None


@dataclass(frozen=True)
class Check:
    """One threshold against one figure."""

    name: str
    threshold: str
    value: str
    passed: bool

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "threshold": self.threshold,
            "value": self.value,
            "passed": self.passed,
        }


def _fmt(value: float | None, digits: int = 3) -> str:
    return "not measured" if value is None else f"{value:.{digits}g}"


def evaluate(
    policy: SitePolicy, candidate: ModelFigures, accepted: ModelFigures | None = None
) -> list[Check]:
    """Every check the policy switches on, for the candidate (beside `accepted`, the model
    in force, where the policy compares them). A figure that could not be measured fails
    its check."""
    checks = [
        Check(
            "reference cases",
            f">= {policy.min_reference_cases}",
            str(candidate.records),
            candidate.records >= policy.min_reference_cases,
        )
    ]

    def at_least(name: str, threshold: float | None, value: float | None) -> None:
        if threshold is not None:
            passed = value is not None and value >= threshold
            checks.append(Check(name, f">= {threshold:g}", _fmt(value), passed))

    def at_most(name: str, threshold: float | None, value: float | None) -> None:
        if threshold is not None:
            passed = value is not None and value <= threshold
            checks.append(Check(name, f"<= {threshold:g}", _fmt(value, 4), passed))

    at_least("valid outputs", policy.min_valid_outputs, candidate.valid_outputs.rate)
    at_least("verified evidence", policy.min_verified_evidence, candidate.verified_evidence.rate)
    at_least("gates addressed", policy.min_gates_addressed, candidate.gates_addressed.rate)
    judge = candidate.judge_agreement
    if policy.min_judge_kappa_lower is not None:
        at_least("judge kappa (95% lower)", policy.min_judge_kappa_lower, judge.ci_low)
        checks.append(
            Check(
                "judge decisions (n)",
                f">= {policy.min_judge_n}",
                str(judge.n),
                judge.n >= policy.min_judge_n,
            )
        )
    astrid = candidate.astrid_agreement
    if policy.min_astrid_kappa is not None and astrid is not None and astrid.n:
        at_least("ASTRID kappa", policy.min_astrid_kappa, astrid.kappa)
    at_most("seconds per patient", policy.max_seconds_per_patient, candidate.seconds_per_patient)
    at_most("peak memory (MB)", policy.max_peak_memory_mb, candidate.peak_memory_mb)
    if policy.max_drop_vs_accepted is not None and accepted is not None:
        for name, mine, theirs in (
            ("valid outputs", candidate.valid_outputs.rate, accepted.valid_outputs.rate),
            (
                "verified evidence",
                candidate.verified_evidence.rate,
                accepted.verified_evidence.rate,
            ),
            ("gates addressed", candidate.gates_addressed.rate, accepted.gates_addressed.rate),
        ):
            if theirs is None:
                continue
            floor = theirs - policy.max_drop_vs_accepted
            checks.append(
                Check(
                    f"{name} vs accepted",
                    f">= {floor:.3g} (accepted {theirs:.3g} - {policy.max_drop_vs_accepted:g})",
                    _fmt(mine),
                    mine is not None and mine >= floor,
                )
            )
    return checks
