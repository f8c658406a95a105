"""A clinician's decision on one judgement. Appended, never edited.

What the decider signs is versioned (STYLE rule 14): `SIGNED_FIELDS[v]` is the frozen list of
fields that version `v` signs, and a decision carries the version it was signed under
(`payload_version`; absent means 1, the only format before versions were kept). A new field
is added to the model with a default and, if it must be signed, in a new version whose list
names it; every decision signed under an older version keeps verifying with its own list.
Never edit a released list.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import Field, field_validator

from concord.domain._base import Frozen
from concord.domain.target import TargetKind
from concord.domain.user import UserRole


class DecisionAction(StrEnum):
    ACCEPT = "accept"
    OVERRIDE = "override"


SIGNED_FIELDS_V1: tuple[str, ...] = (
    "decision_id",
    "case_id",
    "target_id",
    "target_kind",
    "action",
    "original_value",
    "new_value",
    "reason",
    "user",
    "at",
    "shown",
    "blind",
    "spans",
    "role",
)
"""Version 1: every field the model had when decisions were first signed (schema 4)."""

PAYLOAD_VERSION = 1
"""The version new decisions are signed under."""


DECISION_ID_PREFIX = "DEC-"
"""Every decision made now has the id `DEC-<32 hex>` (`new_decision_id`). Ids are signed data:
decisions stored under an older form (EVAL grades made `D-<16 hex>` before there was one
maker) keep their ids and verify as they are; nothing parses an id's form."""


def new_decision_id() -> str:
    """A fresh decision id, the one form every factory uses: `DEC-` and a random UUID's 32
    hex digits."""
    return DECISION_ID_PREFIX + uuid.uuid4().hex


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
    SIGNED_FIELDS: ClassVar[dict[int, tuple[str, ...]]] = {1: SIGNED_FIELDS_V1}
    """payload_version -> the fields it signs, frozen once released."""

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
    payload_version: int = Field(
        default=1,
        description="Which field list `signature` covers (`SIGNED_FIELDS`); 1 when absent",
    )
    seq: int | None = Field(
        default=None,
        description="Position of the decision's audit row in the chain, set by the store when "
        "it reads the decision back: the order of decisions (which one is in force, what came "
        "after a signature) is this order, never the clocks' `at`. Not signed, not stored",
    )

    @field_validator("at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("decision time must be timezone-aware (UTC)")
        return value

    def __eq__(self, other: object) -> bool:
        """Equal content: where the store found a decision in the chain (`seq`) is not part
        of what was decided."""
        if not isinstance(other, Decision):
            return NotImplemented
        return self.model_dump(exclude={"seq"}) == other.model_dump(exclude={"seq"})

    def __hash__(self) -> int:
        return hash((self.decision_id, self.signature))

    @property
    def counts_for_signoff(self) -> bool:
        """A clinician's decision; an annotator's is a label only."""
        return self.role == UserRole.CLINICIAN

    def signed_payload(self) -> bytes:
        """The exact bytes the decider signs: canonical JSON of the fields its payload
        version lists, the time in one fixed UTC form (so the bytes survive the store)."""
        fields = self.SIGNED_FIELDS.get(self.payload_version)
        if fields is None:
            known = ", ".join(str(v) for v in sorted(self.SIGNED_FIELDS))
            raise ValueError(
                f"decision {self.decision_id}: unknown payload version {self.payload_version} "
                f"(this Concord knows {known})"
            )
        dumped = self.model_dump(mode="json")
        data = {name: dumped[name] for name in fields}
        data["at"] = self.at.astimezone(UTC).isoformat(timespec="microseconds")
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8")
