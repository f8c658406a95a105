"""A clinician's decision on one judgement. Appended, never edited."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator

from concord.domain._base import Frozen
from concord.domain.target import TargetKind
from concord.domain.user import UserRole


class DecisionAction(StrEnum):
    ACCEPT = "accept"
    OVERRIDE = "override"


class Disposition(StrEnum):
    """What the clinician decides to do about a red flag (a triggered gate). Recorded as a
    decision on `gate/<gate_id>/disposition` whose new value is one of these; no AI value is
    shown for it, so it is never an 'accept'."""

    PROCEED = "proceed"
    POSTPONE = "postpone"
    REFER = "refer"
    NOT_RELEVANT = "not-relevant"

    @property
    def label(self) -> str:
        """How it reads for a clinician."""
        return _DISPOSITION_TITLES[self]

    @property
    def short(self) -> str:
        """One or two words, for a button."""
        return self.value.replace("-", " ").capitalize()


_DISPOSITION_TITLES = {
    Disposition.PROCEED: "Proceed — addressed in the plan",
    Disposition.POSTPONE: "Postpone surgery",
    Disposition.REFER: "Refer before surgery",
    Disposition.NOT_RELEVANT: "Not relevant here",
}


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
    role: UserRole | None = Field(
        default=None,
        description="The decider's role when deciding (None: recorded before roles were kept); "
        "only a clinician's decision counts towards a clinical sign-off",
    )
    signature: str = Field(
        default="",
        description="Base64 Ed25519 signature of `signed_payload()` by the decider's own key "
        "('' before it is recorded, and for decisions recorded before keys existed)",
    )

    @field_validator("at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("decision time must be timezone-aware (UTC)")
        return value

    @property
    def counts_for_signoff(self) -> bool:
        """A clinician's decision; an annotator's is a label only."""
        return self.role == UserRole.CLINICIAN

    def signed_payload(self) -> bytes:
        """The exact bytes the decider signs: canonical JSON of every field but the
        signature, the time in one fixed UTC form (so the bytes survive the store)."""
        data = self.model_dump(mode="json", exclude={"signature"})
        data["at"] = self.at.astimezone(UTC).isoformat(timespec="microseconds")
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8")
