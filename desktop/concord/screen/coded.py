"""The record screen on coded data: gates fired by codes and values (FHIR Observations with
LOINC and UCUM, coded procedures and devices, medications and their ingredients, coded
conditions with their clinical status), with evidence spans in the rendered text of the
resource.

Each gate names its codes in `resources/gates/codes/<gate_id>.json` (schema
``concord.gate-codes/1``, versioned); thresholds, comparators, ratios and stent windows are
not repeated there: they are read from the gate's own rules (`resources/gates/`), so a
threshold has one owner. Values are converted to the code list's UCUM unit (the unit the
gate's threshold is written in).

How coded findings combine with the text screen (`merge_hits`):
* a series of one test: the most recent value decides; earlier values that cross the
  threshold are reported as negated ("superseded by ...") when a later one does not;
* coded and free text disagree (a letter says K+ 4.1, the Observation 6.4): both are shown
  and the gate follows the worse - it fires if either fires; the detail names both.
"""

from __future__ import annotations

import operator
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from concord import paths
from concord.domain.coded import CodedFact, FactKind, Quantity
from concord.domain.gate import GateHit, GateStatus
from concord.domain.record import Record, Span, SpanText
from concord.errors import InputError
from concord.records.ucum import UcumError, to_unit
from concord.screen.dates import surgery_date
from concord.screen.lexicon import Lexicon
from concord.screen.resource_file import read_resource_file
from concord.screen.units import UnitTable

if TYPE_CHECKING:
    from concord.screen.record_screen import RecordScreen
    from concord.screen.rules import GateDefinition, GateFile

CODES_SCHEMA = "concord.gate-codes/1"
MAX_CODED_SPANS = 8
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_SYMBOL = {"<": "<", "<=": "≤", ">": ">", ">=": "≥"}
IGNORED_STATUSES = frozenset({"entered-in-error", "cancelled", "not-done", "not-taken"})
ACTIVE_CONDITION = frozenset({"active", "recurrence", "relapse"})
INACTIVE_CONDITION = frozenset({"inactive", "remission", "resolved"})
REFUTED = frozenset({"refuted", "entered-in-error"})
PLANNED = frozenset({"preparation", "planned", "intended"})
ROOM_AIR_FIO2 = 21.0


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CodeIn(_Strict):
    system: str
    code: str
    display: str = ""


class ObservationCodes(_Strict):
    concept: str = Field(description="The gate rule's lexicon concept (numeric or rising)")
    ucum_unit: str = Field(description="UCUM unit the gate threshold is written in")
    codes: list[CodeIn] = []
    names: list[str] = []
    exclude_names: list[str] = []


class OxygenCodes(_Strict):
    concentration: list[CodeIn] = []
    flow: list[CodeIn] = []
    names_concentration: list[str] = []
    names_flow: list[str] = []


class ConceptCodes(_Strict):
    codes: list[CodeIn] = []
    names: list[str] = []
    recent_days: int = Field(default=42, gt=0)


class StentCodes(_Strict):
    codes: list[CodeIn] = []
    names: list[str] = []
    des_names: list[str] = []
    bms_names: list[str] = []


class GateCodes(_Strict):
    """`resources/gates/codes/<gate_id>.json`."""

    schema_: str = Field(alias="schema", pattern=r"^concord\.gate-codes/1$")
    gate_id: str
    version: str
    description: str = ""
    observations: list[ObservationCodes] = []
    inspired_oxygen: OxygenCodes | None = None
    medications: ConceptCodes | None = None
    conditions: ConceptCodes | None = None
    stents: StentCodes | None = None


@dataclass(frozen=True)
class NumericLimit:
    comparator: str
    threshold: float
    quantity: str | None = None  # the units.json quantity the text rule reads


@dataclass(frozen=True)
class GateLimits:
    """What the gate's own rules say: per concept a numeric limit or a rising ratio; the
    stent windows."""

    numeric: dict[str, NumericLimit]
    rising: dict[str, float]
    des_days: int | None = None
    bms_days: int | None = None


@dataclass(frozen=True)
class CodedFinding:
    gate_id: str
    status: GateStatus
    spans: tuple[Span, ...]
    detail: str


@dataclass(frozen=True)
class NotEvaluated:
    """A coded fact that looked relevant but could not be read (e.g. a unit that does not
    convert): shown so a person knows the screen did not use it."""

    gate_id: str
    resource: str
    reason: str


