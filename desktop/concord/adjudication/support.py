"""Does a bullet's cited evidence carry what the bullet asserts? Which red flags does it
address? Both decided by code, once per brief, before the adjudication counts anything.

A quote that code found in the record ("the quote is the record's text") says nothing about
whether the bullet citing it is right: "K+ >= 6.0 mmol/L" citing the letterhead, or citing a
line that says K+ 4.1, is a verified quote under an unsupported claim. A bullet is
**supported** when its verified cited evidence carries

* **its values**: every number it states as a measurement (the first number after a
  measurable concept, "K+ 6.3", "LVEF of 30-35%", or one in a unit of measurement, "6.3
  mmol/L"; never a date) is in the evidence, as a value of that concept where it names one,
  in the same unit (or one side gives none);
* **its comparisons**: a comparison it asserts ("K+ >= 6.0") holds for a value of that
  concept in the evidence. A number in a plan's clause ("delay if K+ >= 6.0", "target SpO2
  > 92%", "transfuse if Hb falls by 20") is a threshold, not a finding: only the bullet's
  concept must be in the evidence;
* **its concepts**: at least one clinical concept it names (read with the screen's lexicon;
  a condition counts as the quantity it is a value of: hyperkalaemia as potassium) is named
  in the evidence, or the evidence is the finding of a gate the bullet tags or names.

A bullet that names no concept and no value ("L1: L1: L1:") asserts nothing its evidence can
carry: it is not supported. A bullet **addresses** a triggered gate when it is supported,
its words name the gate (its address terms: a tag alone is the agent's claim, not the
bullet's words) and one of its verified quotes is that gate's own finding: it overlaps a span
the screen fired on, or the gate's rule fires on the quoted text. The scorecard, the
mutual-omission check, `concord show`, the app and the PDF all read the verdicts stored on
the bullets (`BriefItem.supported`, `.addresses`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from concord.adjudication.gates import GateRule, addressing_items, item_contradicts, triggered
from concord.domain import Brief, BriefItem, GateHit, Record
from concord.evidence.numbers import QuantityAt, canonical, is_unit, quantities_at

ATTACH_MAX_WORDS = 4
"""A number belongs to the measurable concept before it when at most this many words stand
between them ("potassium was 6.3", "ejection fraction of 30%")."""
VALUE_WINDOW_CHARS = 60
"""How far after a concept, on its line, its value is looked for in the evidence."""
MEASUREMENT_UNITS = frozenset({"%", "mmhg", "cm^2", "m^2", "kpa", "bpm", "fl", "cmh2o", "m/s"})
"""Units that make a number a measurement even with no concept before it (any unit with a
'/' is one too: mmol/l, x10^9/l, ml/min/1.73m^2)."""
CONDITIONAL_WORDS = (
    "if",
    "when",
    "whenever",
    "unless",
    "until",
    "should",
    "target",
    "aim",
    "keep",
    "maintain",
    "threshold",
    "trigger",
)
"""Words that make a comparison a plan's threshold rather than a finding."""
_CONDITIONAL = re.compile(r"\b(?:" + "|".join(CONDITIONAL_WORDS) + r")\b", re.IGNORECASE)
_COMPARATORS = (
    (r"(?:>=|=>|≥|at least|not less than)", ">="),
    (r"(?:<=|=<|≤|at most|not more than)", "<="),
    (r"(?:>|above|over|greater than|more than|higher than|exceeding)", ">"),
    (r"(?:<|below|under|less than|lower than)", "<"),
)
_COMPARATOR_BEFORE = [
    (re.compile(rf"{pattern}\s*(?:of\s*)?$", re.IGNORECASE), op) for pattern, op in _COMPARATORS
]
_OP_TEXT = {">=": "≥", "<=": "≤", ">": ">", "<": "<"}
_FLAG_UNITS = frozenset({"h", "l", "hh", "ll"})
_CLAUSE_END = re.compile(r"[;,]|\.(?!\d)")
_RANGE_GAP = re.compile(r"\s*(?:-|–|to)\s*")
_DATES = re.compile(
    r"(?<![\w/.])(?:\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{4})(?![\w/])"
)
"""Dates are not values: 10/2026, 06/11/2026, 2026-11-27."""
"""A lab flag ("6.3  H  mmol/L") reads like a unit; the unit is the word after it."""
_WORD = re.compile(r"[A-Za-z0-9]+")

