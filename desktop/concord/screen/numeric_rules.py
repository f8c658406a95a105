"""Gate rules on values: a threshold crossed (`numeric`) and a rising series (`rising`).

The latest value decides. A value that crosses the threshold is reported negated, with the
later value beside it, when the record shows a clearly later value of the same quantity
under the same condition that does not cross: later in its own series ("6.3 -> 4.8",
"4.9 (was 6.2 on admission)"), dated later, marked as later ("repeat", "today", "after
treatment") in the same document, or in a document dated later. When the order is not
clear the value fires: in doubt, the screen fires.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import date
from functools import cached_property

from concord.domain.gate import GateStatus
from concord.domain.record import DocumentKind
from concord.screen.context import Verdict
from concord.screen.document import ReadDocument
from concord.screen.findings import Finding
from concord.screen.lexicon import Mention
from concord.screen.lexicon_rules import explained, finding
from concord.screen.rules import BareValue, NumericRule, RisingRule
from concord.screen.screening import Screening
from concord.screen.values import QuantitySpec, Rank, Reading, Value, next_number

COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
SYMBOL = {"<": "<", "<=": "≤", ">": ">", ">=": "≥"}
CODED_KIND = DocumentKind.FHIR  # a document rendered from a coded resource
CONDITION_GAP = 20  # characters between a condition word and its value ("hyperkalaemic at 6.4")
_YEAR = re.compile(r"(?:19[5-9]\d|20[0-3]\d)")
CONDITION_REACH = 40  # characters around a value searched for its condition (on oxygen)


class _Observation:
    """One value read for a quantity. What only matters for values that cross a threshold or
    may supersede one (context, target, rank, condition) is read when first asked for."""

    def __init__(
        self,
        s: Screening,
        d: ReadDocument,
        label: Mention,
        reading: Reading,
        index: int,
        fires: bool,
        conditions: frozenset[str],
    ) -> None:
        self.s = s
        self.d = d
        self.label = label
        self.reading = reading
        self.index = index
        self.value = reading.values[index]
        self.fires = fires
        self._conditions = conditions

    @cached_property
    def verdict(self) -> Verdict | None:
        """A relative's, a protocol's or a hypothetical value; or a criterion written with a
        sign and answered no ("Morbid obesity (BMI >= 40): No")."""
        found = self.s.context.value_verdict(self.d, self.label.start, self.label.end)
        if found is None and self.value.qualified:
            found = self.s.context.answered_no(self.d, self.value.end)
        return found

    @cached_property
    def target(self) -> bool:
        return self.s.values.is_target(self.d, self.reading, self.value)

    @cached_property
    def rank(self) -> Rank:
        return self.s.values.rank(self.d, self.reading, self.index)

    @cached_property
    def condition(self) -> frozenset[str]:
        return _condition(self.d, self.label, self.index, self.value, self._conditions)

    @cached_property
    def settled(self) -> str | None:
        """'since normalised' written after it."""
        return _settled(self.s, self.d, self.value)

    @property
    def eligible(self) -> bool:
        """A result of the patient (not a target, not a relative's or a protocol's, not on a
        forged or instruction-like line)."""
        return (
            self.verdict is None
            and not self.target
            and not self.s.injected(self.d, self.value.start, self.value.end)
        )

    @property
    def when(self) -> date | None:
        """The value's own date, else that of its entry or document."""
        return self.value.time or self.d.date_at(self.value.start)

    def sibling(self, index: int) -> _Observation:
        """Another value of the same reading."""
        return _Observation(
            self.s, self.d, self.label, self.reading, index, False, self._conditions
        )


def quantity_spec(rule: NumericRule | RisingRule) -> QuantitySpec:
    """What a rule reads: its quantity, plausible values and scaling of bare numbers."""
    return QuantitySpec(
        concept=rule.concept,
        quantity=rule.quantity,
        plausible=rule.plausible,
        bare_scaling=tuple(_scaling(b) for b in rule.bare_value),
        max_gap=rule.max_gap if isinstance(rule, NumericRule) else 40,
        pair=rule.pair if isinstance(rule, NumericRule) else None,
    )


