"""A clinician's decision on one judgement. Appended, never edited."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator

from concord.domain._base import Frozen
from concord.domain.target import TargetKind


class DecisionAction(StrEnum):
    ACCEPT = "accept"
    OVERRIDE = "override"


class Decision(Frozen):
    decision_id: str = Field(description="Created by the caller, so a retried write is idempotent")
    case_id: str = Field(description="Case (or QA item set / eval set) the target belongs to")
    target_id: str = Field(description="Stable id of the judgement decided on")
    target_kind: TargetKind
    action: DecisionAction
    original_value: Any = Field(description="The value the judge showed")
    new_value: Any = Field(description="The human value: equal to original on accept")
    reason: str
    user: str
    at: datetime = Field(description="UTC, timezone-aware")
    shown: dict[str, str] = Field(
        default_factory=dict, description="Hashes of model, prompt and inputs that were shown"
    )
    blind: bool = Field(default=False, description="Judge verdict was hidden when answering")
    spans: tuple[dict[str, Any], ...] = Field(default=(), description="Evidence spans involved")

    @field_validator("at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("decision time must be timezone-aware (UTC)")
        return value