def _codes(items: Iterable[CodeIn]) -> frozenset[tuple[str, str]]:
    return frozenset((c.system, c.code) for c in items)


def _names_re(names: Sequence[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])", re.IGNORECASE)


class _Matcher:
    def __init__(self, codes: Iterable[CodeIn], names: Sequence[str], exclude: Sequence[str] = ()):
        self.codes = _codes(codes)
        self.names = _names_re(names)
        self.exclude = _names_re(exclude)

    def by_code(self, fact_codes: Iterable[tuple[str, str]]) -> bool:
        return not self.codes.isdisjoint(fact_codes)

    def by_name(self, *names: str) -> bool:
        if self.names is None:
            return False
        for name in names:
            if self.names.search(name) and not (self.exclude and self.exclude.search(name)):
                return True
        return False

    def matches(self, codes: Iterable[tuple[str, str]], *names: str) -> bool:
        return self.by_code(codes) or self.by_name(*names)


def _pairs(fact_codes: Iterable[object]) -> set[tuple[str, str]]:
    return {(c.system, c.code) for c in fact_codes}  # type: ignore[attr-defined]


@dataclass(frozen=True)
class _Value:
    fact: CodedFact
    value: float
    quantity: Quantity
    order: int  # position in the record, for ties

    @property
    def when(self) -> date:
        return self.fact.effective or date.min


def _fmt(value: float) -> str:
    return f"{value:g}"


def _name_and_value(value: _Value) -> Span:
    """One span from the concept's name to its value when they are on one line (as the
    renderer writes them), else the value alone."""
    name, quantity = value.fact.span, value.quantity.span
    if name.source_id == quantity.source_id and name.start <= quantity.start:
        return Span(source_id=name.source_id, start=name.start, end=quantity.end)
    return quantity


@dataclass(frozen=True)
class TextValue:
    """A value of the same test written in free text (a letter, a scan)."""

    span: Span
    value: float  # in the gate's canonical unit
    written: str


TextValues = Callable[[Record, str, str | None], list[TextValue]]
"""(record, lexicon concept, units.json quantity) -> the values free text gives for it."""


class FreeTextValues:
    """Reads values of a concept from the record's free-text documents with the text
    screen's own reader (`RecordScreen.values_of`: tables, combined fields, units, series),
    so that a coded value and a letter are compared on the same reading."""

    def __init__(self, screen: RecordScreen) -> None:
        self.screen = screen

    def __call__(self, record: Record, concept: str, quantity: str | None) -> list[TextValue]:
        del quantity  # the gate rule that reads the concept names its quantity
        return [
            TextValue(Span(source_id=v.source_id, start=v.start, end=v.end), v.value, v.written)
            for v in self.screen.values_of(record, concept, skip_kinds=frozenset({"fhir"}))
        ]