def _scaling(b: BareValue) -> tuple[str, float, float, float]:
    return (b.when, b.bound, b.factor, b.offset)


def _labels(s: Screening, concept: str) -> list[str]:
    """The quantity's own concept and the conditions whose value is written after them
    ("hyperkalaemic at 6.4")."""
    return [concept, *s.lexicon.valued_by(concept)]


def observations(
    s: Screening,
    concept: str,
    spec: QuantitySpec,
    fires: Callable[[Value], bool],
    conditions: list[str],
) -> list[_Observation]:
    """Every value read for `concept` in the record, each once."""
    allowed = s.lexicon.implied_by(concept)
    measurable = s.lexicon.measurable
    labels = _labels(s, concept)
    label_set = set(labels)

    def is_other(m: Mention) -> bool:
        return bool(m.concepts & measurable) and not (m.concepts & (allowed | label_set))

    out: list[_Observation] = []
    seen: set[tuple[int, int, int]] = set()
    condition_set = frozenset(conditions)
    for d in s.documents:
        anchor = s.clock.anchor(d.index)
        for m in d.of(labels):
            own = concept in m.concepts
            label_spec = spec if own else replace(spec, max_gap=min(spec.max_gap, CONDITION_GAP))
            reading = s.values.read(d, m, label_spec, is_other, anchor)
            if reading is None:
                continue
            for index, value in enumerate(reading.values):
                key = (d.index, value.start, value.end)
                if key in seen:
                    continue
                if not own and _YEAR.fullmatch(d.text, value.start, value.end):
                    continue  # "thrombocytopenia in pregnancy 2019": a date, not a count
                seen.add(key)
                out.append(_Observation(s, d, m, reading, index, fires(value), condition_set))
    return out


def _condition(
    d: ReadDocument, m: Mention, index: int, v: Value, conditions: frozenset[str]
) -> frozenset[str]:
    """The conditions a value was taken under ("on 2 L O2", "on exertion"): written just
    after it (before the next number), or for the first value of a reading, also between
    the start of the sentence and the value."""
    if not conditions:
        return frozenset()
    line_start, line_end = d.line_bounds(m.start)
    following = next_number(d.text, v.end, line_end)
    right = min(line_end, v.end + CONDITION_REACH, following if following is not None else line_end)
    left = v.end if index > 0 else max(line_start, min(m.start, v.start) - CONDITION_REACH)
    cut = d.text.find(";", v.end, right)
    right = cut if cut >= 0 else right  # "SpO2 89% on air; overnight nadir 75%"
    left = max(left, d.text.rfind(";", left, min(m.start, v.start)) + 1)
    found: set[str] = set()
    for other in d.starting_in(left, right):
        found |= other.concepts & conditions
    return frozenset(found)


def _settled(s: Screening, d: ReadDocument, v: Value) -> str | None:
    """A word after the value, in its sentence, that says it has since settled ("since
    normalised", "but it all recovered"); not one negated ("not recovered")."""
    right = min(len(d.text), v.end + SETTLED_REACH)
    sentence_end = d.sentence_bounds(v.start, v.end)[1]
    for m in s.context.cues.settled_after.finditer(d.text, v.end, min(right, sentence_end)):
        if not _NOT_JUST_BEFORE.search(d.text, max(v.end, m.start() - 12), m.start()):
            return " ".join(m.group().split())
    return None


SETTLED_REACH = 80  # characters after a value searched for "since normalised"
_VALUE_AFTER = re.compile(
    r"[ \t]*(?:[:=|\-–(][ \t]*)*(?:(?:of|was|is|now|level)[ \t]+)*[~<>≤≥]?[ \t]*\d"
)


