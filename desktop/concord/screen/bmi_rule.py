"""Body mass index (`bmi` rules): stated ("BMI 42", "BMI of forty-three"), or computed from
the weight and height a document writes ("Wt 128 kg, Ht 172 cm"; "weighs 290 lb, 5 ft 9
in"; "Weight 20 st 4 lb").

A document that states a BMI is read for that (the latest stated value decides, as for any
numeric gate). A document that states none is read for its latest weight and its latest
height, each read as the screen reads any value (tables, prose, units, targets and a
relative's values left out); the BMI is weight / height², and the evidence is both values.
Heights in feet and inches ("5'9\"", "5 ft 9 in", "5 foot 9") are read here, since they are
two numbers, not one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from concord.domain.gate import GateStatus
from concord.screen.document import ReadDocument
from concord.screen.findings import Finding
from concord.screen.lexicon_rules import finding
from concord.screen.numeric_rules import numeric_findings, observations
from concord.screen.rules import BmiRule, NumericRule
from concord.screen.screening import Screening
from concord.screen.values import QuantitySpec

MASS_KG = (25.0, 400.0)
HEIGHT_M = (1.0, 2.4)
_FEET_INCHES = re.compile(
    r"(?P<ft>[3-7])\s*(?:'|’|ft\.?|feet|foot)\s*(?:(?P<inch>\d{1,2}(?:\.\d)?)\s*"
    r"(?:\"|''|”|in\.?|inches|inch)?)?(?![\d.])",
    re.IGNORECASE,
)
HEIGHT_REACH = 30  # characters after a height label where feet and inches may be written
_INCHES = re.compile(r"(?P<in>[4-8]\d(?:\.\d)?)\s*(?:in\.?|inches|inch|\"|'')(?![A-Za-z0-9])", re.I)
_STANDING_HEIGHT = re.compile(
    r"(?<![\d.'])(?:(?P<ft>[4-7])\s*(?:ft\.?|feet|foot|')\s*(?P<inch>\d{1,2}(?:\.\d)?)\s*"
    r"(?:\"|''|in\.?|inches|inch)?|(?P<m>[12]\.\d{1,2})\s*(?:m|metres|meters)\s+tall|"
    r"(?P<cm>1\d\d)\s*cm\s+tall)(?![A-Za-z0-9])",
    re.IGNORECASE,
)


def bmi_findings(gate_id: str, rule: BmiRule, s: Screening) -> Iterator[Finding]:
    stated_rule = NumericRule(
        type="numeric",
        concept=rule.concept,
        label="BMI",
        comparator=">=",
        threshold=rule.at_least,
        quantity="bmi",
        plausible=(10.0, 120.0),
    )
    stated_docs: set[int] = set()
    for found in numeric_findings(gate_id, stated_rule, s, "kg/m^2"):
        stated_docs.add(_document_index(s, found.source_id))
        yield found
    stated_docs |= _documents_stating(s, rule.concept)
    for d in s.documents:
        if d.index in stated_docs:
            continue
        computed = _computed(gate_id, rule, s, d)
        if computed is not None:
            yield computed


def _documents_stating(s: Screening, concept: str) -> set[int]:
    spec = QuantitySpec(concept=concept, quantity="bmi", plausible=(10.0, 120.0))
    return {o.d.index for o in observations(s, concept, spec, lambda _v: False, []) if o.eligible}


def _document_index(s: Screening, source_id: str) -> int:
    return next(d.index for d in s.documents if d.source_id == source_id)


def _computed(gate_id: str, rule: BmiRule, s: Screening, d: ReadDocument) -> Finding | None:
    weight = _latest(s, d, rule.weight, "mass", MASS_KG)
    height = _latest(s, d, rule.height, "length", HEIGHT_M) or _feet_inches(s, d, rule.height)
    if weight is None or height is None:
        return None
    (kg, w_start, w_end), (metres, h_start, h_end) = weight, height
    bmi = kg / (metres * metres)
    start, end = min(w_start, h_start), max(w_end, h_end)
    detail = (
        f"BMI {bmi:.1f} kg/m^2 computed from weight {kg:.1f} kg and height {metres:.2f} m "
        f"({'≥' if bmi >= rule.at_least else '<'} {rule.at_least:g})"
    )
    if bmi >= rule.at_least:
        return finding(gate_id, GateStatus.TRIGGERED, d, start, end, detail, round(bmi, 1))
    if bmi >= rule.at_least - 5:
        return finding(gate_id, GateStatus.NEGATED, d, start, end, detail, round(bmi, 1))
    return None


def _latest(
    s: Screening, d: ReadDocument, concept: str, quantity: str, plausible: tuple[float, float]
) -> tuple[float, int, int] | None:
    """The latest eligible single value of `concept` in `d`: (value, start, end)."""
    spec = QuantitySpec(concept=concept, quantity=quantity, plausible=plausible)
    best = None
    for o in observations(s, concept, spec, lambda _v: False, []):
        if o.d is not d or not o.eligible or o.value.low != o.value.high:
            continue
        key = (o.when is not None, o.when, o.value.start)
        if best is None or key > best[0]:
            start = min(o.label.start, o.value.start)
            best = (key, (o.value.low, start, o.value.end))
    return best[1] if best is not None else None


def _feet_inches(s: Screening, d: ReadDocument, concept: str) -> tuple[float, int, int] | None:
    """A height written in feet and inches after a height label ("Ht 5'9\"", "Ht 68 in"),
    or standing on its own in a form no other value takes ("5 ft 4 in", "five foot four",
    "1.62 m tall"), in metres; the last one written."""
    found = None
    for m in d.of([concept]):
        if s.context.value_verdict(d, m.start, m.end) is not None:
            continue
        at = _skip_words(d.text, m.end)
        written = _FEET_INCHES.match(d.text, at) or _INCHES.match(d.text, at)
        if written is None or written.start() - m.end > HEIGHT_REACH:
            continue
        metres = _metres(written)
        if metres is not None:
            found = (metres, m.start, written.end())
    for written in _STANDING_HEIGHT.finditer(d.text):
        if s.context.value_verdict(d, written.start(), written.end()) is not None:
            continue
        metres = _metres(written)
        if metres is not None and (found is None or written.start() > found[1]):
            found = (metres, written.start(), written.end())
    return found


def _metres(written: re.Match[str]) -> float | None:
    groups = written.groupdict()
    if groups.get("m"):
        metres = float(groups["m"])
    elif groups.get("cm"):
        metres = float(groups["cm"]) / 100
    elif groups.get("ft"):
        metres = (int(groups["ft"]) * 12 + float(groups.get("inch") or 0)) * 0.0254
    else:
        metres = float(groups["in"]) * 0.0254
    metres = round(metres, 3)
    return metres if HEIGHT_M[0] <= metres <= HEIGHT_M[1] else None


_FILLER = re.compile(r"[\s:=\-]*(?:(?:is|of|was|measured|approximately|about)\s+)*", re.I)


def _skip_words(text: str, pos: int) -> int:
    m = _FILLER.match(text, pos)
    return m.end() if m else pos