NOT_SUPPORTED = "quote found — does not support this claim"
"""What the clinician sees beside a bullet whose verified quotes do not carry it."""


class ConceptInfo(Protocol):
    @property
    def label(self) -> str: ...

    @property
    def value_of(self) -> str | None: ...


class MentionInfo(Protocol):
    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...

    @property
    def concepts(self) -> frozenset[str]: ...


class ConceptReader(Protocol):
    """The screen's lexicon, as the support check reads it."""

    @property
    def concepts(self) -> Mapping[str, ConceptInfo]: ...

    @property
    def measurable(self) -> frozenset[str]: ...

    def mentions(self, text: str) -> Sequence[MentionInfo]: ...

    def concepts_in(self, text: str) -> frozenset[str]: ...


GatesFiringOn = Callable[[str], Mapping[str, tuple[str, ...]]]
"""The record screen run on a text: gate id -> the texts it fired on, for each gate it
triggers there."""


@dataclass(frozen=True)
class ClaimVerdict:
    supported: bool
    reason: str
    addresses: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Value:
    concept: str | None
    quantity: QuantityAt


@dataclass(frozen=True)
class _Claim:
    """A number the bullet states: its concept (None: none before it), comparison (None:
    a plain value), and whether it is a plan's threshold (in a clause that begins with a
    conditional word: "delay if K+ >= 6.0", "transfuse if Hb falls by 20")."""

    concept: str | None
    quantity: QuantityAt
    op: str | None
    threshold: bool


def _units_agree(a: str, b: str) -> bool:
    return not a or not b or a == b


def _compare(value: Decimal, op: str, bound: Decimal) -> bool:
    return {
        ">=": value >= bound,
        "<=": value <= bound,
        ">": value > bound,
        "<": value < bound,
    }[op]


def _is_measurement_unit(unit: str) -> bool:
    return "/" in unit or unit in MEASUREMENT_UNITS


def _quantity_text(q: QuantityAt) -> str:
    return f"{q.number} {q.unit}".strip()


def _clause_end(text: str, start: int) -> int:
    """Where the clause that runs from `start` ends (";", ".", "," or the end)."""
    found = _CLAUSE_END.search(text, start)
    return found.start() if found else len(text)


def _without_dates(text: str) -> str:
    """The text with each date blanked out (same length: offsets stay)."""
    return _DATES.sub(lambda m: " " * len(m.group()), text)


def _with_flag_skipped(text: str, quantities: tuple[QuantityAt, ...]) -> list[QuantityAt]:
    """A lab flag after a value is not its unit: the unit is the word after the flag."""
    out = []
    for q in quantities:
        if q.unit in _FLAG_UNITS:
            after = re.match(r"\s*\S+\s+(\S+)", text[q.start + len(q.number) :])
            unit = canonical(after.group(1)) if after else ""
            if after and is_unit(unit):
                q = QuantityAt(q.number, unit.replace(" ", ""), q.start, q.end)
            else:
                q = QuantityAt(q.number, "", q.start, q.end)
        out.append(q)
    return out


