"""What an ASTRID judge run produces: verdicts (LLM) and item scores (code). Saved types."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class VerdictStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"


class Verdict(BaseModel):
    """One judge answer: per sentence for CF, per item for CR and RA."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    metric: str = Field(
        min_length=1,
        description="The question's name (`concord.astrid.questions`; the built-in ones are "
        "`Metric`); a verdict is stored only for a registered question",
    )
    sentence_index: int | None = Field(description="0-based sentence, None for CR and RA")
    value: bool | None = Field(
        description="True = information / supported / relevant / "
        "declines; None when the judge gave no valid answer"
    )
    reason: str = Field(default="", description="The judge's short reason")
    attempts: int = Field(ge=1, description="Generations used (bounded retries)")
    status: VerdictStatus
    error: str = Field(default="", description="Why the last attempt was invalid, if it was")
    raw: str = Field(default="", description="The judge's raw output of the last attempt")


class ItemScore(BaseModel):
    """The metrics of one item in one repeat, computed by code from its verdicts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    repeat: int = Field(ge=0)
    cf: float = Field(ge=0.0, le=1.0)
    n_informative: int = Field(ge=0, description="N: information-containing sentences")
    n_grounded: int = Field(ge=0, description="Y: of those, judged grounded")
    n_ungrounded: int = Field(ge=0, description="U: of those, judged not grounded")
    cr: bool | None = Field(description="Context relevant (None: judge failed)")
    ra_refused: bool | None = Field(description="Answer declines (None: judge failed)")
    ra_correct: bool | None = Field(description="Refusal matches scope (None: no scope)")
    complete: bool = Field(description="Every verdict of the item is valid")
    values: dict[str, float | None] = Field(
        default_factory=dict,
        description="Every registered score by name (concord.astrid.scores), as stored in "
        "long format; the built-in four repeat the fields above",
    )


class RepeatResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    repeat: int
    seed: int
    temperature: float
    verdicts: tuple[Verdict, ...]
    scores: tuple[ItemScore, ...]


class QaRun(BaseModel):
    """One judge model over one QA set, N repeats."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str = Field(pattern=r"^QA-")
    set_id: str
    model_name: str
    model_sha256: str
    prompt_sha256: str
    started_at: datetime
    ended_at: datetime
    settings: dict[str, float | int | str]
    repeats: tuple[RepeatResult, ...]

    def repeat(self, index: int = 0) -> RepeatResult:
        return self.repeats[index]
