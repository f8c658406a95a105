"""Coded events and states: conditions with their clinical status and onset against the
gate rule's window, procedures done (and what ended them), devices in place (and removed),
medicines currently taken by their FHIR status, allergies by their status, coronary stents
by type and date.

What a status means:

* Condition: refuted or entered in error never fires. Where the rule counts history
  (MH susceptibility, a difficult airway) any recorded one fires, resolved too. Where it
  does not, resolved, inactive or remission - or an abatement date - is negated; an event
  (a stroke, an MI, a DVT: ``event`` in the list) dated outside the rule's window before
  the reference date is history whatever its clinical status; an active state fires.
* MedicationStatement / MedicationRequest / MedicationAdministration: active, in
  progress or of unknown status fires; intended (a medicine planned, not yet taken) does
  not, as SPEC's "planned" does not; on hold fires and says it is held (for this
  operation, perhaps: the plan must be checked); stopped or completed fires only when it
  ended within the rule's ``stopped_within_days`` before the reference date (stopped or
  held for this operation, as the text rule reads "stopped 5 days ago"), else it is
  negated; a draft request is not started; entered in error, not taken, cancelled or not
  done are not the patient's data and are never read.
* Device: active or unknown is in place; inactive is not. A Procedure that placed it counts
  from its date; a removal dated on or after the placement ends it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from concord.domain.coded import CodedFact, FactKind
from concord.domain.gate import GateStatus
from concord.domain.record import Span
from concord.screen.coded_lists import (
    AllergyCodes,
    CodedFinding,
    CodeMatcher,
    CodeSet,
    ConceptCodes,
    ConceptLimit,
    ConditionCodes,
    DeviceCodes,
    GateLimits,
    MedicationLimit,
    ProcedureCodes,
    StentCodes,
    names_re,
    pairs,
)

ACTIVE_CONDITION = frozenset({"active", "recurrence", "relapse"})
INACTIVE_CONDITION = frozenset({"inactive", "remission", "resolved"})
REFUTED = frozenset({"refuted", "entered-in-error"})
UNCONFIRMED = frozenset({"unconfirmed", "provisional", "differential"})
PLANNED = frozenset({"preparation", "planned", "intended"})
PLANNED_PROCEDURE = frozenset({"preparation", "planned"})
ENDED_MEDICATION = frozenset({"stopped", "completed"})
HELD_MEDICATION = frozenset({"on-hold", "suspended"})
NOT_STARTED_MEDICATION = frozenset({"draft", "intended"})
INACTIVE_DEVICE = frozenset({"inactive"})
INACTIVE_ALLERGY = frozenset({"inactive", "resolved"})


def _days(reference: date, when: date) -> int:
    return (reference - when).days


def _label(fact: CodedFact) -> str:
    return f"{fact.name} (coded, {fact.resource})"


def _found(gate_id: str, status: GateStatus, fact: CodedFact, detail: str) -> CodedFinding:
    return CodedFinding(gate_id, status, (fact.span,), f"{_label(fact)}: {detail}")


@dataclass(frozen=True)
class _End:
    """A dated procedure or condition that ends something (a removal, a transplant)."""

    when: date | None
    fact: CodedFact


def _ends(codes: CodeSet | None, facts: Sequence[CodedFact]) -> list[_End]:
    if codes is None or not (codes.codes or codes.names):
        return []
    matcher = CodeMatcher.of(codes)
    out = []
    for fact in facts:
        if fact.kind not in (FactKind.PROCEDURE, FactKind.CONDITION):
            continue
        if fact.kind is FactKind.PROCEDURE and fact.status in PLANNED_PROCEDURE:
            continue
        if fact.kind is FactKind.CONDITION and fact.status in REFUTED:
            continue
        if matcher.matches(pairs(fact.codes), fact.name):
            out.append(_End(fact.effective or fact.onset, fact))
    return out


def _ended(since: date | None, ends: Sequence[_End]) -> _End | None:
    """The first end after `since` (any dated end where `since` is unknown)."""
    dated = sorted((e for e in ends if e.when is not None), key=lambda e: e.when or date.min)
    for end in dated:
        if since is None or (end.when is not None and end.when > since):
            return end
    return None


# -- conditions --------------------------------------------------------------------------


def condition_findings(
    gate_id: str,
    codes: ConditionCodes,
    limits: GateLimits,
    facts: Sequence[CodedFact],
    reference: date,
) -> list[CodedFinding]:
    matcher = CodeMatcher.of(codes)
    limit = limits.concepts.get(codes.concept) if codes.concept else None
    ends = _ends(codes.ended_by, facts)
    out = []
    for fact in facts:
        if fact.kind is not FactKind.CONDITION or not matcher.matches(pairs(fact.codes), fact.name):
            continue
        if limit is None:
            out.append(_legacy_condition(gate_id, codes, fact, reference))
        else:
            out.append(_condition(gate_id, codes, limit, fact, reference, ends))
    return out


def _legacy_condition(
    gate_id: str, codes: ConceptCodes, fact: CodedFact, reference: date
) -> CodedFinding:
    """A list that names no rule concept: active fires, resolved does not, no status
    fires when begun within `recent_days`."""
    if fact.status in REFUTED:
        return _found(gate_id, GateStatus.NEGATED, fact, fact.status)
    if fact.abatement is not None and fact.abatement <= reference:
        return _found(gate_id, GateStatus.NEGATED, fact, f"resolved {fact.abatement.isoformat()}")
    if fact.clinical_status in INACTIVE_CONDITION:
        return _found(gate_id, GateStatus.NEGATED, fact, fact.clinical_status)
    onset = f", onset {fact.onset.isoformat()}" if fact.onset else ""
    if fact.clinical_status in ACTIVE_CONDITION:
        return _found(gate_id, GateStatus.TRIGGERED, fact, f"{fact.clinical_status}{onset}")
    started = fact.onset or fact.effective
    if started is not None and _days(reference, started) > codes.recent_days:
        return _found(
            gate_id,
            GateStatus.NEGATED,
            fact,
            f"no clinical status, onset {started.isoformat()} over {codes.recent_days} days "
            f"before {reference.isoformat()}",
        )
    return _found(gate_id, GateStatus.TRIGGERED, fact, f"no clinical status{onset}")


def _condition(
    gate_id: str,
    codes: ConditionCodes,
    limit: ConceptLimit,
    fact: CodedFact,
    reference: date,
    ends: Sequence[_End],
) -> CodedFinding:
    status = fact.clinical_status or "no clinical status"
    started = fact.onset or fact.effective
    dated = "onset" if fact.onset else "recorded"
    onset = f", {dated} {started.isoformat()}" if started else ""
    if fact.status in REFUTED:
        return _found(gate_id, GateStatus.NEGATED, fact, f"{fact.status} (verification)")
    if limit.diagnosed_only and fact.status in UNCONFIRMED:
        return _found(gate_id, GateStatus.NEGATED, fact, f"{fact.status}: not a diagnosis made")
    end = _ended(started, ends)
    if end is not None:
        return _found(
            gate_id,
            GateStatus.NEGATED,
            fact,
            f"{status}{onset}; ended by {end.fact.name} on {end.when} ({end.fact.resource})",
        )
    resolved = fact.clinical_status in INACTIVE_CONDITION or (
        fact.abatement is not None and fact.abatement <= reference
    )
    abated = f", abated {fact.abatement.isoformat()}" if fact.abatement else ""
    if limit.history == "counts":
        history = " (history counts)" if resolved else ""
        return _found(gate_id, GateStatus.TRIGGERED, fact, f"{status}{onset}{abated}{history}")
    if resolved:
        return _found(gate_id, GateStatus.NEGATED, fact, f"{status}{onset}{abated}")
    if limit.history == "explicit":
        return _found(gate_id, GateStatus.TRIGGERED, fact, f"{status}{onset}")
    window = limit.window
    if started is None:
        if fact.clinical_status in ACTIVE_CONDITION:
            return _found(gate_id, GateStatus.TRIGGERED, fact, f"{status}, undated")
        return _found(gate_id, GateStatus.TRIGGERED, fact, f"{status}, undated: treated as current")
    days = _days(reference, started)
    within = f"{days} days before {reference.isoformat()}"
    if codes.event or fact.clinical_status not in ACTIVE_CONDITION:
        if days > window:
            return _found(
                gate_id,
                GateStatus.NEGATED,
                fact,
                f"{status}{onset}, {within}: not recent (window {window} days)",
            )
        return _found(
            gate_id, GateStatus.TRIGGERED, fact, f"{status}{onset}, {within} (within {window})"
        )
    return _found(gate_id, GateStatus.TRIGGERED, fact, f"{status}{onset}")


def current_condition(
    codes: CodeSet, facts: Sequence[CodedFact], reference: date
) -> CodedFact | None:
    """A coded condition from `codes` that is current: not refuted, not resolved."""
    matcher = CodeMatcher.of(codes)
    for fact in facts:
        if fact.kind is not FactKind.CONDITION or not matcher.matches(pairs(fact.codes), fact.name):
            continue
        if fact.status in REFUTED or fact.clinical_status in INACTIVE_CONDITION:
            continue
        if fact.abatement is not None and fact.abatement <= reference:
            continue
        return fact
    return None


# -- procedures and devices --------------------------------------------------------------------


def procedure_findings(
    gate_id: str,
    codes: ProcedureCodes,
    limits: GateLimits,
    facts: Sequence[CodedFact],
    reference: date,
) -> list[CodedFinding]:
    matcher = CodeMatcher.of(codes)
    limit = limits.concepts.get(codes.concept) if codes.concept else None
    window = codes.recent_days
    if window is None and limit is not None and limit.history == "resolves":
        window = limit.window
    ends = _ends(codes.ended_by, facts)
    out = []
    for fact in facts:
        if fact.kind is not FactKind.PROCEDURE or not matcher.matches(pairs(fact.codes), fact.name):
            continue
        when = fact.effective
        shown = f"{fact.status or 'status unknown'}" + (f", {when.isoformat()}" if when else "")
        if fact.status in PLANNED_PROCEDURE:
            out.append(_found(gate_id, GateStatus.NEGATED, fact, f"planned, not done ({shown})"))
            continue
        end = _ended(when, ends)
        if end is not None:
            out.append(
                _found(
                    gate_id,
                    GateStatus.NEGATED,
                    fact,
                    f"{shown}; ended by {end.fact.name} on {end.when} ({end.fact.resource})",
                )
            )
            continue
        if window is None:
            out.append(_found(gate_id, GateStatus.TRIGGERED, fact, shown))
        elif when is None:
            out.append(
                _found(gate_id, GateStatus.TRIGGERED, fact, f"{shown}, undated: treated as recent")
            )
        elif _days(reference, when) > window:
            out.append(
                _found(
                    gate_id,
                    GateStatus.NEGATED,
                    fact,
                    f"{shown}, {_days(reference, when)} days before {reference.isoformat()}: "
                    f"not recent (window {window} days)",
                )
            )
        else:
            out.append(
                _found(
                    gate_id,
                    GateStatus.TRIGGERED,
                    fact,
                    f"{shown}, {_days(reference, when)} days before {reference.isoformat()} "
                    f"(within {window})",
                )
            )
    return out


@dataclass(frozen=True)
class _Placement:
    facts: tuple[CodedFact, ...]
    when: date | None
    in_place: bool
    how: str


def device_findings(
    gate_id: str, codes: DeviceCodes, facts: Sequence[CodedFact], reference: date
) -> list[CodedFinding]:
    """A device in place fires; one removed, inactive or only planned is negated. A removal
    ends the placements dated on or before it, and an undated Device resource that it names
    as its device; an undated device it does not name still fires, with the removal shown."""
    matcher = CodeMatcher.of(codes)
    removal = CodeMatcher.of(codes.removed_by)
    by_resource: dict[str, list[CodedFact]] = defaultdict(list)
    for fact in facts:
        if fact.kind in (FactKind.DEVICE, FactKind.PROCEDURE, FactKind.CONDITION):
            by_resource[fact.resource].append(fact)
    removals: list[_End] = []
    removed_devices: dict[str, _End] = {}
    placements: list[_Placement] = []
    for group in by_resource.values():
        names = [f.name for f in group]
        codes_of = set().union(*(pairs(f.codes) for f in group))
        procedure = next((f for f in group if f.kind is FactKind.PROCEDURE), None)
        if procedure is not None and removal.matches(codes_of, *names):
            if procedure.status not in PLANNED_PROCEDURE:
                end = _End(procedure.effective, procedure)
                removals.append(end)
                for device in group:
                    if device.kind is FactKind.DEVICE:
                        removed_devices[device.name.lower()] = end
            continue
        matched = tuple(f for f in group if matcher.matches(pairs(f.codes), f.name))
        if matched:
            placements.append(_placement(matched, reference))
    out = []
    for placement in placements:
        spans = tuple(f.span for f in placement.facts)
        first = placement.facts[0]
        label = f"{first.name} (coded, {first.resource})"
        if not placement.in_place:
            out.append(
                CodedFinding(gate_id, GateStatus.NEGATED, spans, f"{label}: {placement.how}")
            )
            continue
        removal_end = _ended(placement.when, removals)
        named = removed_devices.get(first.name.lower())
        if placement.when is None and named is not None:
            removal_end = named
        if removal_end is not None and (placement.when is not None or removal_end is named):
            out.append(
                CodedFinding(
                    gate_id,
                    GateStatus.NEGATED,
                    spans + (removal_end.fact.span,),
                    f"{label}: {placement.how}; removed: {removal_end.fact.name} on "
                    f"{removal_end.when} ({removal_end.fact.resource})",
                )
            )
            continue
        later = (
            f"; a removal is recorded ({removal_end.fact.name} on {removal_end.when}, "
            f"{removal_end.fact.resource}): check whether this device is still in place"
            if removal_end is not None
            else ""
        )
        out.append(
            CodedFinding(gate_id, GateStatus.TRIGGERED, spans, f"{label}: {placement.how}{later}")
        )
    return out


def _placement(group: tuple[CodedFact, ...], reference: date) -> _Placement:
    fact = group[0]
    if fact.kind is FactKind.CONDITION:
        if fact.status in REFUTED:
            return _Placement(group, None, False, f"{fact.status} (verification)")
        gone = fact.clinical_status in INACTIVE_CONDITION or (
            fact.abatement is not None and fact.abatement <= reference
        )
        status = fact.clinical_status or "no clinical status"
        if gone:
            return _Placement(group, fact.onset, False, f"{status}: no longer in place")
        return _Placement(group, fact.onset or fact.effective, True, f"{status}: in place")
    procedure = next((f for f in group if f.kind is FactKind.PROCEDURE), None)
    if procedure is not None:
        shown = procedure.status or "status unknown"
        when = procedure.effective
        dated = f" {when.isoformat()}" if when else ""
        if procedure.status in PLANNED_PROCEDURE:
            return _Placement(group, when, False, f"planned, not done ({shown}{dated})")
        return _Placement(group, when, True, f"placed{dated} ({shown})")
    status = fact.status or "status unknown"
    if fact.status in INACTIVE_DEVICE:
        return _Placement(group, None, False, f"device {status}: not in place")
    return _Placement(group, fact.effective, True, f"device {status}: in place")


# -- medications and allergies -----------------------------------------------------------------


@dataclass(frozen=True)
class MedicationReading:
    """A medicine's status read from its codes, before the dosage is read."""

    fact: CodedFact
    status: GateStatus
    detail: str
    spans: tuple[Span, ...]


