"""JSON schemas the model's output is constrained to (and validated against).

Citations are record line ids drawn from an enum, so a citation of a line that does not
exist cannot be generated. An evidence item never carries text of the model's: it names a
line and, optionally, a range of its words ("words": [first, last], counted from 1), and
code takes the quote from the record (`concord.evidence.quote`). Every list has maxItems
and every string maxLength: the grammar is slow on a 262k vocabulary, so the schema bounds
the work.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from concord.agents.profiles import AgentProfile, AgentRole
from concord.domain.record import Record

TEXT_MAX_CHARS = 120
COMMENT_MAX_CHARS = 80
COMMENT_MAX_WORDS = 12
THRESHOLD_MAX_CHARS = 40
RISK_SCORE_MAX_CHARS = 60
MAX_CITES = 3
MAX_GATES_PER_RISK = 2
OPERATION_MAX_CHARS = 120
RATIONALE_MAX_CHARS = 200
UNKNOWN_SCORE = "UNKNOWN"
MIN_EVIDENCE = 1  # an empty brief is not an answer: at least one line and one risk
MIN_TOP_RISKS = 1
BULLET_SECTIONS = ("top_risks", "actions", "triggers", "monitoring")


def line_ids(record: Record) -> list[str]:
    return [line.line_id for line in record.lines]


def line_word_counts(record: Record) -> dict[str, int]:
    """How many words (whitespace-separated) each record line has: the bound of "words"."""
    return {line.line_id: len(line.text.split()) for line in record.lines}


def _word_range(max_word: int) -> dict[str, Any]:
    """[first, last] of a line's words. The numbers are an enum as well as a range: the
    grammar converter ignores an integer's minimum and maximum, an enum it enforces."""
    top = max(1, max_word)
    number = {"type": "integer", "minimum": 1, "maximum": top, "enum": list(range(1, top + 1))}
    return {"type": "array", "items": number, "minItems": 2, "maxItems": 2}


def _text(max_chars: int) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": max_chars}


def _bullet(cite_enum: list[str], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "text": _text(TEXT_MAX_CHARS),
        "cites": {"type": "array", "items": {"enum": cite_enum}, "maxItems": MAX_CITES},
    }
    properties.update(extra or {})
    return {
        "type": "object",
        "properties": properties,
        "required": ["text", "cites"],
        "additionalProperties": False,
    }


def _evidence_item(ids: list[str], words: dict[str, int], tags: list[str]) -> dict[str, Any]:
    """An evidence item: a line, a tag, a comment and optionally a range of the line's words.

    A word range is bounded by its own line: the lines are grouped by how many words they
    have, and the item must also match one group's object (`anyOf`), whose word numbers go
    no higher than its lines' count. The line is written first, so it settles the group, and
    the grammar cannot cite word 28 of a 9-word line (the 1.5B instruct model did, in both
    attempts of a required specialist's brief, and lost the whole brief to it). The general
    object beside `anyOf` is what every group's object narrows; llama.cpp's converters
    build the grammar from `anyOf` alone, a JSON Schema validator checks both."""

    def item(line_enum: list[str], max_word: int) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "line": {"enum": line_enum},
                "tag": {"enum": tags},
                "comment": _text(COMMENT_MAX_CHARS),
                "words": _word_range(max_word),
            },
            "required": ["line", "tag", "comment"],
            "additionalProperties": False,
        }

    general = item(ids, max(words.values(), default=1))
    groups: dict[int, list[str]] = {}
    for line_id in ids:
        groups.setdefault(max(1, words.get(line_id, 0)), []).append(line_id)
    if len(groups) > 1:
        general["anyOf"] = [item(group, count) for count, group in sorted(groups.items())]
    return general


def brief_schema(
    profile: AgentProfile, record: Record, specialist_ids: Sequence[str] = ()
) -> dict[str, Any]:
    """The brief an anaesthetist or specialist must write about `record`."""
    ids = line_ids(record)
    limits = profile.max_items
    evidence_item = _evidence_item(ids, line_word_counts(record), list(profile.tags))
    risk_extra: dict[str, Any] = {}
    if profile.gate_ids:
        risk_extra["gates"] = {
            "type": "array",
            "items": {"enum": list(profile.gate_ids)},
            "maxItems": MAX_GATES_PER_RISK,
        }
    trigger_extra = {"threshold": _text(THRESHOLD_MAX_CHARS)}

    def array(item: dict[str, Any], max_items: int, min_items: int = 0) -> dict[str, Any]:
        bounds = {"minItems": min_items} if min_items else {}
        return {"type": "array", "items": item, **bounds, "maxItems": max_items}

    properties: dict[str, Any] = {
        "evidence": array(evidence_item, limits.evidence, MIN_EVIDENCE),
        "top_risks": array(_bullet(ids, risk_extra), limits.top_risks, MIN_TOP_RISKS),
        "actions": array(_bullet(ids), limits.actions),
        "triggers": array(_bullet(ids, trigger_extra), limits.triggers),
        "monitoring": array(_bullet(ids), limits.monitoring),
        "risk_scores": array(_text(RISK_SCORE_MAX_CHARS), limits.risk_scores),
    }
    if profile.role == AgentRole.ANAESTHETIST:
        consult = array({"enum": list(specialist_ids)}, max(1, len(specialist_ids)))
        properties["consult"] = {**consult, "uniqueItems": True}  # the grammar enforces it
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def surgeon_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "operation": _text(OPERATION_MAX_CHARS),
            "rationale": _text(RATIONALE_MAX_CHARS),
        },
        "required": ["operation", "rationale"],
        "additionalProperties": False,
    }