def _valued(s: Screening, concepts: list[str]) -> bool:
    """Whether one of `concepts` is written with a value somewhere in the record ("Hb 121",
    "haemoglobin of 9.8"), not only named ("no Hgb available", "Hb not reported")."""
    return any(_VALUE_AFTER.match(d.text, m.end) for d, m in s.mentions(concepts))


_NOT_JUST_BEFORE = re.compile(r"(?<![A-Za-z])(?:not|never|no|n't|yet\s+to)\s+(?:\w+\s+)?$", re.I)


class _Later:
    """Finds, for a value that crosses the threshold, a clearly later one that does not.

    Candidates are indexed by date and by document; whether a candidate is a result of the
    patient (not a target, a relative's, a protocol's) is only read for those asked about."""

    def __init__(self, observations: list[_Observation]) -> None:
        self._dated: dict[frozenset[str], list[_Observation]] = {}
        self._marked: dict[tuple[int, frozenset[str]], list[_Observation]] = {}
        self._plain: dict[tuple[int, frozenset[str]], list[_Observation]] = {}
        for o in observations:
            if o.fires:
                continue
            if o.when is not None:
                self._dated.setdefault(o.condition, []).append(o)
            doc_key = (o.d.index, o.condition)
            if o.rank is Rank.LATER:
                self._marked.setdefault(doc_key, []).append(o)
            elif o.rank is Rank.PLAIN:
                self._plain.setdefault(doc_key, []).append(o)
        for dated in self._dated.values():
            dated.sort(key=lambda o: o.when or date.min, reverse=True)
        for group in (*self._marked.values(), *self._plain.values()):
            group.sort(key=lambda o: o.value.start, reverse=True)

    def than(self, a: _Observation) -> _Observation | None:
        """A clearly later value that does not cross: dated later, marked later in the same
        document, or (for a value marked earlier) a plain value after it. A rendered coded
        resource (kind "fhir") and free text do not supersede each other: where they
        disagree, `concord.screen.coded.merge_hits` shows both and follows the worse."""
        if a.when is not None:
            for b in self._dated.get(a.condition, ()):
                if b.when is None or b.when <= a.when:
                    break
                if _same_source_kind(a, b) and b.eligible:
                    return b
        doc_key = (a.d.index, a.condition)
        for b in self._marked.get(doc_key, ()):
            if a.rank is Rank.LATER and b.value.start <= a.value.start:
                break
            if not _dated_before(b, a) and b.eligible:
                return b
        if a.rank is Rank.EARLIER:
            for b in self._plain.get(doc_key, ()):
                if b.value.start <= a.value.start:
                    break
                if not _dated_before(b, a) and b.eligible:
                    return b
        return None


def _same_source_kind(a: _Observation, b: _Observation) -> bool:
    return (a.d.doc.kind == CODED_KIND) == (b.d.doc.kind == CODED_KIND)


def _dated_before(b: _Observation, a: _Observation) -> bool:
    return b.value.time is not None and a.value.time is not None and b.value.time < a.value.time


