"""A finding: one reason a gate fires or is reported negated, and how findings make a hit.

A finding is the unit other sources join: a coded FHIR Observation, a coded procedure or a
condition can be turned into findings of the same shape (gate, status, span, value, time)
and screened together with those read from text (`hits_from_findings`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from concord.domain.gate import GateHit, GateStatus, Severity
from concord.domain.record import Record, SpanText

MAX_EVIDENCE_SPANS = 8


@dataclass(frozen=True)
class Finding:
    """One piece of evidence for a gate's status, with its span in the document's own
    text (`record.document(source_id).text[start:end]`)."""

    gate_id: str
    status: GateStatus
    source_id: str
    start: int
    end: int
    detail: str
    value: float | None = None  # the worst value read, in the gate's canonical unit
    unit: str = ""
    time: date | None = None  # when it was measured or happened, if the record says


@dataclass(frozen=True)
class ValueSeen:
    """A result read from free text, for joining with coded values of the same test."""

    source_id: str
    start: int
    end: int
    value: float  # in the canonical unit of the gate rule that reads it
    written: str
    time: date | None


@dataclass(frozen=True)
class GateHeader:
    """What a hit says about its gate."""

    gate_id: str
    title: str
    severity: Severity
    specialty: str


def hits_from_findings(
    gates: Sequence[GateHeader], findings: Iterable[Finding], record: Record
) -> tuple[GateHit, ...]:
    """One hit per gate with findings, in gate order: triggered if any finding is (evidence:
    those spans), else negated (evidence: the negated spans)."""
    by_gate: dict[str, list[Finding]] = {}
    for finding in findings:
        by_gate.setdefault(finding.gate_id, []).append(finding)
    order = {d.source_id: i for i, d in enumerate(record.documents)}
    texts = {d.source_id: d.text for d in record.documents}
    hits = []
    for gate in gates:
        found = by_gate.get(gate.gate_id)
        if not found:
            continue
        triggered = [f for f in found if f.status is GateStatus.TRIGGERED]
        chosen = triggered or found
        status = GateStatus.TRIGGERED if triggered else GateStatus.NEGATED
        spans: dict[tuple[str, int, int], SpanText] = {}
        for f in sorted(chosen, key=lambda f: (order[f.source_id], f.start, f.end)):
            key = (f.source_id, f.start, f.end)
            if key not in spans and len(spans) < MAX_EVIDENCE_SPANS:
                text = texts[f.source_id][f.start : f.end]
                spans[key] = SpanText(source_id=f.source_id, start=f.start, end=f.end, text=text)
        details = list(dict.fromkeys(f.detail for f in chosen))
        detail = details[0] + (f" (+{len(details) - 1} more)" if len(details) > 1 else "")
        hits.append(
            GateHit(
                gate_id=gate.gate_id,
                title=gate.title,
                severity=gate.severity,
                status=status,
                specialty=gate.specialty,
                evidence=tuple(spans.values()),
                detail=detail,
            )
        )
    return tuple(hits)