class CodedScreen:
    """The code lists with the limits of their gates. Build with `CodedScreen.load`."""

    def __init__(self, code_lists: Sequence[GateCodes], limits: dict[str, GateLimits]) -> None:
        self.code_lists = sorted(code_lists, key=lambda c: c.gate_id)
        self.limits = limits

    @classmethod
    def load(
        cls, resources: Path | None = None, limits: dict[str, GateLimits] | None = None
    ) -> CodedScreen:
        """Code lists from `<resources>/gates/codes/*.json`; limits from the gate files
        (`gate_limits`) unless given."""
        root = resources or paths.resources_dir()
        folder = root / "gates" / "codes"
        files = sorted(folder.glob("*.json")) if folder.is_dir() else []
        code_lists = [read_resource_file(path, GateCodes, "gate code list") for path in files]
        limits = limits if limits is not None else gate_limits(root)
        seen: set[str] = set()
        for path, codes in zip(files, code_lists, strict=True):
            if codes.gate_id in seen:
                raise InputError(f"second code list for gate {codes.gate_id}", subject=path)
            seen.add(codes.gate_id)
            if codes.gate_id not in limits:
                raise InputError(f"code list for unknown gate {codes.gate_id!r}", subject=path)
            gate = limits[codes.gate_id]
            for entry in codes.observations:
                if entry.concept not in gate.numeric and entry.concept not in gate.rising:
                    raise InputError(
                        f"gate {codes.gate_id} has no numeric or rising rule for {entry.concept!r}",
                        subject=path,
                    )
        return cls(code_lists, limits)

    # -- evaluation -----------------------------------------------------------------------

    def evaluate(
        self,
        record: Record,
        *,
        today: date | None = None,
        text_values: TextValues | None = None,
    ) -> tuple[list[CodedFinding], list[NotEvaluated]]:
        """Coded findings for every gate with a code list, in gate order. With
        `text_values`, a free-text value of the same test on the other side of the threshold
        from the coded one is added to the finding (both are shown)."""
        findings: list[CodedFinding] = []
        skipped: list[NotEvaluated] = []
        facts = [f for f in record.coded if f.status not in IGNORED_STATUSES]
        reference = self._reference_date(record, today)
        for codes in self.code_lists:
            limits = self.limits[codes.gate_id]
            for entry in codes.observations:
                values, problems = self._values(codes.gate_id, entry, facts)
                skipped.extend(problems)
                if entry.concept in limits.numeric:
                    limit = limits.numeric[entry.concept]
                    written = (
                        text_values(record, entry.concept, limit.quantity)
                        if text_values is not None and values
                        else []
                    )
                    findings.extend(self._numeric(codes, entry, limit, values, facts, written))
                if entry.concept in limits.rising:
                    findings.extend(
                        self._rising(codes.gate_id, entry, limits.rising[entry.concept], values)
                    )
            if codes.medications is not None:
                findings.extend(self._medications(codes.gate_id, codes.medications, facts))
            if codes.conditions is not None:
                findings.extend(self._conditions(codes.gate_id, codes.conditions, facts, reference))
            if codes.stents is not None and limits.des_days and limits.bms_days:
                findings.extend(self._stents(codes.gate_id, codes.stents, limits, facts, reference))
        return findings, skipped

    @staticmethod
    def _reference_date(record: Record, today: date | None) -> date:
        planned = [
            f.effective
            for f in record.coded
            if f.kind is FactKind.PROCEDURE and f.status in PLANNED and f.effective
        ]
        if planned:
            return min(planned)
        stated = surgery_date([d.text for d in record.documents])
        return stated or today or datetime.now(UTC).date()

    def _values(
        self, gate_id: str, entry: ObservationCodes, facts: Sequence[CodedFact]
    ) -> tuple[list[_Value], list[NotEvaluated]]:
        matcher = _Matcher(entry.codes, entry.names, entry.exclude_names)
        values: list[_Value] = []
        problems: list[NotEvaluated] = []
        for order, fact in enumerate(facts):
            if fact.kind is not FactKind.OBSERVATION:
                continue
            candidates: list[Quantity | None] = []
            if matcher.by_code(_pairs(fact.codes)) or (
                not fact.codes and matcher.by_name(fact.name)
            ):
                candidates.append(fact.quantity)
            for component in fact.components:
                if matcher.by_code(_pairs(component.codes)) or (
                    not component.codes and matcher.by_name(component.name)
                ):
                    candidates.append(component.quantity)
            for quantity in candidates:
                if quantity is None:
                    continue
                try:
                    value = to_unit(quantity.value, quantity.unit, entry.ucum_unit)
                except UcumError as exc:
                    problems.append(NotEvaluated(gate_id, fact.resource, str(exc)))
                    continue
                values.append(_Value(fact, value, quantity, order))
        return values, problems

    def _numeric(
        self,
        codes: GateCodes,
        entry: ObservationCodes,
        limit: NumericLimit,
        values: list[_Value],
        facts: Sequence[CodedFact],
        written: Sequence[TextValue] = (),
    ) -> list[CodedFinding]:
        compare = _COMPARE[limit.comparator]
        series: dict[frozenset[tuple[str, str]], list[_Value]] = defaultdict(list)
        for value in values:
            series[
                frozenset(_pairs(value.fact.codes)) or frozenset({("", value.fact.name.lower())})
            ].append(value)
        out: list[CodedFinding] = []
        firing_text = [t for t in written if compare(t.value, limit.threshold)]
        for items in series.values():
            items.sort(key=lambda v: (v.when, v.order))
            latest = items[-1]
            if firing_text and not compare(latest.value, limit.threshold):
                out.append(  # the text fires, the latest coded value does not: show both
                    CodedFinding(
                        codes.gate_id,
                        GateStatus.NEGATED,
                        (_name_and_value(latest),) + tuple(t.span for t in firing_text),
                        f"coded {latest.fact.name} {_fmt(latest.quantity.value)} "
                        f"{latest.quantity.unit} ({latest.fact.resource}) does not cross "
                        f"{_SYMBOL[limit.comparator]} {_fmt(limit.threshold)}; free text says "
                        + ", ".join(f"'{t.written}'" for t in firing_text[:3])
                        + ": following the worse",
                    )
                )
            for value in items:
                if not compare(value.value, limit.threshold):
                    continue
                spans: tuple[Span, ...] = (_name_and_value(value),)
                as_coded = f"{value.fact.name} {_fmt(value.quantity.value)} {value.quantity.unit}"
                shown = (
                    f"{as_coded} {_SYMBOL[limit.comparator]} {_fmt(limit.threshold)} "
                    f"{entry.ucum_unit} (coded, {value.fact.resource}"
                    + (f", {value.fact.effective.isoformat()}" if value.fact.effective else "")
                    + ")"
                )
                shown += self._oxygen_note(codes, value.fact, facts)
                disagree = [t for t in written if not compare(t.value, limit.threshold)]
                if disagree and value is latest:
                    spans += tuple(t.span for t in disagree)
                    shown += (
                        "; free text says "
                        + ", ".join(f"'{t.written}' ({t.span.source_id})" for t in disagree[:3])
                        + ": following the worse, most recent coded value"
                    )
                later_normal = value is not latest and not compare(latest.value, limit.threshold)
                if later_normal and latest.when > value.when:
                    out.append(
                        CodedFinding(
                            codes.gate_id,
                            GateStatus.NEGATED,
                            spans + (_name_and_value(latest),),
                            f"{shown}, superseded by {latest.fact.name} "
                            f"{_fmt(latest.quantity.value)} {latest.quantity.unit} on "
                            f"{latest.when.isoformat()}",
                        )
                    )
                    continue
                out.append(CodedFinding(codes.gate_id, GateStatus.TRIGGERED, spans, shown))
        return out

    @staticmethod
    def _oxygen_note(codes: GateCodes, fact: CodedFact, facts: Sequence[CodedFact]) -> str:
        oxygen = codes.inspired_oxygen
        if oxygen is None:
            return ""
        concentration = _Matcher(oxygen.concentration, oxygen.names_concentration)
        flow = _Matcher(oxygen.flow, oxygen.names_flow)
        parts = [(c.codes, c.name, c.quantity) for c in fact.components]
        parts += [
            (f.codes, f.name, f.quantity)
            for f in facts
            if f.kind is FactKind.OBSERVATION and f is not fact and f.effective == fact.effective
        ]
        for part_codes, name, quantity in parts:
            if quantity is None:
                continue
            if concentration.matches(_pairs(part_codes), name):
                try:
                    fio2 = to_unit(quantity.value, quantity.unit, "%")
                except UcumError:
                    continue
                if fio2 <= ROOM_AIR_FIO2:
                    return f" on room air (FiO2 {_fmt(fio2)}%)"
                return f" on supplemental oxygen (FiO2 {_fmt(fio2)}%)"
            if flow.matches(_pairs(part_codes), name):
                try:
                    litres = to_unit(quantity.value, quantity.unit, "L/min")
                except UcumError:
                    continue
                if litres <= 0:
                    return " on room air (oxygen flow 0)"
                return f" on supplemental oxygen ({_fmt(litres)} L/min)"
        return " (inspired oxygen not stated: read as room air)"

    @staticmethod
    def _rising(
        gate_id: str, entry: ObservationCodes, ratio: float, values: list[_Value]
    ) -> list[CodedFinding]:
        series: dict[frozenset[tuple[str, str]], list[_Value]] = defaultdict(list)
        for value in values:
            series[frozenset(_pairs(value.fact.codes))].append(value)
        out = []
        for items in series.values():
            if len(items) < 2:
                continue
            items.sort(key=lambda v: (v.when, v.order))
            first = items[0]
            peak = max(items[1:], key=lambda v: v.value)
            if first.value > 0 and peak.value / first.value >= ratio:
                out.append(
                    CodedFinding(
                        gate_id,
                        GateStatus.TRIGGERED,
                        (_name_and_value(first), _name_and_value(peak)),
                        f"{first.fact.name} {_fmt(first.value)} -> {_fmt(peak.value)} "
                        f"{entry.ucum_unit}: rising (coded, {first.fact.resource} -> "
                        f"{peak.fact.resource})",
                    )
                )
        return out

    @staticmethod
    def _medications(
        gate_id: str, codes: ConceptCodes, facts: Sequence[CodedFact]
    ) -> list[CodedFinding]:
        matcher = _Matcher(codes.codes, codes.names)
        out = []
        for fact in facts:
            if fact.kind is not FactKind.MEDICATION:
                continue
            direct = matcher.by_code(_pairs(fact.codes)) or matcher.by_name(fact.name)
            via = matcher.by_code(_pairs(fact.related)) or matcher.by_name(*fact.related_names)
            if not (direct or via):
                continue
            spans: tuple[Span, ...] = (fact.span,)
            if via and fact.related_span is not None:
                spans += (fact.related_span,)
            how = "" if direct else f" (contains {', '.join(fact.related_names) or 'it'})"
            when = f", {fact.effective.isoformat()}" if fact.effective else ""
            out.append(
                CodedFinding(
                    gate_id,
                    GateStatus.TRIGGERED,
                    spans,
                    f"{fact.name}{how}: {fact.status or 'status unknown'}{when} "
                    f"(coded, {fact.resource})",
                )
            )
        return out

    @staticmethod
    def _conditions(
        gate_id: str, codes: ConceptCodes, facts: Sequence[CodedFact], reference: date
    ) -> list[CodedFinding]:
        matcher = _Matcher(codes.codes, codes.names)
        out = []
        for fact in facts:
            if fact.kind is not FactKind.CONDITION or not matcher.matches(
                _pairs(fact.codes), fact.name
            ):
                continue
            label = f"{fact.name} (coded, {fact.resource})"
            if fact.status in REFUTED:
                out.append(
                    CodedFinding(
                        gate_id, GateStatus.NEGATED, (fact.span,), f"{label}: {fact.status}"
                    )
                )
                continue
            if fact.abatement is not None and fact.abatement <= reference:
                out.append(
                    CodedFinding(
                        gate_id,
                        GateStatus.NEGATED,
                        (fact.span,),
                        f"{label}: resolved {fact.abatement.isoformat()}",
                    )
                )
                continue
            if fact.clinical_status in INACTIVE_CONDITION:
                out.append(
                    CodedFinding(
                        gate_id,
                        GateStatus.NEGATED,
                        (fact.span,),
                        f"{label}: {fact.clinical_status}",
                    )
                )
                continue
            onset = f", onset {fact.onset.isoformat()}" if fact.onset else ""
            if fact.clinical_status in ACTIVE_CONDITION:
                out.append(
                    CodedFinding(
                        gate_id,
                        GateStatus.TRIGGERED,
                        (fact.span,),
                        f"{label}: {fact.clinical_status}{onset}",
                    )
                )
                continue
            started = fact.onset or fact.effective
            if started is not None and (reference - started).days > codes.recent_days:
                out.append(
                    CodedFinding(
                        gate_id,
                        GateStatus.NEGATED,
                        (fact.span,),
                        f"{label}: no clinical status, onset {started.isoformat()} over "
                        f"{codes.recent_days} days before {reference.isoformat()}",
                    )
                )
                continue
            out.append(
                CodedFinding(
                    gate_id,
                    GateStatus.TRIGGERED,
                    (fact.span,),
                    f"{label}: no clinical status{onset}",
                )
            )
        return out

    @staticmethod
    def _stents(
        gate_id: str,
        codes: StentCodes,
        limits: GateLimits,
        facts: Sequence[CodedFact],
        reference: date,
    ) -> list[CodedFinding]:
        matcher = _Matcher(codes.codes, codes.names)
        des = _names_re(codes.des_names)
        bms = _names_re(codes.bms_names)
        by_resource: dict[str, list[CodedFact]] = defaultdict(list)
        for fact in facts:
            stent_like = fact.kind in (FactKind.PROCEDURE, FactKind.DEVICE)
            if (
                stent_like
                and fact.status not in PLANNED
                and matcher.matches(_pairs(fact.codes), fact.name)
            ):
                by_resource[fact.resource].append(fact)
        dated: list[CodedFinding] = []
        undated: list[CodedFinding] = []
        for group in by_resource.values():
            names = " ".join(f.name for f in group)
            kind = (
                "bare-metal"
                if bms is not None
                and bms.search(names)
                and not (des is not None and des.search(names))
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
                        gate_id,
                        GateStatus.TRIGGERED,
                        spans,
                        f"{label} with no date: treated as recent",
                    )
                )
                continue
            days = (reference - when).days
            if days < limit:
                dated.append(
                    CodedFinding(
                        gate_id,
                        GateStatus.TRIGGERED,
                        spans,
                        f"{label} {when.isoformat()}: {days} days before "
                        f"{reference.isoformat()} < {limit} days",
                    )
                )
            else:
                dated.append(
                    CodedFinding(
                        gate_id,
                        GateStatus.NEGATED,
                        spans,
                        f"{label} {when.isoformat()}: {days} days before "
                        f"{reference.isoformat()} (not recent)",
                    )
                )
        any_dated = bool(dated)
        return dated + ([] if any_dated else undated)


