"""Coronary stent recency: a drug-eluting stent within `des_days`, a bare-metal stent within
`bms_days` of the reference date (the planned surgery, else the record's present).

The stent's date is the time written nearest to it in its sentence: an absolute date ("on
14/08/2026", "in September 2026", "in August"), or a relative one ("6 weeks ago", "3/12
ago") counted back from the document's own date. A stent of unknown type counts as
drug-eluting; a generic "PCI" beside a typed stent leaves the decision to the typed one. An
undated stent (typed, or named a stent: "coronary artery stent" on a problem list; not a
bare "PCI") fires unless another stent mention in the record is dated (then the dated one
decides). A stent planned, negated or a relative's is reported negated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from concord.domain.gate import GateStatus
from concord.screen.context import HistoryPolicy
from concord.screen.dates import times_in
from concord.screen.document import ReadDocument
from concord.screen.findings import Finding
from concord.screen.lexicon import Mention
from concord.screen.lexicon_rules import finding
from concord.screen.rules import StentRule
from concord.screen.screening import Screening

SENTENCE_REACH = 120
_STENT = re.compile(r"stent", re.IGNORECASE)
"""An undated mention that names a stent ("coronary artery stent" on a problem list) fires as
an undated typed one does; a bare "PCI" or "angioplasty" with no date does not."""


def stent_findings(gate_id: str, rule: StentRule, s: Screening) -> Iterator[Finding]:
    dated: list[Finding] = []
    undated: list[Finding] = []
    negated: list[Finding] = []
    any_dated = False
    reference = s.clock.reference
    for d, m in s.mentions([rule.any_concept]):
        term = " ".join(d.text[m.start : m.end].split())
        verdict = s.context.verdict(d, m.start, m.end, s.situation(m, HistoryPolicy.COUNTS))
        if verdict is not None:
            negated.append(
                finding(gate_id, GateStatus.NEGATED, d, m.start, m.end, verdict.describe(term))
            )
            continue
        left, right = d.sentence_bounds(m.start, m.end, reach=SENTENCE_REACH)
        kind = _kind(rule, d, m, left, right)
        if kind is None:
            continue  # a generic "PCI" beside a typed stent: the typed mention decides
        limit = rule.des_days if kind == "drug-eluting" else rule.bms_days
        times = times_in(d.text, left, right)
        if not times:
            if (
                rule.des_concept in m.concepts
                or rule.bms_concept in m.concepts
                or _STENT.search(d.text, m.start, m.end)
            ):
                undated.append(
                    finding(
                        gate_id,
                        GateStatus.TRIGGERED,
                        d,
                        m.start,
                        m.end,
                        f"{kind} stent '{term}' with no date: treated as recent",
                    )
                )
            continue
        any_dated = True
        when = min(times, key=lambda t: _distance(t.start, t.end, m.start, m.end))
        _, latest = when.interval(s.clock.anchor(d.index))
        days = (reference - latest).days
        start, end = min(m.start, when.start), max(m.end, when.end)
        written = " ".join(d.text[when.start : when.end].split())
        if days < limit:
            dated.append(
                finding(
                    gate_id,
                    GateStatus.TRIGGERED,
                    d,
                    start,
                    end,
                    f"{kind} stent '{term}' {written}: {max(days, 0)} days before "
                    f"{reference.isoformat()} < {limit} days",
                    time=latest,
                )
            )
    yield from dated
    if not any_dated:
        yield from undated
    yield from negated


def _kind(rule: StentRule, d: ReadDocument, m: Mention, left: int, right: int) -> str | None:
    if rule.bms_concept in m.concepts:
        return "bare-metal"
    if rule.des_concept in m.concepts:
        return "drug-eluting"
    typed = [
        other
        for other in d.starting_in(left, right)
        if other.concepts & {rule.des_concept, rule.bms_concept}
    ]
    return None if typed else "drug-eluting"


def _distance(a_start: int, a_end: int, b_start: int, b_end: int) -> int:
    if a_start >= b_end:
        return a_start - b_end  # the time is after the mention: wins a tie
    if b_start >= a_end:
        return b_start - a_end + 1
    return 0
