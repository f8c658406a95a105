"""The record screen: deterministic quality gates evaluated on the patient record itself.

This is Concord's answer to mutual omission: whatever the agents write, a gate the record
triggers is found here, by code, with the spans that fired it.

How a gate reaches its status:

* Each rule (see `screen_rules`) yields findings, each a span and a detail, either
  ``triggered`` or ``negated`` (negated, hypothetical or resolved-history mentions, and lab
  values superseded by a normal repeat).
* A gate with any triggered finding is ``triggered`` (evidence: those spans); else one with
  negated findings is ``negated`` (evidence: those spans); else it is not reported.
* Labs: every value that crosses the threshold fires, wherever it is, except when a later
  value of the same test in the same document is explicitly a repeat ("repeat K+ 4.1",
  "rechecked", "post-treatment") and does not cross it; the earlier value is then reported
  as negated with both spans. Dates are not compared: without an explicit repeat the
  screen fires (when in doubt, fire).
* Reference date for recency: the planned surgery date stated in the record, else the
  document's own date, else today (UTC).
"""

from __future__ import annotations

import math
import operator
import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from concord import paths
from concord.domain.gate import GateHit, GateStatus
from concord.domain.record import Record, SourceDocument, SpanText
from concord.errors import InputError
from concord.screen.context import (
    historical_cue,
    masked,
    negation_cue_after,
    negation_cue_before,
    sentence_bounds,
)
from concord.screen.dates import document_date, surgery_date, times_in
from concord.screen.lexicon import Lexicon, Mention
from concord.screen.rules import (
    GateDefinition,
    GateFile,
    LexiconRule,
    NumericRule,
    RisingRule,
    StentRule,
    definition_of,
    read_gate_file,
)
from concord.screen.units import Reading, UnitTable, next_number

MAX_EVIDENCE_SPANS = 8
MAX_VALUE_CANDIDATES = 3  # numbers tried after a mention ("SpO2 on 2L O2 89%")
REPEAT_LOOKBACK = 25  # characters before a mention searched for "repeat"