def gate_limits(resources: Path | None = None) -> dict[str, GateLimits]:
    """Per gate, the limits of its rules (`limits_of`), read from the gate files."""
    from concord.screen.rules import read_gate_file

    root = resources or paths.resources_dir()
    lexicon = Lexicon.load(root / "lexicon")
    units = UnitTable.load(root / "lexicon" / "units.json")
    gates = (
        read_gate_file(path, lexicon, units) for path in sorted((root / "gates").glob("*.json"))
    )
    return {gate.gate_id: limits_of(gate) for gate in gates}


def limits_of(gate: GateFile) -> GateLimits:
    """The numeric limits and rising ratios of a gate's rules, and its stent windows: the
    coded screen applies the gate file's own thresholds, never a copy."""
    from concord.screen.rules import NumericRule, RisingRule, StentRule

    numeric = {
        r.concept: NumericLimit(r.comparator, r.threshold, r.quantity)
        for r in gate.rules
        if isinstance(r, NumericRule)
    }
    rising = {r.concept: r.min_ratio for r in gate.rules if isinstance(r, RisingRule)}
    stent = next((r for r in gate.rules if isinstance(r, StentRule)), None)
    return GateLimits(
        numeric,
        rising,
        stent.des_days if stent else None,
        stent.bms_days if stent else None,
    )


