"""Plain data the review views share: where each piece of evidence sits in the record.

Built from domain objects with no Qt, so the mapping from briefs to spans and back can be
tested on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from concord.domain import AlignmentStatus, Brief, BriefItem, Case, GateHit, GateStatus, Severity


@dataclass(frozen=True)
class EvidenceMark:
    """One verified (or not) extract of one agent, with its span when it has one."""

    agent: str
    evidence_id: str
    status: AlignmentStatus
    flags: tuple[str, ...]
    tag: str
    extract: str
    source_id: str | None
    start: int | None
    end: int | None
    verified: bool
    changes: tuple[tuple[str, str], ...] = ()  # (record, quote) words of a failed extract

    @property
    def key(self) -> tuple[str, str]:
        return (self.agent, self.evidence_id)

    @property
    def has_span(self) -> bool:
        return self.source_id is not None and self.start is not None and self.end is not None

    @property
    def negated(self) -> bool:
        return "negated" in self.flags

    @property
    def diff_text(self) -> str:
        """What the extract changed against the closest record text, one change a line:
        “twice” → “once”."""
        return "\n".join(
            f"“{was}” → “{now}”"
            if was and now
            else f"left out “{was}”"
            if was
            else f"added “{now}”"
            for was, now in self.changes
        )


@dataclass(frozen=True)
class GateMark:
    gate_id: str
    title: str
    status: GateStatus
    source_id: str
    start: int
    end: int
    severity: Severity = Severity.MAJOR


def evidence_marks(brief: Brief) -> list[EvidenceMark]:
    marks = []
    for ev in brief.evidence:
        a = ev.alignment
        marks.append(
            EvidenceMark(
                agent=brief.agent,
                evidence_id=ev.evidence_id,
                status=a.status,
                flags=a.flags,
                tag=ev.line.tag,
                extract=ev.line.extract_text,
                source_id=a.source_id,
                start=a.start,
                end=a.end,
                verified=a.verified,
                changes=tuple((c.record, c.quote) for c in a.diff),
            )
        )
    return marks


def gate_marks(gates: tuple[GateHit, ...]) -> list[GateMark]:
    return [
        GateMark(g.gate_id, g.title or g.gate_id, g.status, s.source_id, s.start, s.end, g.severity)
        for g in gates
        for s in g.evidence
    ]


def case_marks(case: Case) -> list[EvidenceMark]:
    return [m for b in case.briefs for m in evidence_marks(b)]


def cited_marks(brief: Brief, item: BriefItem) -> list[EvidenceMark]:
    by_id = {m.evidence_id: m for m in evidence_marks(brief)}
    return [by_id[c] for c in item.cites if c in by_id]


def citing_items(case: Case, keys: set[tuple[str, str]]) -> list[tuple[Brief, BriefItem]]:
    """Bullets (of any brief) that cite one of the evidence `keys`."""
    out = []
    for brief in case.briefs:
        for item in brief.items:
            if any((brief.agent, c) in keys for c in item.cites):
                out.append((brief, item))
    return out
