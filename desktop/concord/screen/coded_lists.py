"""What the coded screen reads: the code lists of `resources/gates/codes/<gate_id>.json`
(schema ``concord.gate-codes/1``), the limits each gate's own rules set (`limits_of`), and
how a list matches a coded fact (`CodeMatcher`).

A code list says which codes and names stand for a gate's concepts; it never repeats what
the gate file says. Thresholds and comparators, rising ratios, stent windows, event windows
(``within_days``), what history means (``history``), how long a stopped medicine still
counts (``stopped_within_days``), what a medicine requires and whether its dose, route or
duration matter, the BMI limit and the gates a gate follows are all read from the gate's
rules, so each has one owner. An entry names the rule concept it answers to (``concept``).

Codes match exactly, or with ``descendants`` every code that starts with the listed one:
an ICD-10 category (I21 covers I21.0 ... I21.9) or an ATC group (B01AF, the direct factor
Xa inhibitors). Names are matched as whole words, case-insensitive; ``exclude_codes`` and
``exclude_names`` remove look-alikes (a dental cartridge of lidocaine with adrenaline is
not a vasopressor).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from concord.domain.coded import Coding
from concord.domain.gate import GateStatus
from concord.domain.record import Span
from concord.screen.context import HISTORICAL_DAYS

if TYPE_CHECKING:
    from concord.screen.rules import GateFile

CODES_SCHEMA = "concord.gate-codes/1"
_T = TypeVar("_T")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CodeIn(_Strict):
    system: str
    code: str
    display: str = ""
    descendants: bool = Field(
        default=False,
        description="Also every code of the system that starts with this one (an ICD-10 "
        "category, an ATC group)",
    )


class CodeSet(_Strict):
    """Codes and names that stand for one thing, with the look-alikes that do not."""

    codes: list[CodeIn] = []
    names: list[str] = []
    exclude_codes: list[CodeIn] = []
    exclude_names: list[str] = []


class ObservationCodes(_Strict):
    concept: str = Field(description="The gate rule's lexicon concept (numeric, rising or BMI)")
    ucum_unit: str = Field(description="UCUM unit the gate threshold is written in")
    codes: list[CodeIn] = []
    names: list[str] = []
    exclude_names: list[str] = []
    with_conditions: CodeSet | None = Field(
        default=None,
        description="Where the rule needs a concept near the value (a heart rate with atrial "
        "fibrillation): a current coded condition from this set",
    )


class OxygenCodes(_Strict):
    concentration: list[CodeIn] = []
    flow: list[CodeIn] = []
    names_concentration: list[str] = []
    names_flow: list[str] = []


class ConceptCodes(CodeSet):
    """Medications or conditions of a gate. With ``concept``, the gate rule of that concept
    decides what the status and dates mean; without, medications are exposures (any course
    counts) and conditions fire when active or begun within ``recent_days``."""

    concept: str = ""
    recent_days: int = Field(default=42, gt=0)


class MedicationCodes(ConceptCodes):
    requires: CodeSet | None = Field(
        default=None,
        description="Coded conditions that satisfy the rule's `requires` (diabetes for an "
        "SGLT2 inhibitor)",
    )


class ConditionCodes(ConceptCodes):
    event: bool = Field(
        default=False,
        description="The onset is the event (a stroke, an MI, a DVT): outside the rule's "
        "window it is history whatever the clinical status says",
    )
    ended_by: CodeSet | None = Field(
        default=None,
        description="Procedures or conditions that end it when dated on or after its onset "
        "(a kidney transplant ends dialysis)",
    )


class ProcedureCodes(CodeSet):
    concept: str = ""
    recent_days: int | None = Field(
        default=None,
        gt=0,
        description="A window of its own where the rule has none (a dialysis session within "
        "30 days: on dialysis); else the rule's within_days",
    )
    ended_by: CodeSet | None = None


class DeviceCodes(CodeSet):
    """A device in place: a Device resource, a Procedure that implanted one, or a condition
    that says it is present (Z95.0). One removed (`removed_by`, a dated procedure on or
    after its placement; an inactive Device; a resolved condition) does not fire."""

    concept: str = ""
    removed_by: CodeSet = CodeSet()


class ResultCodes(CodeSet):
    """A qualitative result (a urine hCG): positive fires, within the rule's window; a later
    negative result of the same test supersedes it."""

    concept: str = ""
    positive: list[CodeIn] = Field(min_length=1)
    negative: list[CodeIn] = []


class AllergyCodes(CodeSet):
    """AllergyIntolerance substances. ``fires``: an active allergy to one fires whatever
    the reaction; without, only its status is read (refuted, inactive or resolved is
    negated) and the reaction is left to the text screen, which reads the rendered one."""

    fires: bool = True


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
    medications: MedicationCodes | list[MedicationCodes] | None = None
    conditions: ConditionCodes | list[ConditionCodes] | None = None
    procedures: list[ProcedureCodes] = []
    devices: list[DeviceCodes] = []
    results: list[ResultCodes] = []
    allergies: list[AllergyCodes] = []
    stents: StentCodes | None = None

    def medication_lists(self) -> list[MedicationCodes]:
        return _as_list(self.medications)

    def condition_lists(self) -> list[ConditionCodes]:
        return _as_list(self.conditions)


def _as_list(value: _T | list[_T] | None) -> list[_T]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


# -- what the gate's rules say ---------------------------------------------------------------


@dataclass(frozen=True)
class NumericLimit:
    comparator: str
    threshold: float
    quantity: str | None = None  # the units.json quantity the text rule reads
    near: tuple[str, ...] = ()  # concepts the value needs beside it
    only_without: tuple[str, ...] = ()  # quantities whose value anywhere silences it


@dataclass(frozen=True)
class ConceptLimit:
    """What a lexicon or graded rule says about a concept's past: ``history`` counts,
    resolves or explicit; ``within_days`` its event window."""

    history: str
    within_days: int | None
    fires: bool = True
    diagnosed_only: bool = False  # a suspected (provisional, differential) one does not fire

    @property
    def window(self) -> int:
        return self.within_days or HISTORICAL_DAYS


@dataclass(frozen=True)
class MedicationLimit:
    stopped_within_days: int
    reads_dose: bool  # preventive doses, a daily dose, the route or the duration matter
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class BmiLimit:
    concept: str
    weight: str
    height: str
    at_least: float


@dataclass(frozen=True)
class GateLimits:
    """What the gate's own rules say: per concept its numeric limits or rising ratio, its
    history and window, a medicine's status rules; the stent windows, the BMI limit and the
    gates this one follows."""

    numeric: dict[str, tuple[NumericLimit, ...]]
    rising: dict[str, float]
    des_days: int | None = None
    bms_days: int | None = None
    concepts: dict[str, ConceptLimit] = field(default_factory=dict)
    medications: dict[str, MedicationLimit] = field(default_factory=dict)
    bmi: BmiLimit | None = None
    also_gates: tuple[str, ...] = ()
    title: str = ""

    def value_concepts(self) -> set[str]:
        out = set(self.numeric) | set(self.rising)
        if self.bmi is not None:
            out |= {self.bmi.concept, self.bmi.weight, self.bmi.height}
        return out


def limits_of(gate: GateFile) -> GateLimits:
    """The limits of a gate's rules: the coded screen applies the gate file's own
    thresholds and windows, never a copy."""
    from concord.screen.rules import (
        BmiRule,
        GatesRule,
        GradedRule,
        LexiconRule,
        MedicationRule,
        NumericRule,
        RisingRule,
        StentRule,
    )

    numeric: dict[str, tuple[NumericLimit, ...]] = {}
    concepts: dict[str, ConceptLimit] = {}
    medications: dict[str, MedicationLimit] = {}
    for rule in gate.rules:
        if isinstance(rule, NumericRule):
            limit = NumericLimit(
                rule.comparator,
                rule.threshold,
                rule.quantity,
                tuple(rule.near),
                tuple(rule.only_without),
            )
            numeric[rule.concept] = (*numeric.get(rule.concept, ()), limit)
        elif isinstance(rule, LexiconRule | GradedRule):
            fires = rule.fires if isinstance(rule, LexiconRule) else True
            diagnosed = rule.diagnosed_only if isinstance(rule, LexiconRule) else False
            for cid in rule.concepts:
                known = concepts.get(cid)
                if known is None or (fires and not known.fires):
                    concepts[cid] = ConceptLimit(rule.history, rule.within_days, fires, diagnosed)
        elif isinstance(rule, MedicationRule):
            reads_dose = bool(
                rule.prophylactic or rule.daily_dose or rule.systemic_only or rule.long_term
            )
            for cid in rule.concepts:
                medications[cid] = MedicationLimit(
                    rule.stopped_within_days, reads_dose, tuple(rule.requires)
                )
    rising = {r.concept: r.min_ratio for r in gate.rules if isinstance(r, RisingRule)}
    stent = next((r for r in gate.rules if isinstance(r, StentRule)), None)
    bmi = next((r for r in gate.rules if isinstance(r, BmiRule)), None)
    also = tuple(g for r in gate.rules if isinstance(r, GatesRule) for g in r.gate_ids)
    return GateLimits(
        numeric,
        rising,
        stent.des_days if stent else None,
        stent.bms_days if stent else None,
        concepts,
        medications,
        BmiLimit(bmi.concept, bmi.weight, bmi.height, bmi.at_least) if bmi else None,
        also,
        gate.title,
    )


# -- findings ----------------------------------------------------------------------------------


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


# -- matching ----------------------------------------------------------------------------------


def names_re(names: Sequence[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])", re.IGNORECASE)


class _Codes:
    def __init__(self, items: Iterable[CodeIn]) -> None:
        items = list(items)
        self.exact = frozenset((c.system, c.code) for c in items)
        self.prefixes = tuple((c.system, c.code) for c in items if c.descendants)

    def hit(self, codes: Iterable[tuple[str, str]]) -> bool:
        for pair in codes:
            if pair in self.exact:
                return True
            system, code = pair
            if any(system == s and code.startswith(p) for s, p in self.prefixes):
                return True
        return False


class CodeMatcher:
    def __init__(
        self,
        codes: Iterable[CodeIn],
        names: Sequence[str],
        exclude: Sequence[str] = (),
        exclude_codes: Iterable[CodeIn] = (),
    ) -> None:
        self.codes = _Codes(codes)
        self.names = names_re(names)
        self.exclude = names_re(exclude)
        self.exclude_codes = _Codes(exclude_codes)

    @classmethod
    def of(cls, codes: CodeSet) -> CodeMatcher:
        return cls(codes.codes, codes.names, codes.exclude_names, codes.exclude_codes)

    def excluded(self, codes: Iterable[tuple[str, str]], *names: str) -> bool:
        if self.exclude_codes.hit(codes):
            return True
        return self.exclude is not None and any(self.exclude.search(n) for n in names if n)

    def by_code(self, fact_codes: Iterable[tuple[str, str]]) -> bool:
        return self.codes.hit(fact_codes)

    def by_name(self, *names: str) -> bool:
        if self.names is None:
            return False
        for name in names:
            if self.names.search(name) and not (self.exclude and self.exclude.search(name)):
                return True
        return False

    def matches(self, codes: Iterable[tuple[str, str]], *names: str) -> bool:
        codes = list(codes)
        if self.excluded(codes, *names):
            return False
        return self.by_code(codes) or self.by_name(*names)


def pairs(fact_codes: Iterable[Coding]) -> set[tuple[str, str]]:
    return {(c.system, c.code) for c in fact_codes}