def medication_matches(codes: ConceptCodes, fact: CodedFact) -> tuple[bool, bool]:
    """(matched, matched only through an ingredient)."""
    matcher = CodeMatcher.of(codes)
    all_codes = pairs(fact.codes) | pairs(fact.related)
    if matcher.excluded(all_codes, fact.name, *fact.related_names):
        return False, False
    direct = matcher.by_code(pairs(fact.codes)) or matcher.by_name(fact.name)
    via = matcher.by_code(pairs(fact.related)) or matcher.by_name(*fact.related_names)
    return direct or via, via and not direct


def exposure_finding(gate_id: str, fact: CodedFact, via: bool) -> CodedFinding:
    """A medicine that counts whatever its course (an exposure: bleomycin)."""
    spans: tuple[Span, ...] = (fact.span,)
    if via and fact.related_span is not None:
        spans += (fact.related_span,)
    how = f" (contains {', '.join(fact.related_names) or 'it'})" if via else ""
    when = f", {fact.effective.isoformat()}" if fact.effective else ""
    return CodedFinding(
        gate_id,
        GateStatus.TRIGGERED,
        spans,
        f"{fact.name}{how}: {fact.status or 'status unknown'}{when} (coded, {fact.resource})",
    )


def current_medication(
    fact: CodedFact, via: bool, limit: MedicationLimit, reference: date
) -> MedicationReading:
    """Whether a medicine is currently taken, by its FHIR status and dates."""
    spans: tuple[Span, ...] = (fact.span,)
    if via and fact.related_span is not None:
        spans += (fact.related_span,)
    kind = fact.resource.split("/", 1)[0]
    how = f" (contains {', '.join(fact.related_names) or 'it'})" if via else ""
    label = f"{fact.name}{how} (coded, {fact.resource})"
    status = fact.status or "unknown"
    when = fact.effective
    if fact.status in NOT_STARTED_MEDICATION:
        return MedicationReading(fact, GateStatus.NEGATED, f"{label}: {status}, not started", spans)
    if fact.status in HELD_MEDICATION:
        return MedicationReading(
            fact,
            GateStatus.TRIGGERED,
            f"{label}: {status}: held now (for this operation?): check the plan",
            spans,
        )
    if fact.status in ENDED_MEDICATION:
        verb = "given" if kind == "MedicationAdministration" else status
        if when is None:
            return MedicationReading(
                fact, GateStatus.NEGATED, f"{label}: {status}, no date: not taken now", spans
            )
        days = _days(reference, when)
        window = limit.stopped_within_days
        # the fact's date is the period's end where the resource gives one, else its start:
        # the stop was on or after it
        if days <= window:
            return MedicationReading(
                fact,
                GateStatus.TRIGGERED,
                f"{label}: {verb}, dated {when.isoformat()}, {max(days, 0)} days before "
                f"{reference.isoformat()} (within {window}): stopped or held for this "
                "operation? check the plan",
                spans,
            )
        return MedicationReading(
            fact,
            GateStatus.NEGATED,
            f"{label}: {verb}, dated {when.isoformat()}, {days} days before "
            f"{reference.isoformat()}: not taken now",
            spans,
        )
    meaning = {
        "unknown": "status unknown: read as taken",
        "in-progress": "in progress",
    }.get(status, status)
    since = f", {when.isoformat()}" if when else ""
    return MedicationReading(fact, GateStatus.TRIGGERED, f"{label}: {meaning}{since}", spans)


