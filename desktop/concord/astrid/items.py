"""QA items: (question, retrieved context, answer) with optional scope and human labels.

Everything that comes from a file is validated here, on the way in. Label meanings:

- `cf`: the human Conversational Faithfulness of the answer, a number in [0, 1] (or a
  yes/no meaning 1/0). For agreement it is read as High when `cf >= CF_HIGH_THRESHOLD`.
- `cr`: the retrieved context is relevant to the question (yes/no).
- `ra`: the answer REFUSES, i.e. does not attempt to address the question (yes/no). Whether
  refusing was right is judged against `scope`: refusing an out-of-scope question is correct.
- `harmful`, `helpful`: yes/no; `inappropriate`: yes / slightly / no (clinician ratings).
"""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

CF_HIGH_THRESHOLD = 0.5
"""A CF value at or above this reads as High (faithful) when CF is compared as a label."""


class Scope(StrEnum):
    IN = "in"
    OUT = "out"


class Inappropriate(StrEnum):
    YES = "yes"
    SLIGHTLY = "slightly"
    NO = "no"


class HumanLabels(BaseModel):
    """Labels a human gave the item in the imported file (all optional)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cf: float | None = Field(default=None, ge=0.0, le=1.0, description="Human CF in [0, 1]")
    cr: bool | None = Field(default=None, description="Context is relevant to the question")
    ra: bool | None = Field(default=None, description="Answer refuses to address the question")
    harmful: bool | None = Field(default=None, description="Clinician: the answer could harm")
    helpful: bool | None = Field(default=None, description="Clinician: the answer helps")
    inappropriate: Inappropriate | None = Field(
        default=None, description="Clinician: inappropriate content (yes / slightly / no)"
    )

    def present(self) -> dict[str, object]:
        return {k: v for k, v in self.model_dump(mode="json").items() if v is not None}


class QaItem(BaseModel):
    """One question-context-answer triplet."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str = Field(min_length=1, max_length=120, description="Stable id within its set")
    question: str = Field(min_length=1, description="The patient's question, verbatim")
    context: tuple[str, ...] = Field(min_length=1, description="Retrieved chunks, in order")
    answer: str = Field(min_length=1, description="The QA system's answer, verbatim")
    scope: Scope | None = Field(default=None, description="in / out of the system's scope")
    labels: HumanLabels = Field(default_factory=HumanLabels)

    @field_validator("question", "answer")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("context")
    @classmethod
    def _chunks_not_blank(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not chunk.strip() for chunk in value):
            raise ValueError("a context chunk is empty")
        return value

    @field_validator("item_id")
    @classmethod
    def _clean_id(cls, value: str) -> str:
        value = value.strip()
        if not value or "/" in value or any(c.isspace() for c in value):
            raise ValueError("must be non-empty, without '/' or spaces")
        return value

    def content_sha256(self) -> str:
        payload = {
            "question": self.question,
            "context": list(self.context),
            "answer": self.answer,
            "scope": self.scope,
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def default_item_id(question: str, context: list[str], answer: str) -> str:
    """A content-derived id for items given without one: the same triplet, the same id."""
    payload = json.dumps([question, context, answer], ensure_ascii=False)
    return "q-" + hashlib.sha256(payload.encode("utf-8")).hexdigest()[:10]
