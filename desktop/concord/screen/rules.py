"""Gate files (`resources/gates/*.json`): their schema, validation and `GateDefinition`.

A gate file holds one gate: id, title, severity, owning specialty, the rules that fire it,
and the terms that show a brief has addressed it. Rule types:

* ``lexicon``  - a mention of any listed concept fires (``fires: false``: a mention only
  counts when negated, so "denies chest pain" is reported without "chest pain" firing).
  ``history`` says what a past mention means: ``counts`` for exposures, ``resolves`` for
  states ("pneumonia 2019, resolved" is reported as negated), ``explicit`` for structural
  findings that only a stated resolution or a past intervention (``resolved_by``) ends.
  ``explained_by``: a stated cause with none of ``unless`` makes it negated.
  ``within_days`` makes a state an event with a window: dated more than that many days
  before the surgery it is history (stroke or TIA 90, myocardial infarction 60).
  ``near`` and ``unless_near`` read the mention's item (its list line or clause, up to a
  semicolon); a reaction belongs to the allergen it is written with (``other_allergens``,
  ``unless_reaction``: anaphylaxis to peanuts beside a penicillin rash).
* ``graded``   - a mention fires when a qualifier of a scale in ``qualifiers.json`` written
  with it reaches ``at_least`` ("critical AS", "LV function: severely impaired").
* ``numeric``  - concept, comparator, threshold and unit: the value written for the
  mention is converted to the unit; a range or a qualifier ("25-30%", "<30%") fires when
  its worst possible value crosses the threshold. The latest value decides: a result
  superseded by a later one that does not cross is reported as negated. A rule may read
  one part of a pair (``pair``: "BP 190/110", "190 over 110") and may need a concept in
  the value's sentence (``near``: a heart rate with atrial fibrillation).
* ``rising``   - a series of values for the concept that rises by at least ``min_ratio``
  (a troponin of 14 then 60), in one series or across dated results.
* ``temporal`` - coronary stent recency: drug-eluting < ``des_days``, bare-metal <
  ``bms_days`` before the surgery date, type unknown treated as drug-eluting.
* ``medication`` - a medicine currently taken (`concord.screen.medication_rules`): its
  status read from the list entry or sentence (stopped, held for surgery, previously on,
  a past course, prophylactic doses, the route, a short course).
* ``bmi`` - body mass index stated, or computed from the latest weight and height.
* ``gates`` - fires where one of the listed gates fires, with its evidence.
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
from concord.screen.units import UnitTable
from concord.text.resource_file import read_resource_file

GATE_SCHEMA = "concord.gate/1"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


HistoryIn = Literal["counts", "resolves", "explicit"]


class Explanation(_Strict):
    """A finding explained away: a stated cause (sepsis, CKD) and none of `unless`."""

    causes: list[str] = Field(min_length=1, description="Concepts of a cause that explains it")
    unless: list[str] = Field(default=[], description="Concepts that keep it a finding")


class ReactionElsewhere(_Strict):
    """A reaction written with the mention as its allergen leaves the finding to another
    gate ('penicillin - anaphylaxis' is drug_anaphylaxis); one written with another allergen
    does not ('peanut (anaphylaxis), amoxicillin (rash)')."""

    reactions: list[str] = Field(min_length=1, description="Concepts of the reaction")
    allergens: list[str] = Field(
        min_length=1, description="Concepts of every allergen a reaction may be written with"
    )


class LexiconRule(_Strict):
    type: Literal["lexicon"]
    concepts: list[str] = Field(min_length=1, description="Lexicon concept ids")
    fires: bool = Field(default=True, description="False: only negated mentions are reported")
    history: HistoryIn = Field(
        default="counts",
        description="counts: past mentions count (exposures); resolves: history does not "
        "fire (states); explicit: only stated resolution or a past intervention resolves it",
    )
    resolved_by: list[str] = Field(default=[], description="Past interventions that resolve it")
    explained_by: Explanation | None = None
    within_days: int | None = Field(
        default=None,
        gt=0,
        description="With history 'resolves': a mention dated more than this many days before "
        "the reference date is history (default 56); an event window (stroke 90, MI 60)",
    )
    near: list[str] = Field(
        default=[],
        description="Concepts one of which must be named in the mention's entry (its list line "
        "or clause): anaphylaxis fires only with a drug, latex or chlorhexidine",
    )
    near_sections: list[str] = Field(
        default=[],
        description="Section kinds that count as `near` ('allergy': a drug in the allergy list)",
    )
    unless_near: list[str] = Field(
        default=[], description="Concepts in the entry that leave the finding to another gate"
    )
    other_allergens: list[str] = Field(
        default=[],
        description="The mention is a reaction, and these name allergens besides `near` "
        "(foods, stings): it belongs to the allergen it is written with ('peanut "
        "(anaphylaxis), penicillin (rash)') and fires only when that one is of `near`",
    )
    unless_reaction: ReactionElsewhere | None = None
    relatives_count: bool = Field(
        default=False,
        description="A blood relative's finding is the patient's risk too (MH susceptibility)",
    )
    treated_by: list[str] = Field(
        default=[],
        description="Interventions that, said done after the mention in its paragraph, treated "
        "it ('troponin rose ...; he had PCI with one drug-eluting stent')",
    )
    diagnosed_only: bool = Field(
        default=False,
        description="A suspected diagnosis does not fire ('possible OSA', '?OSA awaiting a "
        "sleep study'): only one made",
    )
    value_decides: bool = Field(
        default=False,
        description="A mention followed by a value of its quantity ('raised INR 1.3') is "
        "left to the numeric rule",
    )
    note: str = ""


class GradedRule(_Strict):
    """A concept fires when a qualifier of `scale` written with it reaches `at_least`."""

    type: Literal["graded"]
    concepts: list[str] = Field(min_length=1)
    scale: str = Field(description="Scale id in qualifiers.json (severity, acuity)")
    at_least: float = Field(description="Grade at or above which it fires")
    history: HistoryIn = "counts"
    resolved_by: list[str] = []
    within_days: int | None = Field(default=None, gt=0)
    note: str = ""


class BareValue(_Strict):
    """How a number written with no unit is scaled: 45000 platelets are 45 ×10⁹/L; an HbA1c
    of 9.1 is a percentage (x 10.929 - 23.5 gives mmol/mol)."""

    when: Literal[">=", "<"]
    bound: float
    factor: float = Field(gt=0)
    offset: float = 0.0


class NumericRule(_Strict):
    type: Literal["numeric"]
    concept: str = Field(description="Lexicon concept id of the quantity")
    label: str = Field(description="How the detail names it, e.g. 'K+'")
    comparator: Literal["<", "<=", ">", ">="]
    threshold: float
    quantity: str | None = Field(description="Quantity id in units.json; null = unitless")
    plausible: tuple[float, float] = Field(description="Values outside are not this quantity")
    bare_value: list[BareValue] = Field(default=[], description="Scaling of unitless numbers")
    annotate_if: dict[str, str] = Field(
        default={}, description="Concept id -> note added to the detail when in the sentence"
    )
    separate_conditions: list[str] = Field(
        default=[],
        description="Concepts that make a value a separate series (on oxygen, on exertion): "
        "a later value under another condition does not supersede it",
    )
    masked_by: list[str] = Field(
        default=[],
        description="Conditions under which a later value never supersedes one that fires "
        "(a normal SpO2 on supplemental oxygen does not show the patient is well on air)",
    )
    not_under: list[str] = Field(
        default=[],
        description="Conditions under which a value is not the quantity the gate means (a "
        "sleep study's nadir SpO2 is no resting saturation): such a value is reported negated",
    )
    latest_decides: bool = Field(
        default=True,
        description="A result superseded by a later one that does not cross is not fired",
    )
    max_gap: int = Field(default=40, ge=0, description="Characters between mention and value")
    pair: Literal["first", "second"] | None = Field(
        default=None,
        description="A value written as a pair ('BP 190/110', '190 over 110'): which part",
    )
    near: list[str] = Field(
        default=[],
        description="Concepts one of which must be named in the value's sentence "
        "(a heart rate > 110 fires only with atrial fibrillation)",
    )
    only_without: list[str] = Field(
        default=[],
        description="Quantities whose value, written anywhere in the record, leaves this rule "
        "silent (a haematocrit counts only where no haemoglobin is given)",
    )
    note: str = ""


class RisingRule(_Strict):
    type: Literal["rising"]
    concept: str
    label: str
    quantity: str | None = None
    min_ratio: float = Field(gt=1.0, description="Peak / first value that counts as rising")
    min_peak: float = Field(default=0.0, description="The peak must exceed this (canonical unit)")
    plausible: tuple[float, float]
    bare_value: list[BareValue] = []
    explained_by: Explanation | None = None
    treated_by: list[str] = Field(
        default=[],
        description="Interventions that, said done after the rise in its paragraph, treated it "
        "(a troponin rise followed by 'PCI with one drug-eluting stent')",
    )
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


class ProphylacticDose(_Strict):
    """Doses of a medicine that prevent rather than treat: a single dose at or below
    `at_most` (in `unit`), or words of prophylaxis, does not fire."""

    concepts: list[str] = Field(min_length=1)
    at_most: float = Field(gt=0)
    unit: Literal["mg", "units"]


class DoseEquivalent(_Strict):
    concept: str
    factor: float = Field(gt=0, description="Reference-drug mg per mg of this drug")


class DailyDose(_Strict):
    """A daily dose threshold in mg of a reference drug (prednisolone), with equivalents."""

    at_least: float = Field(gt=0)
    reference: str = Field(description="Lexicon concept of the reference drug")
    equivalents: list[DoseEquivalent] = []


class OtherUse(_Strict):
    """What a medicine given for something else looks like in its own entry: insulin beside
    hyperkalaemia or a 50% dextrose bolus treats potassium, not diabetes."""

    concepts: list[str] = Field(
        min_length=1, description="Named in the medicine's entry, they make it another treatment"
    )
    unless: list[str] = Field(
        default=[], description="...unless one of these is named there too (diabetes)"
    )


class MedicationRule(_Strict):
    """A medicine currently taken: on the current medication list or described as taken now,
    including one being stopped or held for this operation (the detail says so). Stopped
    for good, a past course, a relative's, planned or if-needed does not fire."""

    type: Literal["medication"]
    concepts: list[str] = Field(min_length=1)
    stopped_within_days: int = Field(
        default=14,
        ge=0,
        description="Stopped or held this many days or fewer before the reference date "
        "still counts (held for this operation); steroids: 90",
    )
    prophylactic: list[ProphylacticDose] = []
    daily_dose: DailyDose | None = None
    long_term: bool = Field(
        default=False, description="A short course (days) does not fire; chronic use does"
    )
    systemic_only: bool = Field(
        default=False, description="Inhaled, topical, nasal, eye and joint routes do not fire"
    )
    requires: list[str] = Field(
        default=[],
        description="Concepts the record must name in the patient for it to fire (an SGLT2 "
        "inhibitor counts for diabetes only in a patient with diabetes)",
    )
    other_use: OtherUse | None = Field(
        default=None, description="Given for something else, it does not fire"
    )
    note: str = ""


