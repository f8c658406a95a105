"""Coded results: Observation values against a gate's limits (a series of one test: the
most recent value decides), rising series, BMI stated or computed from the latest weight
and height, and qualitative results (positive / negative).

Values are converted to the code list's UCUM unit. Where UCUM cannot (a creatinine in
mg/dL to µmol/L needs a molar mass; an HbA1c in % is not a fraction of mmol/mol), the
conversion of the gate rule's own quantity in the unit table (`resources/lexicon/units.json`)
is used, as the text screen reads the same unit written in a letter.
"""

from __future__ import annotations

import operator
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from concord.domain.coded import CodedFact, FactKind, Quantity
from concord.domain.gate import GateStatus
from concord.domain.record import Span
from concord.records.ucum import UcumError, to_unit
from concord.screen.coded_lists import (
    BmiLimit,
    CodedFinding,
    CodeMatcher,
    NotEvaluated,
    NumericLimit,
    ObservationCodes,
    ResultCodes,
    pairs,
)
from concord.screen.reading import fold_text
from concord.screen.units import UnitTable

COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
SYMBOL = {"<": "<", "<=": "≤", ">": ">", ">=": "≥"}


@dataclass(frozen=True)
class Value:
    fact: CodedFact
    value: float  # in the entry's UCUM unit
    quantity: Quantity
    order: int  # position in the record, for ties
    series: frozenset[tuple[str, str]]  # the test: a later value of it supersedes
    name: str
    name_span: Span

    @property
    def when(self) -> date:
        return self.fact.effective or date.min


@dataclass(frozen=True)
class TextValue:
    """A value of the same test written in free text (a letter, a scan)."""

    span: Span
    value: float  # in the gate's canonical unit
    written: str


def fmt(value: float) -> str:
    return f"{value:g}"


def name_and_value(value: Value) -> Span:
    """One span from the test's name to its value when they are on one line (as the
    renderer writes them), else the value alone."""
    name, quantity = value.name_span, value.quantity.span
    if name.source_id == quantity.source_id and name.start <= quantity.start:
        return Span(source_id=name.source_id, start=name.start, end=quantity.end)
    return quantity


def convert(
    quantity: Quantity, ucum_unit: str, table_quantity: str | None, units: UnitTable | None
) -> float:
    """`quantity` in `ucum_unit`: by the unit table of the rule's quantity where it knows
    the unit (an analyte's own conversion, as the text screen reads it), else by UCUM.
    Raises UcumError."""
    if units is not None and table_quantity is not None:
        form = units.is_unit(fold_text(quantity.unit), prefer=table_quantity)
        if form is not None and form.quantity == table_quantity:
            return float(f"{form.to_canonical(quantity.value):.12g}")
    return to_unit(quantity.value, quantity.unit, ucum_unit)


def read_values(
    gate_id: str,
    entry: ObservationCodes,
    facts: Sequence[CodedFact],
    table_quantity: str | None = None,
    units: UnitTable | None = None,
) -> tuple[list[Value], list[NotEvaluated]]:
    """Every value of the entry's test in the record (the Observation's own value, or a
    component's: a blood pressure panel's systolic part)."""
    matcher = CodeMatcher(entry.codes, entry.names, entry.exclude_names)
    values: list[Value] = []
    problems: list[NotEvaluated] = []
    for order, fact in enumerate(facts):
        if fact.kind is not FactKind.OBSERVATION:
            continue
        found: list[tuple[Quantity | None, frozenset[tuple[str, str]], str, Span]] = []
        codes = pairs(fact.codes)
        if matcher.by_code(codes) or (not fact.codes and matcher.by_name(fact.name)):
            key = frozenset(codes) or frozenset({("", fact.name.lower())})
            found.append((fact.quantity, key, fact.name, fact.span))
        for component in fact.components:
            codes = pairs(component.codes)
            if matcher.by_code(codes) or (not component.codes and matcher.by_name(component.name)):
                key = frozenset(codes) or frozenset({("", component.name.lower())})
                found.append((component.quantity, key, component.name, component.span))
        for quantity, key, name, span in found:
            if quantity is None:
                continue
            try:
                value = convert(quantity, entry.ucum_unit, table_quantity, units)
            except UcumError as exc:
                problems.append(NotEvaluated(gate_id, fact.resource, str(exc)))
                continue
            values.append(Value(fact, value, quantity, order, key, name, span))
    return values, problems