class ClaimChecker:
    """Checks the bullets of the briefs of one record against their cited evidence."""

    def __init__(
        self,
        record: Record,
        gates: Sequence[GateHit],
        *,
        lexicon: ConceptReader,
        rules: Mapping[str, GateRule],
        fires_on: GatesFiringOn | None = None,
    ) -> None:
        self.record = record
        self.gates = triggered(gates)
        self.lexicon = lexicon
        self.rules = rules
        self._fires_on = fires_on
        self._fired: dict[str, Mapping[str, tuple[str, ...]]] = {}

    # -- the one entry point ---------------------------------------------------------------

    def annotate(self, brief: Brief) -> Brief:
        """The brief with each bullet's verdict stored on it."""
        items = tuple(self._annotated(brief, item) for item in brief.items)
        return brief.model_copy(update={"items": items})

    def _annotated(self, brief: Brief, item: BriefItem) -> BriefItem:
        verdict = self.check(brief, item)
        return item.model_copy(
            update={
                "supported": verdict.supported,
                "support_reason": verdict.reason,
                "addresses": verdict.addresses,
            }
        )

    def check(self, brief: Brief, item: BriefItem) -> ClaimVerdict:
        quotes = self._quotes(brief, item)
        if not item.cites:
            return ClaimVerdict(False, "cites no evidence")
        if not quotes:
            return ClaimVerdict(False, "none of its quotes is the record's text")
        supported, reason = self._supported(item, quotes)
        if not supported:
            return ClaimVerdict(False, reason)
        addresses = tuple(g.gate_id for g in self.gates if self._addresses(item, g, quotes))
        return ClaimVerdict(True, reason, addresses)

    def _addresses(
        self, item: BriefItem, gate: GateHit, quotes: Sequence[tuple[str, int, int, str]]
    ) -> bool:
        """It names the gate and cites the gate's finding; a gate named only by a quantity
        ("K+ level" for renal impairment) is addressed only when the finding is a value of
        that quantity (the same line may hold a renal finding and a potassium one)."""
        if not self._names(item, gate):
            return False
        found = self._finding(gate, quotes)
        if not found:
            return False
        named = self._naming_concepts(item, gate)
        if named is None or not named <= self.lexicon.measurable:
            return True  # named by a phrase, or by a condition or treatment of its own
        in_finding = self._widened(frozenset().union(*(self.lexicon.concepts_in(t) for t in found)))
        return bool(named & in_finding)

    def _naming_concepts(self, item: BriefItem, gate: GateHit) -> frozenset[str] | None:
        """The gate's address concepts the bullet uses; None when a phrase names it."""
        rule = self.rules.get(gate.gate_id)
        terms = frozenset(getattr(rule, "address_terms", ()))
        said = self._widened(self.lexicon.concepts_in(item.text)) & terms
        if not said:
            return None
        return said

    # -- evidence ----------------------------------------------------------------------------

    def _quotes(self, brief: Brief, item: BriefItem) -> list[tuple[str, int, int, str]]:
        """(source_id, start, end, record text) of each verified quote the bullet cites."""
        by_id = brief.evidence_by_id()
        out = []
        for cite in item.cites:
            ev = by_id.get(cite)
            if ev is None or not ev.alignment.verified:
                continue
            a = ev.alignment
            if a.source_id is None or a.start is None or a.end is None:
                continue
            try:
                span = self.record.span_text(a.source_id, a.start, a.end)
            except (KeyError, ValueError):
                continue
            out.append((span.source_id, span.start, span.end, span.text))
        return out

    def _finding(self, gate: GateHit, quotes: Iterable[tuple[str, int, int, str]]) -> list[str]:
        """The gate's finding in the quotes: the spans it fired on that a quote overlaps,
        and what its rule fires on in a quote read by itself ([]: none)."""
        found: list[str] = []
        for source_id, start, end, text in quotes:
            found += [
                span.text
                for span in gate.evidence
                if span.source_id == source_id and span.start < end and start < span.end
            ]
            found += list(self._gates_firing(text).get(gate.gate_id, ()))
        return found

    def _is_finding(self, gate: GateHit, quotes: Iterable[tuple[str, int, int, str]]) -> bool:
        return bool(self._finding(gate, quotes))

    def _gates_firing(self, text: str) -> Mapping[str, tuple[str, ...]]:
        if self._fires_on is None:
            return {}
        if text not in self._fired:
            self._fired[text] = self._fires_on(text)
        return self._fired[text]

    def _names(self, item: BriefItem, gate: GateHit) -> bool:
        rule = self.rules.get(gate.gate_id)
        return (
            rule is not None and rule.addressed_by(item.text) and not item_contradicts(item, rule)
        )

    # -- concepts --------------------------------------------------------------------------

    def _label(self, concept: str) -> str:
        info = self.lexicon.concepts.get(concept)
        return info.label if info is not None and info.label else concept.replace("_", " ")

    def _widened(self, concepts: frozenset[str]) -> frozenset[str]:
        """A condition counts as the quantity it is a value of (hyperkalaemia: potassium)."""
        out = set(concepts)
        for c in concepts:
            info = self.lexicon.concepts.get(c)
            if info is not None and info.value_of:
                out.add(info.value_of)
        return frozenset(out)

    # -- values ----------------------------------------------------------------------------

    def _anchors(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, quantity) of each mention of a measurable concept in `text`; a
        condition stands for the quantity it is a value of ("hyperkalaemic at 6.4")."""
        out = []
        for m in self.lexicon.mentions(text):
            measured = sorted(self._widened(m.concepts) & self.lexicon.measurable)
            if measured:
                out.append((m.start, m.end, measured[0]))
        return out

    def _claims(self, text: str) -> list[_Claim]:
        """The numbers the bullet states, each with the measurable concept it follows: the
        first number after the concept (and the other end of a range) is its value; a later
        one is not, nor is a date."""
        text = _without_dates(text)
        plans = [(m.start(), _clause_end(text, m.end())) for m in _CONDITIONAL.finditer(text)]
        cuts: list[tuple[int, int, str | None]] = [(0, 0, None), *self._anchors(text)]
        claims: list[_Claim] = []
        for n, (_, end, concept) in enumerate(cuts):
            stop = cuts[n + 1][0] if n + 1 < len(cuts) else len(text)
            segment = text[end:stop]
            canon, found = quantities_at(segment)
            previous: QuantityAt | None = None
            value_of_concept = concept is not None
            for q in found:
                before = canon[: q.start]
                op = next((o for regex, o in _COMPARATOR_BEFORE if regex.search(before)), None)
                if previous is None:
                    attached = value_of_concept and len(_WORD.findall(before)) <= ATTACH_MAX_WORDS
                else:  # the other end of a range ("30-35%", "6.0 to 6.5") is a value too
                    attached = value_of_concept and bool(
                        _RANGE_GAP.fullmatch(canon[previous.end : q.start])
                    )
                value_of_concept = attached
                previous = q
                if op is None and not attached and not _is_measurement_unit(q.unit):
                    continue  # a dose, a duration, a count: a plan's detail, not a finding
                at = end + q.start
                threshold = any(start <= at < stop for start, stop in plans)
                claims.append(_Claim(concept if attached else None, q, op, threshold))
        return claims

    def _values(self, quotes: Sequence[tuple[str, int, int, str]]) -> list[_Value]:
        """Every value in the evidence: after a measurable concept on its line (its value),
        and every number with a unit of measurement (a value of no named concept)."""
        out: list[_Value] = []
        for _, _, _, text in quotes:
            for line in _without_dates(text).splitlines():
                anchors = self._anchors(line)
                for n, (_, end, concept) in enumerate(anchors):
                    stop = anchors[n + 1][0] if n + 1 < len(anchors) else len(line)
                    segment = line[end : min(stop, end + VALUE_WINDOW_CHARS)]
                    canon, found = quantities_at(segment)
                    found_list = _with_flag_skipped(canon, found)
                    if found_list:
                        out.append(_Value(concept, found_list[0]))
                canon, found = quantities_at(line)
                out += [_Value(None, q) for q in _with_flag_skipped(canon, found) if q.unit]
        return out

    def _claim_holds(self, claim: _Claim, values: list[_Value]) -> tuple[bool, str]:
        """(True, the evidence value that carries the claim, "" for a plan's threshold) or
        (False, why not)."""
        q = claim.quantity
        stated = f"{_OP_TEXT[claim.op]} {_quantity_text(q)}" if claim.op else _quantity_text(q)
        if claim.concept is not None:
            pool = [v.quantity for v in values if v.concept == claim.concept]
            what = self._label(claim.concept)
        else:
            pool = [v.quantity for v in values if v.quantity.unit and v.quantity.unit == q.unit]
            what = f"value in {q.unit}" if q.unit else "value"
        if claim.threshold:
            return True, ""  # a plan's threshold: only its concept must be in the evidence
        if not pool:
            return False, f"the cited evidence gives no {what} (the bullet says {stated})"
        comparable = [v for v in pool if _units_agree(v.unit, q.unit)]
        if not comparable:
            given = ", ".join(_quantity_text(v) for v in pool)
            return False, f"the cited evidence gives {what} {given}, in other units than {stated}"
        for v in comparable:
            if claim.op is None and v.value == q.value:
                return True, f"{what} {_quantity_text(v)}".strip()
            if claim.op is not None and _compare(v.value, claim.op, q.value):
                return True, f"{what} {_quantity_text(v)} ({stated})".strip()
        given = ", ".join(dict.fromkeys(_quantity_text(v) for v in comparable))
        return False, f"the cited evidence gives {what} {given}, not {stated}"

    # -- the verdict -----------------------------------------------------------------------

    def _supported(
        self, item: BriefItem, quotes: Sequence[tuple[str, int, int, str]]
    ) -> tuple[bool, str]:
        claims = self._claims(item.text)
        said = self._widened(self.lexicon.concepts_in(item.text))
        if not claims and not said:
            return False, "names no clinical finding or value that its evidence could carry"
        values = self._values(quotes)
        found: list[str] = []
        for claim in claims:
            ok, text = self._claim_holds(claim, values)
            if not ok:
                return False, text
            if text:
                found.append(text)
        carried = self._widened(
            frozenset().union(*(self.lexicon.concepts_in(t) for *_, t in quotes))
        )
        shared = sorted(said & carried)
        if found and (shared or not said):
            return True, "the cited evidence gives " + "; ".join(dict.fromkeys(found))
        if shared:
            return True, "the cited evidence mentions " + ", ".join(
                self._label(c) for c in shared[:3]
            )
        tagged = [
            g
            for g in self.gates
            if (g.gate_id in item.gate_ids or self._names(item, g)) and self._is_finding(g, quotes)
        ]
        if tagged:
            return True, "it cites the record's finding of " + ", ".join(
                g.title or g.gate_id for g in tagged
            )
        missing = ", ".join(self._label(c) for c in sorted(said)[:3])
        return False, f"the cited evidence does not mention {missing}"


def as_scored(brief: Brief, gates: Sequence[GateHit], rules: Mapping[str, GateRule]) -> Brief:
    """The brief with a verdict on every bullet: the stored one, or, for a brief stored
    before claims were checked, the rule it was scored with (it cites verified evidence;
    it names the gate)."""
    if all(i.supported is not None for i in brief.items):
        return brief
    unsupported = {i.item_id for i in brief.unsupported_items()}
    addressed: dict[str, list[str]] = {}
    for gate in triggered(gates):
        for item in addressing_items(brief, gate, rules):
            addressed.setdefault(item.item_id, []).append(gate.gate_id)
    items = tuple(
        item
        if item.supported is not None
        else item.model_copy(
            update={
                "supported": item.item_id not in unsupported,
                "support_reason": (
                    "cites no verified evidence"
                    if item.item_id in unsupported
                    else "scored before claims were checked: it cites verified evidence"
                ),
                "addresses": tuple(addressed.get(item.item_id, ())),
            }
        )
        for item in brief.items
    )
    return brief.model_copy(update={"items": items})