def merge_hits(
    record: Record,
    text_hits: Sequence[GateHit],
    findings: Sequence[CodedFinding],
    definitions: dict[str, GateDefinition],
) -> tuple[GateHit, ...]:
    """The text screen's hits with the coded findings joined in: a gate fires if either
    fires (the worse); coded evidence first, then the text's; the detail names both when
    they disagree. `definitions` (RecordScreen.definitions) give the title, severity and
    specialty of a gate only coded data fired."""
    by_gate: dict[str, list[CodedFinding]] = defaultdict(list)
    for finding in findings:
        by_gate[finding.gate_id].append(finding)
    text_by_gate = {hit.gate_id: hit for hit in text_hits}
    order = [hit.gate_id for hit in text_hits] + [g for g in by_gate if g not in text_by_gate]
    out: list[GateHit] = []
    for gate_id in order:
        text = text_by_gate.get(gate_id)
        coded = by_gate.get(gate_id, [])
        if not coded:
            assert text is not None
            out.append(text)
            continue
        template: GateHit | GateDefinition | None = text or definitions.get(gate_id)
        if template is None:
            continue  # a coded finding for a gate the screen does not know
        triggered = [f for f in coded if f.status is GateStatus.TRIGGERED]
        coded_status = GateStatus.TRIGGERED if triggered else GateStatus.NEGATED
        status = (
            GateStatus.TRIGGERED
            if coded_status is GateStatus.TRIGGERED
            or (text and text.status is GateStatus.TRIGGERED)
            else GateStatus.NEGATED
        )
        spans: dict[tuple[str, int, int], SpanText] = {}
        for finding in triggered + [f for f in coded if f not in triggered]:
            for span in finding.spans:
                key = (span.source_id, span.start, span.end)
                if key not in spans and len(spans) < MAX_CODED_SPANS:
                    spans[key] = record.span_text(span.source_id, span.start, span.end)
        for span in text.evidence if text else ():
            spans.setdefault((span.source_id, span.start, span.end), span)
        lead = (triggered or coded)[0].detail
        more = len(triggered or coded) - 1
        detail = lead + (f" (+{more} more coded)" if more else "")
        if text is not None and text.status is not coded_status:
            detail += f"; free text {text.status.value}: {text.detail} - following the worse"
        elif text is not None:
            detail += f"; free text: {text.detail}"
        out.append(
            GateHit(
                gate_id=gate_id,
                title=template.title,
                severity=template.severity,
                status=status,
                specialty=template.specialty,
                evidence=tuple(spans.values()),
                detail=detail,
            )
        )
    return tuple(out)