def numeric_findings(gate_id: str, rule: NumericRule, s: Screening, unit: str) -> Iterator[Finding]:
    compare = COMPARE[rule.comparator]
    worst_low = rule.comparator in ("<", "<=")

    def worst(v: Value) -> float:
        return v.low if worst_low else v.high

    def fires(v: Value) -> bool:
        return compare(worst(v), rule.threshold)

    if rule.only_without and _valued(s, rule.only_without):
        return  # e.g. a haematocrit, where the record gives a haemoglobin
    conditions = [*rule.separate_conditions, *rule.masked_by]
    found = observations(s, rule.concept, quantity_spec(rule), fires, conditions)
    later = _Later(found) if rule.latest_decides and any(o.fires for o in found) else None
    near = frozenset(rule.near)
    not_under = frozenset(rule.not_under)
    for o in found:
        if not o.fires or o.target or near and not _near(o, near):
            continue
        d, v = o.d, o.value
        detail = _detail(rule, d, o, unit) + _annotations(rule, s, o)
        start, end = o.label.start, v.end
        if v.start < o.label.start:
            start = v.start
        if o.verdict is not None:
            why = o.verdict.describe(" ".join(d.text[start:end].split()))
            yield finding(gate_id, GateStatus.NEGATED, d, start, end, why, worst(v), unit, o.when)
            continue
        if not_under and _condition(d, o.label, o.index, v, not_under):
            why = f"{detail}: measured under another condition (not_under: asleep, a nadir)"
            yield finding(gate_id, GateStatus.NEGATED, d, start, end, why, worst(v), unit, o.when)
            continue
        if rule.latest_decides and o.settled is not None:
            yield finding(
                gate_id,
                GateStatus.NEGATED,
                d,
                start,
                end,
                f"{detail}, then '{o.settled}'",
                worst(v),
                unit,
                o.when,
            )
            continue
        successor = _successor(later, o, fires) if later is not None else None
        if successor is not None and successor.condition & frozenset(rule.masked_by):
            successor = None  # a normal value under a masking condition proves nothing
        if successor is not None:
            shown = " ".join(successor.d.text[successor.label.start : successor.value.end].split())
            if successor.value.start > successor.label.start + 60 or successor.reading is o.reading:
                shown = successor.value.shown(successor.d.text)
            later_time = successor.value.time
            when = f" ({later_time.isoformat()})" if later_time else ""
            yield finding(
                gate_id,
                GateStatus.NEGATED,
                d,
                start,
                end,
                f"{detail}, superseded by later '{shown}'{when}",
                worst(v),
                unit,
                o.when,
            )
            s_start = min(successor.label.start, successor.value.start)
            if successor.reading is o.reading:
                s_start = successor.value.start
            yield finding(
                gate_id,
                GateStatus.NEGATED,
                successor.d,
                s_start,
                successor.value.end,
                f"later '{shown}' does not cross {SYMBOL[rule.comparator]} "
                f"{_number(rule.threshold)}",
                worst(successor.value),
                unit,
                successor.when,
            )
            continue
        yield finding(gate_id, GateStatus.TRIGGERED, d, start, end, detail, worst(v), unit, o.when)


def _near(o: _Observation, concepts: frozenset[str]) -> bool:
    """Whether one of `concepts` is named in the value's sentence ("AF, rate 130")."""
    left, right = o.d.sentence_bounds(min(o.label.start, o.value.start), o.value.end)
    return any(m.concepts & concepts for m in o.d.starting_in(left, right))


def _successor(
    later: _Later, o: _Observation, fires: Callable[[Value], bool]
) -> _Observation | None:
    if o.reading.ordered:
        for index in range(o.index + 1, len(o.reading.values)):
            v = o.reading.values[index]
            sibling = o.sibling(index)
            if sibling.target or sibling.condition != o.condition:
                continue
            if fires(v):
                return None  # a later value in the same series crosses too
            return sibling
    found = later.than(o)
    return found if found is not None and not fires(found.value) else None


def _detail(rule: NumericRule, d: ReadDocument, o: _Observation, unit: str) -> str:
    v = o.value
    written = v.shown(d.text)
    term = " ".join(d.text[o.label.start : o.label.end].split())
    worst = v.low if rule.comparator in ("<", "<=") else v.high
    worst = round(worst, 1) if math.isfinite(worst) else worst
    shown = "" if math.isinf(worst) or f"{worst:g}" in written else f" (= {worst:g} {unit})"
    spacer = " " if unit not in ("", "%") else ""
    return (
        f"{term} {written}{shown} {SYMBOL[rule.comparator]} {_number(rule.threshold)}{spacer}{unit}"
    ).replace("  ", " ")


