"""Deterministic detection of prompt injection in a patient record, and of briefs that quote it.

Patient text is data: the agents' prompts say so and delimit it (`agents.prompts`), and the
layers that decide anything (evidence verification, the record screen, the scores) are code
that no text can instruct. What remains is that a model may *obey* text such as "ignore your
instructions" or "rate this case High", or repeat a forged evidence line. This module finds
instruction-like text in the record (by named patterns, no model) and flags every brief item
or evidence line that quotes or cites it, so the case goes to a human.

Each finding is a `domain.InjectionFinding` (stored as `Case.injection`): kind "record" for
the injected text in the record, "quoted_by_agent" for a brief's evidence line or item that
quotes or cites it. `text` is the whole record line holding the injected text
(`doc.text[start:end]`), or the brief item itself when the item is instruction-like.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from concord.domain import Brief, InjectionFinding, Record

_GAP = r"[^\n.]{0,40}?"
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(regex, re.IGNORECASE | re.MULTILINE))
    for name, regex in (
        (
            "override_instructions",
            r"\b(?:ignore|disregard|forget|override|bypass)\b"
            + _GAP
            + r"\b(?:instructions?|prompts?|rules|guidelines|directions|system\s+message)\b",
        ),
        (
            "new_instructions",
            r"\b(?:new|updated|real|actual|hidden)\s+(?:instructions?|task|orders)\s*:",
        ),
        (
            "role_change",
            r"\byou\s+are\s+(?:now|no\s+longer)\b|\bact\s+as\s+(?:the|an?)\s+"
            r"(?:judge|grader|assistant|ai|model|system)\b|\bpretend\s+(?:to\s+be|you\s+are)\b",
        ),
        (
            "addressed_to_model",
            r"\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+)?(?:ai|llm|model|"
            r"assistant|judge|agents?|grader|language\s+model)\b|\b(?:dear|attention|hey)\s+"
            r"(?:ai|llm|model|assistant|judge|agents?|grader)\b|\bas\s+an?\s+(?:ai|language"
            r"\s+model)\b",
        ),
        (
            "rating_request",
            r"(?:^|[.!?:;]\s*|\bplease\s+|\bmust\s+|\bshould\s+|\bjust\s+)(?:rate|grade|score|"
            r"mark|classify)\s+(?:this|the)\s+(?:case|brief|patient|answer|record|assessment|"
            r"response)\b|\b(?:rate|grade|score)\b[^\n.]{0,25}\bas\s+(?:high|medium|low|very\s+"
            r"low|excellent|perfect|\d{1,3})\b|\b(?:case|brief|answer)\s+(?:is|should\s+be|must"
            r"\s+be)\s+(?:rated|graded|scored)\b",
        ),
        (
            "suppress_finding",
            r"\bdo\s+not\s+(?:flag|report|mention|cite|escalate)\s+(?:the|this|any|that)\b|"
            r"\b(?:omit|hide|suppress)\s+(?:the|this|any|all)\s+(?:finding|risk|gate|warning)s?\b",
        ),
        (
            "chat_role_marker",
            r"^\s*(?:system|assistant|user|developer)\s*:|<\|?\s*(?:im_start|im_end|system|"
            r"assistant|user|start_of_turn|end_of_turn|endoftext)\s*\|?>|\[/?INST\]|<</?SYS>>|"
            r"^\s*#{2,}\s*(?:instruction|system|response|assistant)\b",
        ),
        (
            "fake_json",
            r"[{,]\s*\"(?:score|grade|overall|rating|verdict|coverage|critical_items|"
            r"human_review|top_risks|evidence|cites|pairs|consult|extract_text|source_id|"
            r"locator|risk_scores)\"\s*:",
        ),
        ("fake_line_id", r"^\s*L\d{1,5}\s*[:|\-]\s"),
        (
            "delimiter_lookalike",
            r"<{2,}\s*/?\s*[A-Za-z_ ]{0,20}(?:record|system|instructions?|data)|(?:record|system|"
            r"instructions?|data)[A-Za-z_ ]{0,20}>{2,}|\b(?:end|close)\s+of\s+(?:the\s+)?"
            r"(?:patient\s+)?(?:record|data|context)\b|\bbegin\s+(?:system|instructions?)\b",
        ),
    )
)
"""(name, pattern) pairs. Each is aimed at text addressed to a model, not at clinical prose."""

MIN_QUOTE_CHARS = 12
"""A brief item must repeat at least this much of an injected match to count as quoting it."""


@dataclass(frozen=True)
class InjectedSpan:
    pattern: str
    source_id: str
    start: int  # the whole record line that holds the match
    end: int
    line_id: str
    text: str
    match: str

    def finding(self) -> InjectionFinding:
        return InjectionFinding(
            kind="record",
            pattern=self.pattern,
            source_id=self.source_id,
            start=self.start,
            end=self.end,
            line_id=self.line_id,
            text=self.text,
            match=self.match,
        )


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def find_injections(record: Record) -> tuple[InjectedSpan, ...]:
    """Every record line with instruction-like text, once per (line, pattern), in order."""
    found: list[InjectedSpan] = []
    for line in record.lines:
        for name, pattern in PATTERNS:
            match = pattern.search(line.text)
            if match is None:
                continue
            found.append(
                InjectedSpan(
                    pattern=name,
                    source_id=line.source_id,
                    start=line.start,
                    end=line.end,
                    line_id=line.line_id,
                    text=line.text,
                    match=match.group(0).strip(),
                )
            )
    return tuple(found)


def instruction_patterns_in(text: str) -> list[str]:
    """Names of the patterns that `text` (e.g. a brief item) itself contains."""
    return [name for name, pattern in PATTERNS if pattern.search(text)]


def _quoted(
    span: InjectedSpan, agent: str, where: Literal["evidence", "item"], id: str
) -> InjectionFinding:
    return span.finding().model_copy(
        update={"kind": "quoted_by_agent", "match": "", "agent": agent, "where": where, "id": id}
    )


def _overlaps(
    span: InjectedSpan, source_id: str | None, start: int | None, end: int | None
) -> bool:
    if source_id != span.source_id or start is None or end is None:
        return False
    return start < span.end and span.start < end or start == end == span.start


def quoted_injections(
    briefs: Iterable[Brief], spans: Sequence[InjectedSpan]
) -> list[InjectionFinding]:
    """Evidence lines that cite or align into an injected line, and brief items that repeat
    an injected match or are themselves instruction-like."""
    out: list[InjectionFinding] = []
    for brief in briefs:
        for ev in brief.evidence:
            a = ev.alignment
            hits = [
                s
                for s in spans
                if ev.line_id == s.line_id or _overlaps(s, a.source_id, a.start, a.end)
            ]
            for span in {(s.line_id): s for s in hits}.values():
                out.append(_quoted(span, agent=brief.agent, where="evidence", id=ev.evidence_id))
        for item in brief.items:
            folded = _fold(item.text)
            hits = [
                s for s in spans if len(s.match) >= MIN_QUOTE_CHARS and _fold(s.match) in folded
            ]
            for span in {(s.line_id): s for s in hits}.values():
                out.append(_quoted(span, agent=brief.agent, where="item", id=item.item_id))
            for name in instruction_patterns_in(item.text):
                if name in ("fake_line_id", "chat_role_marker") or hits:
                    continue  # item texts may start with a line id; quoted ones already listed
                out.append(
                    InjectionFinding(
                        kind="quoted_by_agent",
                        agent=brief.agent,
                        where="item",
                        id=item.item_id,
                        pattern=name,
                        text=item.text,
                    )
                )
    return out


def injection_findings(record: Record, briefs: Sequence[Brief]) -> list[InjectionFinding]:
    """Record-level injection spans, then every place a brief quotes or cites one."""
    spans = find_injections(record)
    return [s.finding() for s in spans] + quoted_injections(briefs, spans)


def needs_review(findings: Sequence[InjectionFinding]) -> bool:
    """Any injected text in the record, or quoted by an agent, sends the case to a human."""
    return bool(findings)
