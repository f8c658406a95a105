"""Gate files (`resources/gates/*.json`): their schema, validation and `GateDefinition`.

A gate file holds one gate: id, title, severity, owning specialty, the rules that fire it,
and the terms that show a brief has addressed it. Rule types:

* ``lexicon``  - a mention of any listed concept fires (``fires: false``: a mention only
  counts when negated, so "denies chest pain" is reported without "chest pain" firing).
  ``historical_resolves``: resolved history ("pneumonia 2019, resolved") is reported as
  negated rather than fired.
* ``numeric``  - concept, comparator, threshold and unit: the value written after the
  mention is converted to the unit; a range or a qualifier ("25-30%", "<30%") fires when
  its worst possible value crosses the threshold.
* ``rising``   - a series of values for the concept on one line that rises by at least
  ``min_ratio`` (a troponin of 14 then 60).
* ``temporal`` - coronary stent recency: drug-eluting < ``des_days``, bare-metal <
  ``bms_days`` before the surgery date, type unknown treated as drug-eluting.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from concord.domain.gate import Severity
from concord.errors import InputError
from concord.screen.lexicon import Lexicon
from concord.screen.resource_file import read_resource_file
from concord.screen.units import UnitTable

GATE_SCHEMA = "concord.gate/1"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LexiconRule(_Strict):
    type: Literal["lexicon"]
    concepts: list[str] = Field(min_length=1, description="Lexicon concept ids")
    fires: bool = Field(default=True, description="False: only negated mentions are reported")
    historical_resolves: bool = Field(
        default=False, description="Resolved history is reported as negated, not fired"
    )
    note: str = ""


class BareLargeValue(_Strict):
    at_least: float = Field(description="A value with no unit at or above this...")
    factor: float = Field(gt=0, description="...is multiplied by this (45000/µL -> 45)")


class NumericRule(_Strict):
    type: Literal["numeric"]
    concept: str = Field(description="Lexicon concept id of the quantity")
    label: str = Field(description="How the detail names it, e.g. 'K+'")
    comparator: Literal["<", "<=", ">", ">="]
    threshold: float
    quantity: str | None = Field(description="Quantity id in units.json; null = unitless")
    plausible: tuple[float, float] = Field(description="Values outside are not this quantity")
    bare_large_value: BareLargeValue | None = None
    skip_if_preceded_by: list[str] = Field(
        default=[], description="Words that make the value a target, not a result"
    )
    annotate_if: dict[str, str] = Field(
        default={}, description="Concept id -> note added to the detail when in the sentence"
    )
    repeat_supersedes: bool = Field(
        default=True,
        description="A later value marked 'repeat'/'recheck' that does not fire supersedes",
    )
    max_gap: int = Field(default=40, ge=0, description="Characters between mention and value")
    note: str = ""


class RisingRule(_Strict):
    type: Literal["rising"]
    concept: str
    label: str
    min_ratio: float = Field(gt=1.0, description="Last value / first value that counts as rising")
    plausible: tuple[float, float]
    note: str = ""


class StentRule(_Strict):
    """Coronary stent recency (rule type "temporal")."""

    type: Literal["temporal"]
    des_concept: str
    bms_concept: str
    any_concept: str = Field(description="Any coronary stent or PCI; type read from the line")
    des_days: int = Field(gt=0)
    bms_days: int = Field(gt=0)
    note: str = ""


Rule = Annotated[LexiconRule | NumericRule | RisingRule | StentRule, Field(discriminator="type")]


class AddressIn(_Strict):
    concepts: list[str] = Field(default=[], description="Lexicon concepts that address the gate")
    phrases: list[str] = Field(default=[], description="Literal phrases (case-insensitive)")


class GateFile(_Strict):
    """One gate as written in `resources/gates/<gate_id>.json`."""

    schema_: Literal["concord.gate/1"] = Field(alias="schema")
    gate_id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    version: str = Field(description="Version of this rule file; bump on any change")
    title: str
    severity: Severity
    specialty: str = Field(description="Specialty that owns the gate")
    also_specialties: list[str] = []
    order: int = Field(default=100, description="Display order")
    description: str = ""
    rules: list[Rule] = Field(min_length=1)
    address: AddressIn


@dataclass(frozen=True)
class GateDefinition:
    """What the adjudication needs to know about a gate."""

    gate_id: str
    title: str
    severity: Severity
    specialty: str
    address_terms: tuple[str, ...]  # lexicon concept ids, then literal phrases
    also_specialties: tuple[str, ...] = ()
    version: str = ""
    _lexicon: Lexicon | None = field(default=None, repr=False, compare=False)
    _address_concepts: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    _phrase_re: re.Pattern[str] | None = field(default=None, repr=False, compare=False)

    def addressed_by(self, text: str) -> bool:
        """True when `text` (a brief bullet) names one of the gate's address terms."""
        if self._phrase_re is not None and self._phrase_re.search(text):
            return True
        if self._lexicon is None or not self._address_concepts:
            return False
        return not self._address_concepts.isdisjoint(self._lexicon.concepts_in(text))


def _concept_ids(rule: LexiconRule | NumericRule | RisingRule | StentRule) -> Iterable[str]:
    if isinstance(rule, LexiconRule):
        yield from rule.concepts
    elif isinstance(rule, NumericRule):
        yield rule.concept
        yield from rule.annotate_if
    elif isinstance(rule, RisingRule):
        yield rule.concept
    else:
        yield from (rule.des_concept, rule.bms_concept, rule.any_concept)


def read_gate_file(path: Path, lexicon: Lexicon, units: UnitTable) -> GateFile:
    """Parse and check one gate file; any problem raises InputError naming the file."""
    gate = read_resource_file(path, GateFile, "gate file")
    for rule in gate.rules:
        for cid in _concept_ids(rule):
            if cid not in lexicon.concepts:
                raise InputError(
                    f"gate {gate.gate_id}: unknown lexicon concept {cid!r}", subject=path
                )
        quantity = rule.quantity if isinstance(rule, NumericRule) else None
        if quantity is not None and quantity not in units.canonical:
            raise InputError(f"gate {gate.gate_id}: unknown quantity {quantity!r}", subject=path)
    for cid in gate.address.concepts:
        if cid not in lexicon.concepts:
            raise InputError(f"gate {gate.gate_id}: unknown address concept {cid!r}", subject=path)
    return gate


def definition_of(gate: GateFile, lexicon: Lexicon) -> GateDefinition:
    phrases = gate.address.phrases
    phrase_re = (
        re.compile(
            "|".join(rf"(?<![A-Za-z0-9]){re.escape(p)}(?![A-Za-z0-9])" for p in phrases),
            re.IGNORECASE,
        )
        if phrases
        else None
    )
    return GateDefinition(
        gate_id=gate.gate_id,
        title=gate.title,
        severity=gate.severity,
        specialty=gate.specialty,
        address_terms=tuple(gate.address.concepts) + tuple(phrases),
        also_specialties=tuple(gate.also_specialties),
        version=gate.version,
        _lexicon=lexicon,
        _address_concepts=frozenset(gate.address.concepts),
        _phrase_re=phrase_re,
    )
