"""Pydantic models of what an agent must answer, validated against the record and profile.

Anything that does not fit (unknown line id or tag, too many items, a duplicate consult,
an empty text) makes the whole answer invalid: the runner retries or fails the brief. It
never repairs an answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from concord.agents.schema import (
    COMMENT_MAX_CHARS,
    MAX_CITES,
    MAX_GATES_PER_RISK,
    MIN_EVIDENCE,
    MIN_TOP_RISKS,
    OPERATION_MAX_CHARS,
    RATIONALE_MAX_CHARS,
    RISK_SCORE_MAX_CHARS,
    TEXT_MAX_CHARS,
    THRESHOLD_MAX_CHARS,
)
from concord.errors import first_validation_error


@dataclass(frozen=True)
class OutputContext:
    """What an answer is checked against."""

    line_ids: frozenset[str]
    tags: frozenset[str]
    gate_ids: frozenset[str]
    specialist_ids: frozenset[str]
    max_items: dict[str, int]
    line_words: dict[str, int]  # words in each line: the bound of an evidence word range


def _context(info: ValidationInfo) -> OutputContext:
    if not isinstance(info.context, OutputContext):
        raise TypeError("validate agent output with an OutputContext")
    return info.context


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _known(values: Sequence[str], allowed: frozenset[str], what: str) -> None:
    unknown = [v for v in values if v not in allowed]
    if unknown:
        raise ValueError(f"unknown {what}: {', '.join(unknown)}")


class EvidenceOut(_Strict):
    """A record line the brief rests on; `words` (first, last, counted from 1) points at
    part of it. The quote itself is always taken from the record by code."""

    line: str
    tag: str
    comment: str = Field(min_length=1, max_length=COMMENT_MAX_CHARS)
    words: tuple[int, int] | None = None

    @field_validator("line")
    @classmethod
    def _line(cls, value: str, info: ValidationInfo) -> str:
        _known([value], _context(info).line_ids, "record line")
        return value

    @field_validator("tag")
    @classmethod
    def _tag(cls, value: str, info: ValidationInfo) -> str:
        _known([value], _context(info).tags, "tag")
        return value

    @model_validator(mode="after")
    def _words_in_line(self, info: ValidationInfo) -> EvidenceOut:
        if self.words is None:
            return self
        first, last = self.words
        count = _context(info).line_words.get(self.line, 0)
        if not 1 <= first <= last <= count:
            raise ValueError(
                f"words {first}..{last} are not a range of line {self.line} (1..{count})"
            )
        return self


class BulletOut(_Strict):
    text: str = Field(min_length=1, max_length=TEXT_MAX_CHARS)
    cites: tuple[str, ...] = Field(default=(), max_length=MAX_CITES)

    @field_validator("cites")
    @classmethod
    def _cites(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        _known(value, _context(info).line_ids, "record line")
        return value


class RiskOut(BulletOut):
    gates: tuple[str, ...] = Field(default=(), max_length=MAX_GATES_PER_RISK)

    @field_validator("gates")
    @classmethod
    def _gates(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        _known(value, _context(info).gate_ids, "gate")
        return value


class TriggerOut(BulletOut):
    threshold: str | None = Field(default=None, min_length=1, max_length=THRESHOLD_MAX_CHARS)


class BriefOut(_Strict):
    evidence: tuple[EvidenceOut, ...] = Field(min_length=MIN_EVIDENCE)
    top_risks: tuple[RiskOut, ...] = Field(min_length=MIN_TOP_RISKS)
    actions: tuple[BulletOut, ...]
    triggers: tuple[TriggerOut, ...]
    monitoring: tuple[BulletOut, ...]
    risk_scores: tuple[str, ...]
    consult: tuple[str, ...] = ()

    @field_validator("evidence", "top_risks", "actions", "triggers", "monitoring", "risk_scores")
    @classmethod
    def _bounded(cls, value: tuple[object, ...], info: ValidationInfo) -> tuple[object, ...]:
        limit = _context(info).max_items[str(info.field_name)]
        if len(value) > limit:
            raise ValueError(f"{len(value)} items, at most {limit} allowed")
        return value

    @field_validator("risk_scores")
    @classmethod
    def _scores(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not v or len(v) > RISK_SCORE_MAX_CHARS for v in value):
            raise ValueError(f"each risk score must be 1..{RISK_SCORE_MAX_CHARS} characters")
        return value

    @field_validator("consult")
    @classmethod
    def _consult(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        _known(value, _context(info).specialist_ids, "specialist")
        if len(set(value)) != len(value):
            raise ValueError("a specialist is listed twice")
        return value


_GENERIC_OPERATION_WORDS = frozenset(
    (
        "a",
        "an",
        "the",
        "of",
        "for",
        "to",
        "and",
        "or",
        "with",
        "under",
        "elective",
        "emergency",
        "urgent",
        "planned",
        "possible",
        "operation",
        "operations",
        "surgery",
        "surgical",
        "procedure",
        "procedures",
        "intervention",
        "unknown",
        "none",
        "not",
        "stated",
        "n/a",
        "n",
        "a",
        "na",
        "op",
        "ops",
        "tbc",
        "tbd",
    )
)


_LETTER_WORDS = re.compile(r"[^\W\d_]+(?:&[^\W\d_]+)*")


class SurgeonOut(_Strict):
    operation: str = Field(min_length=1, max_length=OPERATION_MAX_CHARS)
    rationale: str = Field(min_length=1, max_length=RATIONALE_MAX_CHARS)

    @field_validator("operation")
    @classmethod
    def _specific(cls, value: str) -> str:
        """A theatre list needs a named procedure: "operation" or "elective surgery" is
        not one, nor is a placeholder ("operation_1", "procedure X", "surgery 2"), and such
        an answer is invalid (retried, never silently accepted). The words are the runs of
        letters ("D&C" and "I&D" are one word each); a named procedure has one of at least
        two letters that is not generic."""
        words = _LETTER_WORDS.findall(value.lower())
        if not any(len(w) >= 2 and w not in _GENERIC_OPERATION_WORDS for w in words):
            raise ValueError(f"{value.strip()!r} does not name a specific procedure")
        return value


class InvalidOutput(ValueError):
    """The model's text is not valid JSON or does not fit the schema (reason in args[0])."""


def _first_error(exc: ValidationError) -> str:
    where, problem = first_validation_error(exc)
    return f"{where or 'answer'}: {problem}"


def parse_json_object(text: str) -> dict[str, object]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidOutput(f"not valid JSON ({exc.msg} at character {exc.pos})") from exc
    if not isinstance(data, dict):
        raise InvalidOutput("the answer is not a JSON object")
    return data


def parse_brief(text: str, context: OutputContext) -> BriefOut:
    data = parse_json_object(text)
    try:
        return BriefOut.model_validate(data, context=context)
    except ValidationError as exc:
        raise InvalidOutput(_first_error(exc)) from exc


def parse_surgeon(text: str) -> SurgeonOut:
    data = parse_json_object(text)
    try:
        return SurgeonOut.model_validate(data)
    except ValidationError as exc:
        raise InvalidOutput(_first_error(exc)) from exc