def allergy_findings(
    gate_id: str, codes: AllergyCodes, facts: Sequence[CodedFact]
) -> list[CodedFinding]:
    matcher = CodeMatcher.of(codes)
    out = []
    for fact in facts:
        if fact.kind is not FactKind.ALLERGY or not matcher.matches(pairs(fact.codes), fact.name):
            continue
        label = f"allergy to {fact.name} (coded, {fact.resource})"
        if fact.status in REFUTED:
            out.append(
                CodedFinding(gate_id, GateStatus.NEGATED, (fact.span,), f"{label}: {fact.status}")
            )
        elif fact.clinical_status in INACTIVE_ALLERGY:
            out.append(
                CodedFinding(
                    gate_id,
                    GateStatus.NEGATED,
                    (fact.span,),
                    f"{label}: {fact.clinical_status} (no longer held)",
                )
            )
        elif codes.fires:
            status = ", ".join(s for s in (fact.clinical_status, fact.status) if s)
            out.append(
                CodedFinding(
                    gate_id,
                    GateStatus.TRIGGERED,
                    (fact.span,),
                    f"{label}: {status or 'status unknown'}",
                )
            )
    return out


# -- coronary stents ---------------------------------------------------------------------------


def stent_findings(
    gate_id: str,
    codes: StentCodes,
    limits: GateLimits,
    facts: Sequence[CodedFact],
    reference: date,
) -> list[CodedFinding]:
    matcher = CodeMatcher(codes.codes, codes.names)
    des = names_re(codes.des_names)
    bms = names_re(codes.bms_names)
    by_resource: dict[str, list[CodedFact]] = defaultdict(list)
    for fact in facts:
        stent_like = fact.kind in (FactKind.PROCEDURE, FactKind.DEVICE)
        if (
            stent_like
            and fact.status not in PLANNED
            and matcher.matches(pairs(fact.codes), fact.name)
        ):
            by_resource[fact.resource].append(fact)
    dated: list[CodedFinding] = []
    undated: list[CodedFinding] = []
    for group in by_resource.values():
        names = " ".join(f.name for f in group)
        kind = (
            "bare-metal"
            if bms is not None and bms.search(names) and not (des is not None and des.search(names))
            else "drug-eluting"
        )
        limit = limits.des_days if kind == "drug-eluting" else limits.bms_days
        assert limit is not None
        spans = tuple(f.span for f in group)
        when = next((f.effective for f in group if f.effective), None)
        label = f"{kind} stent '{group[-1].name}' (coded, {group[0].resource})"
        if when is None:
            undated.append(
                CodedFinding(
                    gate_id, GateStatus.TRIGGERED, spans, f"{label} with no date: treated as recent"
                )
            )
            continue
        days = _days(reference, when)
        recent = days < limit
        dated.append(
            CodedFinding(
                gate_id,
                GateStatus.TRIGGERED if recent else GateStatus.NEGATED,
                spans,
                f"{label} {when.isoformat()}: {days} days before {reference.isoformat()}"
                + (f" < {limit} days" if recent else " (not recent)"),
            )
        )
    return dated + ([] if dated else undated)