class BmiRule(_Strict):
    """Body mass index at or above `at_least`: stated, or computed from the latest weight
    and height written in one document (kg, lb, st; cm, m, in, ft and in)."""

    type: Literal["bmi"]
    concept: str = Field(description="Lexicon concept of a stated BMI")
    weight: str = Field(description="Lexicon concept of body weight")
    height: str = Field(description="Lexicon concept of height")
    at_least: float
    note: str = ""


class GatesRule(_Strict):
    """Fires where another gate fires: known cardiac disease "also when a major cardiac gate
    applies" (a pacemaker, a mechanical valve, a recent MI), with that gate's evidence."""

    type: Literal["gates"]
    gate_ids: list[str] = Field(min_length=1)
    note: str = ""


AnyRule = (
    LexiconRule
    | GradedRule
    | NumericRule
    | RisingRule
    | StentRule
    | MedicationRule
    | BmiRule
    | GatesRule
)
Rule = Annotated[AnyRule, Field(discriminator="type")]


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


def concept_ids(rule: AnyRule) -> Iterable[str]:
    """Every lexicon concept a rule reads."""
    if isinstance(rule, LexiconRule):
        yield from rule.concepts
        yield from rule.resolved_by
        yield from rule.treated_by
        yield from rule.near
        yield from rule.unless_near
        yield from rule.other_allergens
        if rule.unless_reaction is not None:
            yield from rule.unless_reaction.reactions
            yield from rule.unless_reaction.allergens
        if rule.explained_by is not None:
            yield from rule.explained_by.causes
            yield from rule.explained_by.unless
    elif isinstance(rule, GradedRule):
        yield from rule.concepts
        yield from rule.resolved_by
    elif isinstance(rule, NumericRule):
        yield rule.concept
        yield from rule.annotate_if
        yield from rule.separate_conditions
        yield from rule.masked_by
        yield from rule.not_under
        yield from rule.near
        yield from rule.only_without
    elif isinstance(rule, RisingRule):
        yield rule.concept
        yield from rule.treated_by
        if rule.explained_by is not None:
            yield from rule.explained_by.causes
            yield from rule.explained_by.unless
    elif isinstance(rule, MedicationRule):
        yield from rule.concepts
        yield from rule.requires
        if rule.other_use is not None:
            yield from rule.other_use.concepts
            yield from rule.other_use.unless
        for dose in rule.prophylactic:
            yield from dose.concepts
        if rule.daily_dose is not None:
            yield rule.daily_dose.reference
            yield from (e.concept for e in rule.daily_dose.equivalents)
    elif isinstance(rule, BmiRule):
        yield from (rule.concept, rule.weight, rule.height)
    elif isinstance(rule, GatesRule):
        return
    else:
        yield from (rule.des_concept, rule.bms_concept, rule.any_concept)


def read_gate_file(
    path: Path, lexicon: Lexicon, units: UnitTable, scales: Iterable[str] | None = None
) -> GateFile:
    """Parse and check one gate file; any problem raises InputError naming the file.
    `scales`: the qualifier scales a graded rule may name (None: not checked here)."""
    gate = read_resource_file(path, GateFile, "gate file")
    known_scales = None if scales is None else set(scales)
    for rule in gate.rules:
        for cid in concept_ids(rule):
            if cid not in lexicon.concepts:
                raise InputError(
                    f"gate {gate.gate_id}: unknown lexicon concept {cid!r}", subject=path
                )
        quantity = rule.quantity if isinstance(rule, NumericRule | RisingRule) else None
        if quantity is not None and quantity not in units.canonical:
            raise InputError(f"gate {gate.gate_id}: unknown quantity {quantity!r}", subject=path)
        if (
            isinstance(rule, GradedRule)
            and known_scales is not None
            and (rule.scale not in known_scales)
        ):
            raise InputError(f"gate {gate.gate_id}: unknown scale {rule.scale!r}", subject=path)
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
