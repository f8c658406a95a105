"""Disagreements between the two briefs and the record, each with severity and spans."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from concord.adjudication.gates import GateRule, addressing_items, contradicting_items, triggered
from concord.adjudication.subscores import ClaimCounts
from concord.domain import (
    Alignment,
    Brief,
    BriefItem,
    BriefSection,
    Disagreement,
    DisagreementKind,
    GateHit,
    ItemMatch,
    Record,
    Severity,
    SpanText,
)

TOP_RANKS_THAT_MATTER = 3


def _aligned_span(record: Record, alignment: Alignment) -> SpanText | None:
    a = alignment
    if a.source_id is None or a.start is None or a.end is None:
        return None
    try:
        return record.span_text(a.source_id, a.start, a.end)
    except KeyError:
        return None


def _evidence_spans(record: Record, brief: Brief, cites: Sequence[str]) -> tuple[SpanText, ...]:
    by_id = brief.evidence_by_id()
    spans = (_aligned_span(record, by_id[c].alignment) for c in cites if c in by_id)
    return tuple(s for s in spans if s is not None)


def red_flags_named(item: BriefItem, rules: Mapping[str, GateRule]) -> list[str]:
    """The gates a bullet is about: those it is tagged with and those its words name."""
    named = [gid for gid, rule in rules.items() if rule.addressed_by(item.text)]
    return list(dict.fromkeys([*item.gate_ids, *named]))


def find_disagreements(
    record: Record,
    anaes: Brief,
    spec: Brief,
    gates: Sequence[GateHit],
    owned: Sequence[GateHit],
    matches: Sequence[ItemMatch],
    counts: ClaimCounts,
    *,
    rules: Mapping[str, GateRule],
) -> tuple[Disagreement, ...]:
    found: list[Disagreement] = []

    def add(kind: DisagreementKind, severity: Severity, description: str, **kw: object) -> None:
        found.append(
            Disagreement(
                disagreement_id=f"D{len(found) + 1}",
                kind=kind,
                severity=severity,
                description=description,
                **kw,
            )
        )

    # Gates owned by this specialty: missed by the anaesthetist, or by both.
    for gate in owned:
        if addressing_items(anaes, gate, rules):
            continue
        by_spec = addressing_items(spec, gate, rules)
        if by_spec:
            add(
                DisagreementKind.MISS,
                gate.severity,
                f"{gate.title or gate.gate_id}: raised by {spec.agent}, absent from the "
                "anaesthetist brief",
                gate_id=gate.gate_id,
                items=tuple(i.item_id for i in by_spec),
                spans=gate.evidence,
            )
        else:
            add(
                DisagreementKind.OMITTED_BY_PAIR,
                gate.severity,
                f"{gate.title or gate.gate_id}: the record screen fired, neither the "
                f"anaesthetist nor {spec.agent} addressed it",
                gate_id=gate.gate_id,
                spans=gate.evidence,
            )

    # Specialist risks the anaesthetist did not cover.
    matched_spec = {m.specialist_item for m in matches}
    for item in spec.section(BriefSection.TOP_RISKS):
        if item.item_id in matched_spec:
            continue
        severity = Severity.MODERATE if item.rank <= TOP_RANKS_THAT_MATTER else Severity.MINOR
        add(
            DisagreementKind.MISS,
            severity,
            f"{spec.agent} risk #{item.rank} not covered: {item.text}",
            items=(item.item_id,),
            spans=_evidence_spans(record, spec, item.cites),
        )

    # The anaesthetist contradicts a finding the record screen fired.
    for gate in triggered(gates):
        for item in contradicting_items(anaes, gate, rules):
            add(
                DisagreementKind.CONFLICT,
                Severity.MAJOR,
                f"anaesthetist states '{item.text}' but the record shows "
                f"{gate.title or gate.gate_id}",
                gate_id=gate.gate_id,
                items=(item.item_id,),
                spans=gate.evidence,
            )

    # Claims their evidence does not carry (over-calls) and vague claims. One about a red
    # flag (it tags or names a gate) is major: a clinician must judge it before signing.
    items = {i.item_id: i for i in anaes.items}
    for item_id in counts.unsupported:
        item = items[item_id]
        named = red_flags_named(item, rules)
        why = item.support_reason or "it cites no verified evidence"
        about = f" (about {', '.join(named)})" if named else ""
        add(
            DisagreementKind.OVERCALL,
            Severity.MAJOR if named else Severity.MODERATE,
            f"anaesthetist claim not supported by its evidence{about}: '{item.text}' — {why}",
            items=(item_id,),
            spans=_evidence_spans(record, anaes, item.cites),
        )
    for item_id in counts.vague:
        add(
            DisagreementKind.AMBIGUOUS,
            Severity.MINOR,
            f"vague or non-specific: {items[item_id].text}",
            items=(item_id,),
        )

    # Evidence that code could not verify against the record, in either brief.
    for brief in (anaes, spec):
        for ev in brief.evidence:
            if ev.alignment.verified:
                continue
            a = ev.alignment
            span = _aligned_span(record, a)
            spans = (span,) if span is not None else ()
            severity = Severity.MAJOR if "number_mismatch" in a.flags else Severity.MODERATE
            flags = f" ({', '.join(a.flags)})" if a.flags else ""
            add(
                DisagreementKind.UNVERIFIED_EVIDENCE,
                severity,
                f"{brief.agent} evidence {ev.evidence_id} {a.status.value}{flags}: "
                f"'{ev.line.extract_text}'",
                items=(ev.evidence_id,),
                spans=spans,
            )
    return tuple(found)
