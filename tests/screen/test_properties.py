"""Properties of the screen that must hold for any phrasing, not just the corpus's.

* What a reader sees is what the screen reads: invisible characters, full-width digits and
  no-break spaces inserted anywhere in a corpus line never change its status (whether that
  status is the expected one is test_corpus's question).
* A value crosses a numeric gate's threshold exactly when the screen fires, whatever label,
  unit and spelling of the number the lexicon allows.
* A negated, a relative's or a hypothetical mention of a gate's condition never fires.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from concord.domain.gate import GateStatus
from concord.screen.record_screen import RecordScreen
from concord.screen.rules import GradedRule, LexiconRule, NumericRule
from tests.screen.test_corpus import ROWS, record_of, status_of

SCREEN = RecordScreen.load()
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]
FULL_WIDTH = {str(d): chr(0xFF10 + d) for d in range(10)}
COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# Lines of gates the screen defines (the thirty new gates' corpora precede their rules).
DEFINED_ROWS = [r for r in ROWS if r["gate_id"] in SCREEN.definitions]


def _status(row: dict[str, object], text: str) -> str:
    return status_of(SCREEN, str(row["gate_id"]), text, header=bool(row.get("header", True)))


@SETTINGS
@given(st.sampled_from(DEFINED_ROWS), st.data())
def test_invisible_characters_never_change_a_status(
    row: dict[str, object], data: st.DataObject
) -> None:
    text = str(row["text"])
    positions = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), min_size=1, max_size=4))
    for pos in sorted(set(positions), reverse=True):
        text = text[:pos] + data.draw(st.sampled_from(INVISIBLE)) + text[pos:]
    assert _status(row, text) == _status(row, str(row["text"]))


@pytest.mark.parametrize(
    "row", DEFINED_ROWS[::3], ids=[str(r["text"])[:40] for r in DEFINED_ROWS[::3]]
)
def test_full_width_digits_and_no_break_spaces_read_as_ascii(row: dict[str, object]) -> None:
    text = "".join(FULL_WIDTH.get(c, c) for c in str(row["text"])).replace(" ", "\u00a0")
    assert _status(row, text) == _status(row, str(row["text"]))


def _numeric_cases() -> list[tuple[str, NumericRule, str, str, float, float]]:
    """(gate, rule, label, unit form, factor, offset) for every label and unit of every
    numeric rule that reads a single value on its own."""
    cases = []
    for gate in SCREEN.gates:
        gate_id = gate.gate_id
        for rule in gate.rules:
            if not isinstance(rule, NumericRule) or rule.pair is not None or rule.near:
                continue  # pairs and values that need a neighbour: the corpus covers them
            concept = SCREEN.lexicon.concepts[rule.concept]
            labels = [t for t in concept.terms + concept.abbreviations if len(t) > 1]
            forms = (
                [(f.form, f.factor, f.offset) for f in SCREEN.units.forms_of(rule.quantity)]
                if rule.quantity
                else [("", 1.0, 0.0)]
            )
            for label in labels:
                for form, factor, offset in forms:
                    cases.append((gate_id, rule, label, form, factor, offset))
    return cases


NUMERIC = _numeric_cases()


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NUMERIC), st.floats(0.0, 1.0))
def test_a_value_fires_exactly_when_it_crosses_the_threshold(
    case: tuple[str, NumericRule, str, str, float, float], where: float
) -> None:
    gate_id, rule, label, form, factor, offset = case
    low, high = rule.plausible
    canonical = round(low + (high - low) * where, 1)
    written = (canonical - offset) / factor
    if not 0 < written < 1000 or not low <= round(written, 2) * factor + offset <= high:
        return  # not a value a clinic writes in this unit
    text_value = f"{written:.2f}".rstrip("0").rstrip(".")
    value = float(text_value) * factor + offset
    if abs(value - rule.threshold) < 1e-6 * max(1.0, rule.threshold) or value == 0:
        return
    if rule.bare_value and not form:
        return  # bare numbers are scaled by magnitude; covered by the corpus
    text = f"{label} {text_value} {form}".strip()
    siblings = [
        r
        for g in SCREEN.gates
        if g.gate_id == gate_id
        for r in g.rules
        if isinstance(r, NumericRule) and r.concept == rule.concept and r.pair is None
    ]  # a gate may read one quantity both ways (sodium < 125 or > 155)
    fires = any(COMPARE[r.comparator](value, r.threshold) for r in siblings)
    got = status_of(SCREEN, gate_id, text)
    assert (got == "triggered") == fires, text


def _condition_terms() -> list[tuple[str, str]]:
    terms = []
    for gate in SCREEN.gates:
        for rule in gate.rules:
            if isinstance(rule, LexiconRule) and rule.relatives_count:
                continue  # a blood relative's MH is the patient's risk: tested in the corpus
            if isinstance(rule, LexiconRule | GradedRule):
                for cid in rule.concepts:
                    concept = SCREEN.lexicon.concepts[cid]
                    prefix = "severe " if isinstance(rule, GradedRule) else ""
                    terms += [(gate.gate_id, prefix + t) for t in concept.terms[:12]]
    return terms


TERMS = _condition_terms()


@pytest.mark.parametrize(
    "template",
    [
        "No history of {t}.",
        "Denies {t}.",
        "{t}: none",
        "Family history: mother had {t}.",
        "Risk of {t} discussed.",
        "Negative for {t}.",
    ],
)
def test_a_negated_family_or_hypothetical_mention_never_fires(template: str) -> None:
    fired = []
    for gate_id, term in TERMS:
        text = template.format(t=term)
        hits = SCREEN.screen(record_of(text))
        if any(h.gate_id == gate_id and h.status is GateStatus.TRIGGERED for h in hits):
            fired.append(text)
    assert fired == []