def _series(values: Sequence[Value]) -> list[list[Value]]:
    out: dict[frozenset[tuple[str, str]], list[Value]] = defaultdict(list)
    for value in values:
        out[value.series].append(value)
    for items in out.values():
        items.sort(key=lambda v: (v.when, v.order))
    return list(out.values())


def _as_coded(value: Value) -> str:
    return f"{value.name} {fmt(value.quantity.value)} {value.quantity.unit}"


def numeric_findings(
    gate_id: str,
    entry: ObservationCodes,
    limit: NumericLimit,
    values: Sequence[Value],
    written: Sequence[TextValue] = (),
    note: Callable[[Value], str] = lambda _v: "",
    reference: date | None = None,
    window: int | None = None,
) -> list[CodedFinding]:
    """Per series of one test: each value that crosses the limit, triggered when it is the
    latest (or no later value says otherwise), negated when superseded by a later value
    that does not cross, or (with `window`) when older than the window before `reference`.
    A free-text value on the other side of the limit is shown beside it."""
    compare = COMPARE[limit.comparator]
    symbol = f"{SYMBOL[limit.comparator]} {fmt(limit.threshold)}"
    out: list[CodedFinding] = []
    firing_text = [t for t in written if compare(t.value, limit.threshold)]
    for items in _series(values):
        latest = items[-1]
        if firing_text and not compare(latest.value, limit.threshold):
            out.append(  # the text fires, the latest coded value does not: show both
                CodedFinding(
                    gate_id,
                    GateStatus.NEGATED,
                    (name_and_value(latest),) + tuple(t.span for t in firing_text),
                    f"coded {_as_coded(latest)} ({latest.fact.resource}) does not cross "
                    f"{symbol}; free text says "
                    + ", ".join(f"'{t.written}'" for t in firing_text[:3])
                    + ": following the worse",
                )
            )
        for value in items:
            if not compare(value.value, limit.threshold):
                continue
            spans: tuple[Span, ...] = (name_and_value(value),)
            shown = (
                f"{_as_coded(value)} {symbol} {entry.ucum_unit} (coded, {value.fact.resource}"
                + (f", {value.fact.effective.isoformat()}" if value.fact.effective else "")
                + ")"
            )
            shown += note(value)
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
                        gate_id,
                        GateStatus.NEGATED,
                        spans + (name_and_value(latest),),
                        f"{shown}, superseded by {latest.name} "
                        f"{fmt(latest.quantity.value)} {latest.quantity.unit} on "
                        f"{latest.when.isoformat()}",
                    )
                )
                continue
            age = _age(value.fact.effective, reference)
            if window is not None and age is not None and age > window:
                out.append(
                    CodedFinding(
                        gate_id,
                        GateStatus.NEGATED,
                        spans,
                        f"{shown}: {age} days before {reference}, not recent (window {window} "
                        "days)",
                    )
                )
                continue
            out.append(CodedFinding(gate_id, GateStatus.TRIGGERED, spans, shown))
    return out


def _age(when: date | None, reference: date | None) -> int | None:
    if when is None or reference is None:
        return None
    return (reference - when).days


def rising_findings(
    gate_id: str, entry: ObservationCodes, ratio: float, values: Sequence[Value]
) -> list[CodedFinding]:
    out = []
    for items in _series(values):
        if len(items) < 2:
            continue
        first = items[0]
        peak = max(items[1:], key=lambda v: v.value)
        if first.value > 0 and peak.value / first.value >= ratio:
            out.append(
                CodedFinding(
                    gate_id,
                    GateStatus.TRIGGERED,
                    (name_and_value(first), name_and_value(peak)),
                    f"{first.name} {fmt(first.value)} -> {fmt(peak.value)} "
                    f"{entry.ucum_unit}: rising (coded, {first.fact.resource} -> "
                    f"{peak.fact.resource})",
                )
            )
    return out