_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_SYMBOL = {"<": "<", "<=": "≤", ">": ">", ">=": "≥"}
_SENTENCE_BREAK_RE = re.compile(r"[.;!?](?:\s|$)|\n")
_REPEAT_RE = re.compile(
    r"(?<![A-Za-z])(?:repeat(?:ed)?|re-?check(?:ed)?|re-?tested|follow[\s-]?up|"
    r"post[\s-]?treatment|after\s+treatment|latest|now)(?![A-Za-z])[^\n]*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Finding:
    status: GateStatus
    source_id: str
    start: int
    end: int
    detail: str


@dataclass
class _Document:
    """One document prepared for screening: mentions indexed by concept, masked text."""

    doc: SourceDocument
    mentions: list[Mention]
    reference: date  # surgery date, else this document's date, else today
    anchor: date  # what "6 weeks ago" counts back from
    by_concept: dict[str, list[Mention]] = field(default_factory=dict)
    by_start: list[Mention] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        index: dict[str, list[Mention]] = defaultdict(list)
        for mention in self.mentions:
            for cid in mention.concepts:
                index[cid].append(mention)
        self.by_concept = dict(index)
        self.by_start = sorted(self.mentions, key=lambda m: m.start)
        self.starts = [m.start for m in self.by_start]

    def starting_in(self, start: int, end: int) -> list[Mention]:
        """Mentions whose start lies in [start, end), by bisection (records can be large)."""
        return self.by_start[bisect_left(self.starts, start) : bisect_left(self.starts, end)]

    @property
    def text(self) -> str:
        return self.doc.text

    @cached_property
    def masked(self) -> str:
        return masked(self.doc.text)

    def of(self, concepts: Iterable[str]) -> list[Mention]:
        seen: dict[tuple[int, int], Mention] = {}
        for cid in concepts:
            for mention in self.by_concept.get(cid, ()):
                seen.setdefault((mention.start, mention.end), mention)
        return [seen[key] for key in sorted(seen)]


class RecordScreen:
    """The loaded gates with their lexicon and units. Build with `RecordScreen.load`."""

    def __init__(self, gates: list[GateFile], lexicon: Lexicon, units: UnitTable) -> None:
        self.lexicon = lexicon
        self.units = units
        self._gates = sorted(gates, key=lambda g: (g.order, g.gate_id))
        self._measurable = frozenset(
            cid for cid, concept in lexicon.concepts.items() if concept.measurable
        )
        self._skip_res = {
            id(rule): re.compile(
                r"(?<![A-Za-z])(?:"
                + "|".join(re.escape(w) for w in rule.skip_if_preceded_by)
                + r")(?![A-Za-z])",
                re.IGNORECASE,
            )
            for gate in self._gates
            for rule in gate.rules
            if isinstance(rule, NumericRule) and rule.skip_if_preceded_by
        }
        self._definitions = {g.gate_id: definition_of(g, lexicon) for g in self._gates}

    @classmethod
    def load(cls, resources: Path | None = None) -> RecordScreen:
        """Gates from `<resources>/gates`, lexicon and units from `<resources>/lexicon`."""
        root = resources or paths.resources_dir()
        lexicon = Lexicon.load(root / "lexicon")
        units = UnitTable.load(root / "lexicon" / "units.json")
        gate_dir = root / "gates"
        files = sorted(gate_dir.glob("*.json")) if gate_dir.is_dir() else []
        if not files:
            raise InputError("no gate files found", subject=gate_dir)
        gates: list[GateFile] = []
        seen: dict[str, Path] = {}
        for path in files:
            gate = read_gate_file(path, lexicon, units)
            if gate.gate_id in seen:
                raise InputError(
                    f"gate {gate.gate_id} already defined in {seen[gate.gate_id].name}",
                    subject=path,
                )
            seen[gate.gate_id] = path
            gates.append(gate)
        return cls(gates, lexicon, units)

    @property
    def definitions(self) -> dict[str, GateDefinition]:
        return dict(self._definitions)

    # -- screening ------------------------------------------------------------------------

    def screen(self, record: Record, *, today: date | None = None) -> tuple[GateHit, ...]:
        """Every gate the record triggers or mentions negated, in gate order."""
        today = today or datetime.now(UTC).date()
        surgery = surgery_date([d.text for d in record.documents])
        documents = []
        for doc in record.documents:
            written = document_date(doc.text)
            documents.append(
                _Document(
                    doc=doc,
                    mentions=self.lexicon.mentions(doc.text),
                    reference=surgery or written or today,
                    anchor=written or surgery or today,
                )
            )
        hits = []
        for gate in self._gates:
            findings: list[_Finding] = []
            for rule in gate.rules:
                findings.extend(self._apply(rule, documents))
            hit = self._hit(gate, findings, record)
            if hit is not None:
                hits.append(hit)
        return tuple(hits)

    def _apply(
        self, rule: LexiconRule | NumericRule | RisingRule | StentRule, docs: list[_Document]
    ) -> list[_Finding]:
        if isinstance(rule, LexiconRule):
            return [f for d in docs for f in self._lexicon_rule(rule, d)]
        if isinstance(rule, NumericRule):
            return [f for d in docs for f in self._numeric_rule(rule, d)]
        if isinstance(rule, RisingRule):
            return [f for d in docs for f in self._rising_rule(rule, d)]
        return self._stent_rule(rule, docs)

    def _hit(self, gate: GateFile, findings: list[_Finding], record: Record) -> GateHit | None:
        if not findings:
            return None
        triggered = [f for f in findings if f.status is GateStatus.TRIGGERED]
        chosen = triggered or findings
        status = GateStatus.TRIGGERED if triggered else GateStatus.NEGATED
        spans: dict[tuple[str, int, int], SpanText] = {}
        order = {d.source_id: i for i, d in enumerate(record.documents)}
        for f in sorted(chosen, key=lambda f: (order[f.source_id], f.start, f.end)):
            key = (f.source_id, f.start, f.end)
            if key not in spans and len(spans) < MAX_EVIDENCE_SPANS:
                text = record.document(f.source_id).text[f.start : f.end]
                spans[key] = SpanText(source_id=f.source_id, start=f.start, end=f.end, text=text)
        details = list(dict.fromkeys(f.detail for f in chosen))
        detail = details[0] + (f" (+{len(details) - 1} more)" if len(details) > 1 else "")
        return GateHit(
            gate_id=gate.gate_id,
            title=gate.title,
            severity=gate.severity,
            status=status,
            specialty=gate.specialty,
            evidence=tuple(spans.values()),
            detail=detail,
        )

    # -- rule types -----------------------------------------------------------------------

    def _lexicon_rule(self, rule: LexiconRule, d: _Document) -> Iterable[_Finding]:
        text, sid = d.text, d.doc.source_id
        for m in d.of(rule.concepts):
            term = text[m.start : m.end]
            cue = negation_cue_before(text, m.start) or negation_cue_after(text, m.end)
            if cue is not None:
                yield _Finding(
                    GateStatus.NEGATED, sid, m.start, m.end, f"'{term}' negated by '{cue}'"
                )
                continue
            if rule.historical_resolves:
                history = historical_cue(text, m.start, m.end, d.reference)
                if history is not None:
                    yield _Finding(
                        GateStatus.NEGATED, sid, m.start, m.end, f"'{term}' is history ({history})"
                    )
                    continue
            if rule.fires:
                yield _Finding(GateStatus.TRIGGERED, sid, m.start, m.end, f"'{term}' in record")

    def _reading_after(self, rule: NumericRule, d: _Document, m: Mention) -> Reading | None:
        text, plain = d.masked, d.text
        line_end = plain.find("\n", m.end)
        line_end = len(plain) if line_end < 0 else line_end
        line_start = plain.rfind("\n", 0, m.start) + 1
        skip_re = self._skip_res.get(id(rule))
        if skip_re is not None and skip_re.search(plain, max(line_start, m.start - 25), m.start):
            return None
        allowed = self.lexicon.implied_by(rule.concept)
        pos = m.end
        limit = min(line_end, m.end + rule.max_gap + 1)
        for _ in range(MAX_VALUE_CANDIDATES):
            number = next_number(text, pos, limit)
            if number is None:
                return None
            gap = text[m.end : number.start()]
            if _SENTENCE_BREAK_RE.search(gap) or (skip_re is not None and skip_re.search(gap)):
                return None
            if any(
                not (other.concepts & allowed) and other.concepts & self._measurable
                for other in d.starting_in(m.end, number.start())
            ):
                return None
            quantity = rule.quantity
            bare = rule.bare_large_value
            reading = self.units.read(
                text,
                number.start(),
                quantity=quantity,
                bare_large=(bare.at_least, bare.factor) if bare else None,
                gap_before=gap,
            )
            lo, hi = rule.plausible
            if reading is not None and all(
                math.isinf(v) or lo <= v <= hi for v in (reading.low, reading.high)
            ):
                return reading
            pos = number.end()
        return None

    def _numeric_rule(self, rule: NumericRule, d: _Document) -> Iterable[_Finding]:
        compare = _COMPARE[rule.comparator]
        worst_low = rule.comparator in ("<", "<=")
        canonical = self.units.canonical.get(rule.quantity, "") if rule.quantity else ""
        results: list[tuple[Mention, Reading, bool, bool]] = []
        for m in d.of([rule.concept]):
            reading = self._reading_after(rule, d, m)
            if reading is None:
                continue
            worst = reading.low if worst_low else reading.high
            line_start = d.text.rfind("\n", 0, m.start) + 1
            before = d.text[max(line_start, m.start - REPEAT_LOOKBACK) : m.start]
            results.append(
                (m, reading, compare(worst, rule.threshold), bool(_REPEAT_RE.search(before)))
            )
        for index, (m, reading, fires, _) in enumerate(results):
            if not fires:
                continue
            written = " ".join(d.text[reading.start : reading.end].split())
            term = d.text[m.start : m.end]
            worst = reading.low if worst_low else reading.high
            shown = (
                ""
                if math.isinf(worst) or f"{worst:g}" in written
                else f" (= {worst:g} {canonical})"
            )
            detail = (
                f"{term} {written}{shown} {_SYMBOL[rule.comparator]} "
                f"{_number(rule.threshold)}{' ' if canonical not in ('', '%') else ''}{canonical}"
            )
            detail += self._annotations(rule, d, m.start, reading.end)
            later = (
                [r for r in results[index + 1 :] if r[3] and not r[2]]
                if rule.repeat_supersedes
                else []
            )
            if later:
                repeat_m, repeat_r = later[-1][0], later[-1][1]
                repeat_text = " ".join(d.text[repeat_m.start : repeat_r.end].split())
                yield _Finding(
                    GateStatus.NEGATED,
                    d.doc.source_id,
                    m.start,
                    reading.end,
                    f"{detail}, superseded by repeat '{repeat_text}'",
                )
                yield _Finding(
                    GateStatus.NEGATED,
                    d.doc.source_id,
                    repeat_m.start,
                    repeat_r.end,
                    f"repeat '{repeat_text}' below threshold",
                )
                continue
            yield _Finding(GateStatus.TRIGGERED, d.doc.source_id, m.start, reading.end, detail)

    def _annotations(self, rule: NumericRule, d: _Document, start: int, end: int) -> str:
        if not rule.annotate_if:
            return ""
        left, right = sentence_bounds(d.text, start, end, reach=80)
        notes = [
            note
            for cid, note in rule.annotate_if.items()
            if any(left <= m.start < right for m in d.by_concept.get(cid, ()))
        ]
        return f" ({'; '.join(notes)})" if notes else ""

    def _rising_rule(self, rule: RisingRule, d: _Document) -> Iterable[_Finding]:
        text = d.masked
        allowed = self.lexicon.implied_by(rule.concept)
        for m in d.of([rule.concept]):
            left, right = sentence_bounds(text, m.start, m.end, reach=100)
            stop = right
            for other in d.mentions:
                if (
                    m.end <= other.start < stop
                    and other.concepts & self._measurable
                    and not (other.concepts & allowed)
                ):
                    stop = other.start
            values: list[tuple[float, int]] = []
            pos = m.end
            while len(values) < 6:
                number = next_number(text, pos, stop)
                if number is None:
                    break
                value = float(number.group("a").replace(",", ""))
                unit, unit_end = self.units.unit_at(text, number.end())
                is_time = unit is not None and unit.form in _TIME_UNITS
                if not is_time and rule.plausible[0] <= value <= rule.plausible[1]:
                    values.append((value, number.end() if unit is None else unit_end))
                pos = number.end()
            if len(values) < 2 or values[0][0] <= 0:
                continue
            peak = max(v for v, _ in values[1:])
            if peak / values[0][0] >= rule.min_ratio:
                end = max(e for v, e in values if v == peak)
                series = " ".join(d.text[m.start : end].split())
                yield _Finding(
                    GateStatus.TRIGGERED,
                    d.doc.source_id,
                    m.start,
                    end,
                    f"{series}: rising ({values[0][0]:g} -> {peak:g})",
                )

    def _stent_rule(self, rule: StentRule, docs: list[_Document]) -> list[_Finding]:
        dated: list[_Finding] = []
        undated: list[_Finding] = []
        negated: list[_Finding] = []
        any_dated = False
        for d in docs:
            text, sid = d.text, d.doc.source_id
            for m in d.of([rule.any_concept]):
                term = text[m.start : m.end]
                cue = negation_cue_before(text, m.start) or negation_cue_after(text, m.end)
                if cue is not None:
                    negated.append(
                        _Finding(
                            GateStatus.NEGATED, sid, m.start, m.end, f"'{term}' negated by '{cue}'"
                        )
                    )
                    continue
                left, right = sentence_bounds(text, m.start, m.end, reach=120)
                kind = self._stent_kind(rule, d, m, left, right)
                if kind is None:
                    continue  # a generic "PCI" beside a typed stent: the typed mention decides
                limit = rule.des_days if kind == "drug-eluting" else rule.bms_days
                times = times_in(text, left, right)
                if not times:
                    if rule.des_concept in m.concepts or rule.bms_concept in m.concepts:
                        undated.append(
                            _Finding(
                                GateStatus.TRIGGERED,
                                sid,
                                m.start,
                                m.end,
                                f"{kind} stent '{term}' with no date: treated as recent",
                            )
                        )
                    continue
                any_dated = True
                when = min(times, key=lambda t: _distance(t.start, t.end, m.start, m.end))
                _, latest = when.interval(d.anchor)
                days = (d.reference - latest).days
                span_start, span_end = min(m.start, when.start), max(m.end, when.end)
                written = text[when.start : when.end]
                if days < limit:
                    dated.append(
                        _Finding(
                            GateStatus.TRIGGERED,
                            sid,
                            span_start,
                            span_end,
                            f"{kind} stent '{term}' {written}: {days} days before "
                            f"{d.reference.isoformat()} < {limit} days",
                        )
                    )
        return dated + ([] if any_dated else undated) + negated

    def _stent_kind(
        self, rule: StentRule, d: _Document, m: Mention, left: int, right: int
    ) -> str | None:
        if rule.bms_concept in m.concepts:
            return "bare-metal"
        if rule.des_concept in m.concepts:
            return "drug-eluting"
        typed = [
            other
            for other in d.of([rule.des_concept, rule.bms_concept])
            if left <= other.start < right
        ]
        return None if typed else "drug-eluting"


def _number(value: float) -> str:
    """6.0 -> "6.0", 1.5 -> "1.5", 100.0 -> "100": thresholds as a clinician writes them."""
    if value == int(value) and abs(value) < 10:
        return f"{value:.1f}"
    return f"{value:g}"


_TIME_UNITS = frozenset(
    {"h", "hr", "hrs", "hour", "hours", "min", "mins", "minutes", "days", "day", "d", "am", "pm"}
)


def _distance(a_start: int, a_end: int, b_start: int, b_end: int) -> int:
    if a_start >= b_end:
        return a_start - b_end  # the time is after the mention: wins a tie
    if b_start >= a_end:
        return b_start - a_end + 1
    return 0


def screen_to_json(path_str: str, hits: Iterable[GateHit]) -> dict[str, Any]:
    """One record's entry in `concord screen --json`: {"path", "gates": [...]}."""
    return {
        "path": path_str,
        "gates": [
            {
                "gate_id": hit.gate_id,
                "severity": hit.severity.value,
                "status": hit.status.value,
                "title": hit.title,
                "specialty": hit.specialty,
                "detail": hit.detail,
                "evidence": [
                    {"source_id": s.source_id, "start": s.start, "end": s.end, "text": s.text}
                    for s in hit.evidence
                ],
            }
            for hit in hits
        ],
    }
