"""Rows of the eval tables, validated as they come out of SQLite."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class EvalSet(_Row):
    set_id: str = Field(description="EV- + the first 12 hex digits of the content hash")
    name: str
    source: str = Field(description="File the set was imported from")
    content_hash: str
    imported_at: str
    imported_by: str


class Golden(_Row):
    golden_id: str
    question_id: str
    expert: str
    text: str


class Question(_Row):
    question_id: str
    set_id: str
    position: int
    label: str = Field(description="The question's id in its source file")
    text: str
    context: str
    golden: tuple[Golden, ...] = ()


class ConfigRow(_Row):
    config_hash: str
    model_name: str
    model_sha256: str
    temperature: float
    use_context: bool
    max_tokens: int
    prompt_sha256: str

    @property
    def label(self) -> str:
        context = " +context" if self.use_context else ""
        return f"{self.model_name} T={self.temperature:g}{context}"


class Answer(_Row):
    answer_id: str
    question_id: str
    config_hash: str
    sample: int
    seed: int
    text: str
    completion_tokens: int
    seconds: float
    finish_reason: str
    created_at: str
    temperature: float = Field(description="Of its configuration (joined in)")


class Similarity(_Row):
    answer_id: str
    model_sha256: str
    cosine_max: float
    cosine_mean: float
    maxsim_max: float
    maxsim_mean: float
    labels: int


class Prediction(_Row):
    answer_id: str
    version: str
    score: float
    grade: str
    predicted_at: str