def bmi_findings(
    gate_id: str, limit: BmiLimit, values: dict[str, list[Value]], units: dict[str, str]
) -> list[CodedFinding]:
    """BMI at or above the limit: the latest stated BMI, or one computed from the latest
    weight and height when that weight is more recent; the more recent reading decides and
    the other is shown superseded when it alone crosses."""
    stated = max(values.get(limit.concept, []), key=lambda v: (v.when, v.order), default=None)
    weight = max(values.get(limit.weight, []), key=lambda v: (v.when, v.order), default=None)
    height = max(values.get(limit.height, []), key=lambda v: (v.when, v.order), default=None)
    readings: list[tuple[date, float, tuple[Span, ...], str]] = []
    if stated is not None:
        readings.append(
            (
                stated.when,
                stated.value,
                (name_and_value(stated),),
                f"{_as_coded(stated)} (coded, {stated.fact.resource}"
                + (f", {stated.when.isoformat()})" if stated.fact.effective else ")"),
            )
        )
    if weight is not None and height is not None and height.value > 0:
        kg = to_unit(weight.value, units[limit.weight], "kg")
        metres = to_unit(height.value, units[limit.height], "m")
        bmi = round(kg / metres**2, 1) if metres > 0 else 0.0
        readings.append(
            (
                weight.when,
                bmi,
                (name_and_value(weight), name_and_value(height)),
                f"BMI {fmt(bmi)} kg/m2 computed from {_as_coded(weight)} "
                f"({weight.fact.resource}) and {_as_coded(height)} ({height.fact.resource})",
            )
        )
    if not readings:
        return []
    readings.sort(key=lambda r: r[0])
    deciding = readings[-1]
    symbol = f"≥ {fmt(limit.at_least)} kg/m2"
    if deciding[1] >= limit.at_least:
        return [CodedFinding(gate_id, GateStatus.TRIGGERED, deciding[2], f"{deciding[3]} {symbol}")]
    earlier = [r for r in readings[:-1] if r[1] >= limit.at_least]
    return [
        CodedFinding(
            gate_id,
            GateStatus.NEGATED,
            r[2] + deciding[2],
            f"{r[3]} {symbol}, superseded by {deciding[3]}",
        )
        for r in earlier
    ]


def result_findings(
    gate_id: str,
    entry: ResultCodes,
    facts: Sequence[CodedFact],
    reference: date,
    window: int | None,
) -> list[CodedFinding]:
    """A positive qualitative result (coded value) of the test: the latest result of the
    test decides; a positive older than the rule's window is not recent."""
    matcher = CodeMatcher.of(entry)
    positive = CodeMatcher(entry.positive, ())
    negative = CodeMatcher(entry.negative, ())
    results: list[tuple[date, int, CodedFact, bool]] = []
    for order, fact in enumerate(facts):
        if fact.kind is not FactKind.OBSERVATION:
            continue
        codes = pairs(fact.codes)
        if not matcher.matches(codes, fact.name):
            continue
        if positive.by_code(codes):
            results.append((fact.effective or date.min, order, fact, True))
        elif negative.by_code(codes):
            results.append((fact.effective or date.min, order, fact, False))
    results.sort(key=lambda r: (r[0], r[1]))
    out = []
    for when, _order, fact, is_positive in results:
        if not is_positive:
            continue
        label = f"{fact.name}: positive (coded, {fact.resource}" + (
            f", {when.isoformat()})" if fact.effective else ")"
        )
        later_negative = next((r for r in results if r[0] > when and not r[3]), None)
        if later_negative is not None:
            out.append(
                CodedFinding(
                    gate_id,
                    GateStatus.NEGATED,
                    (fact.span, later_negative[2].span),
                    f"{label}, superseded by a negative result on {later_negative[0].isoformat()}",
                )
            )
            continue
        age = _age(fact.effective, reference)
        if window is not None and age is not None and age > window:
            out.append(
                CodedFinding(
                    gate_id,
                    GateStatus.NEGATED,
                    (fact.span,),
                    f"{label}: {age} days before {reference.isoformat()}, not recent "
                    f"(window {window} days)",
                )
            )
            continue
        out.append(CodedFinding(gate_id, GateStatus.TRIGGERED, (fact.span,), label))
    return out