def _annotations(rule: NumericRule, s: Screening, o: _Observation) -> str:
    """Notes on the value's own conditions ("on supplemental oxygen", "on room air")."""
    if not rule.annotate_if:
        return ""
    found = _condition(o.d, o.label, o.index, o.value, frozenset(rule.annotate_if))
    notes = [note for cid, note in rule.annotate_if.items() if cid in found]
    return f" ({'; '.join(notes)})" if notes else ""


def _number(value: float) -> str:
    """6.0 -> "6.0", 1.5 -> "1.5", 100.0 -> "100": thresholds as a clinician writes them."""
    if value == int(value) and abs(value) < 10:
        return f"{value:.1f}"
    return f"{value:g}"


def rising_findings(gate_id: str, rule: RisingRule, s: Screening) -> Iterator[Finding]:
    spec = quantity_spec(rule)
    found = observations(s, rule.concept, spec, lambda v: False, [])
    by_reading: dict[int, list[_Observation]] = {}
    for o in found:
        if o.eligible:
            by_reading.setdefault(id(o.reading), []).append(o)
    results: list[tuple[_Observation, _Observation, float, float]] = []
    for group in by_reading.values():
        group.sort(key=lambda o: o.index)
        first = group[0]
        if len(group) < 2 or not first.reading.ordered:
            continue
        rise = _rise([o.value for o in group], rule)
        if rise is not None:
            start_index, peak_index = rise
            results.append(
                (
                    group[start_index],
                    group[peak_index],
                    group[start_index].value.high,
                    group[peak_index].value.high,
                )
            )
    dated = sorted(
        (o for o in found if o.eligible and o.value.time is not None),
        key=lambda o: (o.value.time or date.min, o.value.hours or 0.0),
    )
    lowest: _Observation | None = None
    for o in dated:
        if lowest is not None and _taken_at(o) > _taken_at(lowest):
            ratio = o.value.high / lowest.value.high if lowest.value.high > 0 else 0.0
            if (
                ratio >= rule.min_ratio
                and o.value.high > rule.min_peak
                and lowest.reading is not o.reading
            ):
                results.append((lowest, o, lowest.value.high, o.value.high))
                break
        if lowest is None or o.value.high < lowest.value.high:
            lowest = o
    for first, peak, low, high in results:
        d = peak.d
        start = min(first.label.start, first.value.start) if first.d is d else peak.label.start
        end = peak.value.end
        series = " ".join(d.text[start:end].split())
        detail = f"{series}: rising ({low:g} -> {high:g})"
        treated = s.context.treated_after(d, end, frozenset(rule.treated_by), s.clock.reference)
        if treated is not None:
            yield finding(gate_id, GateStatus.NEGATED, d, start, end, f"{detail}, {treated}")
            continue
        if rule.explained_by is not None:
            why = explained(s, d, peak.label, rule.explained_by)
            if why is not None:
                yield finding(
                    gate_id,
                    GateStatus.NEGATED,
                    d,
                    start,
                    end,
                    f"{detail}, {why}",
                    high,
                    time=peak.when,
                )
                continue
        yield finding(gate_id, GateStatus.TRIGGERED, d, start, end, detail, high, time=peak.when)


def _taken_at(o: _Observation) -> tuple[date, float]:
    """When a dated value was taken: its day, then its hour where a table row gives one."""
    return (o.value.time or date.min, o.value.hours or 0.0)


def _rise(values: list[Value], rule: RisingRule) -> tuple[int, int] | None:
    """(index of the first value, index of the peak after it) when the series rises enough."""
    first = values[0].high
    if not math.isfinite(first) or first < 0:
        return None
    peak_index = max(range(1, len(values)), key=lambda i: values[i].high)
    peak = values[peak_index].high
    if first == 0:
        return (0, peak_index) if peak > rule.min_peak and peak > 0 else None
    if peak / first >= rule.min_ratio and peak > rule.min_peak:
        return 0, peak_index
    return None
