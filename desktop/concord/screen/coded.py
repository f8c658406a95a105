"""The record screen on coded data: gates fired by codes and values (FHIR Observations with
LOINC and UCUM, coded procedures and devices, medications with their status and
ingredients, coded conditions with their clinical status and onset, allergies), with
evidence spans in the rendered text of the resource.

Each gate names its codes in `resources/gates/codes/<gate_id>.json` (schema
``concord.gate-codes/1``, `concord.screen.coded_lists`); thresholds, comparators, windows,
history, medicine status rules, stent windows and the BMI limit are not repeated there:
they are read from the gate's own rules (`limits_of`), so each has one owner. What a value,
a status or a date means: `concord.screen.coded_values` and `concord.screen.coded_events`.

How coded findings combine with the text screen (`merge_hits`):
* a series of one test: the most recent value decides; earlier values that cross the
  threshold are reported as negated ("superseded by ...") when a later one does not;
* coded and free text disagree (a letter says K+ 4.1, the Observation 6.4): both are shown
  and the gate follows the worse - it fires if either fires; the detail names both;
* a FHIR resource the coded screen read for a gate is read from its codes, status and
  dates, not from its rendered text: the text screen's reading of that resource's document
  (which cannot see that a MedicationStatement is "stopped", or that a Condition's onset
  was in 2019) gives way to the coded one for that gate. A resource entered in error is
  not the patient's data: nothing read from its text fires.
* a medicine's dose, route and duration are written in its dosage text, which the text
  screen reads: where a gate's medication rule weighs them (a preventive heparin dose, a
  steroid below 5 mg a day, an inhaled steroid, a short course), the dosage line the
  renderer wrote is read by the text screen's own medication reader (`FreeTextValues`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from concord import paths
from concord.domain.coded import CodedFact, FactKind
from concord.domain.gate import GateHit, GateStatus
from concord.domain.record import DocumentKind, Record, SourceDocument, Span, SpanText
from concord.errors import InputError
from concord.records.ucum import UcumError, to_unit
from concord.screen.coded_events import (
    PLANNED,
    MedicationReading,
    allergy_findings,
    condition_findings,
    current_condition,
    current_medication,
    device_findings,
    exposure_finding,
    medication_matches,
    procedure_findings,
    stent_findings,
)
from concord.screen.coded_lists import (
    CODES_SCHEMA,
    CodedFinding,
    CodeMatcher,
    GateCodes,
    GateLimits,
    MedicationCodes,
    MedicationLimit,
    NotEvaluated,
    NumericLimit,
    ObservationCodes,
    limits_of,
    pairs,
)
from concord.screen.coded_values import (
    TextValue,
    Value,
    bmi_findings,
    fmt,
    numeric_findings,
    read_values,
    result_findings,
    rising_findings,
)
from concord.screen.dates import surgery_date
from concord.screen.findings import MAX_EVIDENCE_SPANS
from concord.screen.lexicon import Lexicon
from concord.screen.units import UnitTable
from concord.text.resource_file import read_resource_file

if TYPE_CHECKING:
    from concord.screen.findings import Finding
    from concord.screen.record_screen import RecordScreen
    from concord.screen.rules import GateDefinition

__all__ = [
    "CODES_SCHEMA",
    "CodedFinding",
    "CodedScreen",
    "FreeTextValues",
    "GateCodes",
    "GateLimits",
    "NotEvaluated",
    "TextValue",
    "gate_limits",
    "limits_of",
    "merge_hits",
]

MAX_CODED_SPANS = 8
IGNORED_STATUSES = frozenset({"entered-in-error", "cancelled", "not-done", "not-taken"})
ROOM_AIR_FIO2 = 21.0

TextValues = Callable[[Record, str, str | None], list[TextValue]]
"""(record, lexicon concept, units.json quantity) -> the values free text gives for it."""


@runtime_checkable
class TextReader(Protocol):
    """The text screen's readers the coded screen borrows (`FreeTextValues`)."""

    def __call__(self, record: Record, concept: str, quantity: str | None) -> list[TextValue]:
        """The values free text gives for a quantity concept."""
        ...

    def dosage(self, record: Record, resources: Sequence[str], reference: date) -> list[Finding]:
        """Findings of the text screen on the first line (name and dosage) of each of the
        resources' rendered documents."""
        ...

    def affirmed(self, record: Record, concepts: Sequence[str]) -> bool:
        """Whether the record names any of the concepts in the patient, not negated."""
        ...


class FreeTextValues:
    """The text screen's own readers, for the coded screen: values of a concept in the
    record's free-text documents (`RecordScreen.values_of`: tables, combined fields, units,
    series), the dosage line of a medication resource (its medication rules: dose, route,
    duration), and whether the record names a concept - so that coded data and a letter are
    read with one reading."""

    def __init__(self, screen: RecordScreen) -> None:
        self.screen = screen
        self._record: Record | None = None
        self._values: dict[str, list[TextValue]] = {}  # of `_record`, per concept

    def __call__(self, record: Record, concept: str, quantity: str | None) -> list[TextValue]:
        del quantity  # the gate rule that reads the concept names its quantity
        if record is not self._record:
            self._record, self._values = record, {}
        if concept not in self._values:  # several gates ask for one concept: read it once
            self._values[concept] = [
                TextValue(Span(source_id=v.source_id, start=v.start, end=v.end), v.value, v.written)
                for v in self.screen.values_of(
                    record, concept, skip_kinds=frozenset({DocumentKind.FHIR})
                )
            ]
        return self._values[concept]

    def dosage(self, record: Record, resources: Sequence[str], reference: date) -> list[Finding]:
        lines = []
        for resource in dict.fromkeys(resources):
            text = record.document(resource).text.split("\n", 1)[0]
            if text.strip():
                lines.append(SourceDocument(source_id=resource, kind=DocumentKind.TXT, text=text))
        if not lines:
            return []
        dosage = Record(name=f"{record.name} (dosage lines)", documents=tuple(lines))
        return self.screen.findings(dosage, today=reference)

    def affirmed(self, record: Record, concepts: Sequence[str]) -> bool:
        from concord.screen.context import HistoryPolicy

        screening = self.screen.prepare(record)
        for d, m in screening.mentions(list(concepts)):
            situation = screening.situation(m, HistoryPolicy.COUNTS)
            if screening.context.verdict(d, m.start, m.end, situation) is None:
                return True
        return False


class CodedScreen:
    """The code lists with the limits of their gates. Build with `CodedScreen.load`."""

    def __init__(
        self,
        code_lists: Sequence[GateCodes],
        limits: dict[str, GateLimits],
        units: UnitTable | None = None,
    ) -> None:
        self.code_lists = sorted(code_lists, key=lambda c: c.gate_id)
        self.limits = limits
        self.units = units

    @classmethod
    def load(
        cls, resources: Path | None = None, limits: dict[str, GateLimits] | None = None
    ) -> CodedScreen:
        """Code lists from `<resources>/gates/codes/*.json`; limits from the gate files
        (`gate_limits`) unless given. A list that names a concept no rule of its gate reads,
        or a value that needs a concept beside it the list cannot show, is refused."""
        root = resources or paths.resources_dir()
        folder = root / "gates" / "codes"
        files = sorted(folder.glob("*.json")) if folder.is_dir() else []
        code_lists = [read_resource_file(path, GateCodes, "gate code list") for path in files]
        limits = limits if limits is not None else gate_limits(root)
        units_file = root / "lexicon" / "units.json"
        units = UnitTable.load(units_file) if units_file.is_file() else None
        seen: set[str] = set()
        for path, codes in zip(files, code_lists, strict=True):
            if codes.gate_id in seen:
                raise InputError(f"second code list for gate {codes.gate_id}", subject=path)
            seen.add(codes.gate_id)
            if codes.gate_id not in limits:
                raise InputError(f"code list for unknown gate {codes.gate_id!r}", subject=path)
            problem = _check(codes, limits[codes.gate_id])
            if problem:
                raise InputError(f"gate {codes.gate_id} {problem}", subject=path)
        return cls(code_lists, limits, units)

    # -- evaluation -----------------------------------------------------------------------

    def evaluate(
        self,
        record: Record,
        *,
        today: date | None = None,
        text_values: TextValues | None = None,
    ) -> tuple[list[CodedFinding], list[NotEvaluated]]:
        """Coded findings for every gate with a code list, in gate order, then those of the
        gates that follow other gates. With `text_values`, a free-text value of the same test
        on the other side of the threshold from the coded one is added to the finding (both
        are shown); with the text screen's readers (`FreeTextValues`), a medicine's dosage
        line is read where its rule weighs the dose, and a requirement the codes do not show
        (diabetes for an SGLT2 inhibitor) is looked for in the text."""
        findings: list[CodedFinding] = []
        skipped: list[NotEvaluated] = []
        facts = [f for f in record.coded if f.status not in IGNORED_STATUSES]
        reference = self._reference_date(record, today)
        reader = text_values if isinstance(text_values, TextReader) else None
        dosage = self._dosage(record, facts, reference, reader)
        for codes in self.code_lists:
            limits = self.limits[codes.gate_id]
            found, problems = self._observations(
                codes, limits, record, facts, reference, text_values
            )
            findings.extend(found)
            skipped.extend(problems)
            for entry in codes.results:
                window = _window(limits, entry.concept)
                findings.extend(result_findings(codes.gate_id, entry, facts, reference, window))
            findings.extend(
                self._medications(codes, limits, record, facts, reference, reader, dosage)
            )
            for conditions in codes.condition_lists():
                findings.extend(
                    condition_findings(codes.gate_id, conditions, limits, facts, reference)
                )
            for procedures in codes.procedures:
                findings.extend(
                    procedure_findings(codes.gate_id, procedures, limits, facts, reference)
                )
            for devices in codes.devices:
                findings.extend(device_findings(codes.gate_id, devices, facts, reference))
            for allergies in codes.allergies:
                findings.extend(allergy_findings(codes.gate_id, allergies, facts))
            if codes.stents is not None and limits.des_days and limits.bms_days:
                findings.extend(
                    stent_findings(codes.gate_id, codes.stents, limits, facts, reference)
                )
        unique = list(dict.fromkeys(findings))  # one condition read by two lists of a gate
        return unique + self._following(unique), skipped

    @staticmethod
    def _reference_date(record: Record, today: date | None) -> date:
        planned = [
            f.effective
            for f in record.coded
            if f.kind is FactKind.PROCEDURE and f.status in PLANNED and f.effective
        ]
        if planned:
            return min(planned)
        stated = surgery_date([d.text for d in record.documents])
        return stated or today or datetime.now(UTC).date()

    def _following(self, findings: Sequence[CodedFinding]) -> list[CodedFinding]:
        """A gate that fires where other gates fire ("also when a major cardiac gate
        applies") takes their coded findings, with the other gate named."""
        out = []
        for gate_id, limits in self.limits.items():
            for other in limits.also_gates:
                title = self.limits[other].title if other in self.limits else other
                for finding in findings:
                    if finding.gate_id == other:
                        out.append(
                            replace(finding, gate_id=gate_id, detail=f"{title}: {finding.detail}")
                        )
        return out

    # -- observations -----------------------------------------------------------------------

    def _observations(
        self,
        codes: GateCodes,
        limits: GateLimits,
        record: Record,
        facts: Sequence[CodedFact],
        reference: date,
        text_values: TextValues | None,
    ) -> tuple[list[CodedFinding], list[NotEvaluated]]:
        findings: list[CodedFinding] = []
        skipped: list[NotEvaluated] = []
        read: list[list[Value]] = []
        values: dict[str, list[Value]] = defaultdict(list)  # per concept, every entry's
        for entry in codes.observations:
            quantity = next((lim.quantity for lim in limits.numeric.get(entry.concept, ())), None)
            found, problems = read_values(codes.gate_id, entry, facts, quantity, self.units)
            read.append(found)
            values[entry.concept].extend(found)
            skipped.extend(problems)
        for entry, found in zip(codes.observations, read, strict=True):
            if not found:
                continue
            for limit in limits.numeric.get(entry.concept, ()):
                if not self._applies(limit, entry, values, record, facts, reference, text_values):
                    continue
                written = (
                    text_values(record, entry.concept, limit.quantity)
                    if text_values is not None
                    else []
                )
                findings.extend(
                    numeric_findings(
                        codes.gate_id,
                        entry,
                        limit,
                        found,
                        written,
                        lambda v: self._oxygen_note(codes, v.fact, facts),
                        reference,
                        _window(limits, entry.concept),
                    )
                )
            if entry.concept in limits.rising:
                findings.extend(
                    rising_findings(codes.gate_id, entry, limits.rising[entry.concept], found)
                )
        if limits.bmi is not None and codes.observations:
            units = {e.concept: e.ucum_unit for e in codes.observations}
            if {limits.bmi.weight, limits.bmi.height} <= set(units) or limits.bmi.concept in units:
                findings.extend(bmi_findings(codes.gate_id, limits.bmi, values, units))
        return findings, skipped

    @staticmethod
    def _applies(
        limit: NumericLimit,
        entry: ObservationCodes,
        values: dict[str, list[Value]],
        record: Record,
        facts: Sequence[CodedFact],
        reference: date,
        text_values: TextValues | None,
    ) -> bool:
        """A rule that needs a concept beside the value (a rate with AF) applies where the
        record holds it as a current coded condition; one that stands aside where another
        quantity is given (a haematocrit where a haemoglobin is) applies where neither the
        codes nor the text give that quantity."""
        if limit.near:
            if entry.with_conditions is None:
                return False
            if current_condition(entry.with_conditions, facts, reference) is None:
                return False
        for other in limit.only_without:
            if values.get(other):
                return False
            if text_values is not None and text_values(record, other, None):
                return False
        return True

    @staticmethod
    def _oxygen_note(codes: GateCodes, fact: CodedFact, facts: Sequence[CodedFact]) -> str:
        oxygen = codes.inspired_oxygen
        if oxygen is None:
            return ""
        concentration = CodeMatcher(oxygen.concentration, oxygen.names_concentration)
        flow = CodeMatcher(oxygen.flow, oxygen.names_flow)
        parts = [(c.codes, c.name, c.quantity) for c in fact.components]
        parts += [
            (f.codes, f.name, f.quantity)
            for f in facts
            if f.kind is FactKind.OBSERVATION and f is not fact and f.effective == fact.effective
        ]
        for part_codes, name, quantity in parts:
            if quantity is None:
                continue
            if concentration.matches(pairs(part_codes), name):
                try:
                    fio2 = to_unit(quantity.value, quantity.unit, "%")
                except UcumError:
                    continue
                if fio2 <= ROOM_AIR_FIO2:
                    return f" on room air (FiO2 {fmt(fio2)}%)"
                return f" on supplemental oxygen (FiO2 {fmt(fio2)}%)"
            if flow.matches(pairs(part_codes), name):
                try:
                    litres = to_unit(quantity.value, quantity.unit, "L/min")
                except UcumError:
                    continue
                if litres <= 0:
                    return " on room air (oxygen flow 0)"
                return f" on supplemental oxygen ({fmt(litres)} L/min)"
        return " (inspired oxygen not stated: read as room air)"

    # -- medications ------------------------------------------------------------------------

    def _dosage(
        self,
        record: Record,
        facts: Sequence[CodedFact],
        reference: date,
        reader: TextReader | None,
    ) -> dict[tuple[str, str], list[Finding]]:
        """The text screen's reading of the dosage line of every coded medicine whose gate
        weighs its dose, route or duration: one reading for the record."""
        if reader is None:
            return {}
        wanted: list[str] = []
        for codes in self.code_lists:
            limits = self.limits[codes.gate_id]
            for group in codes.medication_lists():
                limit = _medication_limit(limits, group)
                if limit is None or not limit.reads_dose:
                    continue
                wanted += [
                    f.resource
                    for f in facts
                    if f.kind is FactKind.MEDICATION and medication_matches(group, f)[0]
                ]
        out: dict[tuple[str, str], list[Finding]] = defaultdict(list)
        for finding in reader.dosage(record, wanted, reference) if wanted else []:
            out[(finding.source_id, finding.gate_id)].append(finding)
        return out

    def _medications(
        self,
        codes: GateCodes,
        limits: GateLimits,
        record: Record,
        facts: Sequence[CodedFact],
        reference: date,
        reader: TextReader | None,
        dosage: dict[tuple[str, str], list[Finding]],
    ) -> list[CodedFinding]:
        out: list[CodedFinding] = []
        for group in codes.medication_lists():
            limit = _medication_limit(limits, group)
            for fact in facts:
                if fact.kind is not FactKind.MEDICATION:
                    continue
                matched, via = medication_matches(group, fact)
                if not matched:
                    continue
                if limit is None:
                    out.append(exposure_finding(codes.gate_id, fact, via))
                    continue
                reading = current_medication(fact, via, limit, reference)
                if reading.status is GateStatus.TRIGGERED and limit.requires:
                    required = self._required(
                        group, limit.requires, record, facts, reference, reader
                    )
                    if required is None:
                        continue  # nothing to read it by: left to the text screen
                    if not required:
                        reading = replace(
                            reading,
                            status=GateStatus.NEGATED,
                            detail=f"{reading.detail}; taken without "
                            f"{' or '.join(limit.requires)} in the record",
                        )
                if reading.status is GateStatus.TRIGGERED and limit.reads_dose:
                    reading = _with_dosage(reading, dosage.get((fact.resource, codes.gate_id), []))
                out.append(
                    CodedFinding(codes.gate_id, reading.status, reading.spans, reading.detail)
                )
        return out

    @staticmethod
    def _required(
        group: MedicationCodes,
        concepts: Sequence[str],
        record: Record,
        facts: Sequence[CodedFact],
        reference: date,
        reader: TextReader | None,
    ) -> bool | None:
        """Whether the record shows what the rule requires: a current coded condition from
        the list's `requires`, else the text; None where neither can be read."""
        if group.requires is not None and current_condition(group.requires, facts, reference):
            return True
        if reader is None:
            return None
        return reader.affirmed(record, concepts)


def _with_dosage(reading: MedicationReading, found: Sequence[Finding]) -> MedicationReading:
    """The dosage line's reading by the text screen: a preventive dose, a daily dose below
    the rule's, a route that is not systemic or a short course makes it negated; else the
    coded status stands and the detail says what the dosage shows."""
    triggered = [f for f in found if f.status is GateStatus.TRIGGERED]
    negated = [f for f in found if f.status is GateStatus.NEGATED]
    if negated and not triggered:
        return replace(
            reading,
            status=GateStatus.NEGATED,
            detail=f"{reading.detail}; dosage: {negated[0].detail}",
        )
    return reading


def _medication_limit(limits: GateLimits, group: MedicationCodes) -> MedicationLimit | None:
    """The medication rule a list answers to; None where the gate has none (an exposure)."""
    if group.concept:
        return limits.medications.get(group.concept)
    if limits.medications:
        return next(iter(limits.medications.values()))
    return None


def _window(limits: GateLimits, concept: str) -> int | None:
    """The event window a concept's lexicon or graded rule sets, if it sets one."""
    limit = limits.concepts.get(concept)
    if limit is None or limit.history == "counts" or limit.within_days is None:
        return None
    return limit.within_days


def _check(codes: GateCodes, limits: GateLimits) -> str:
    """What in a code list its gate's rules cannot answer, or ''."""
    for entry in codes.observations:
        if entry.concept not in limits.value_concepts():
            return f"has no numeric or rising rule for {entry.concept!r}"
        needs = [lim for lim in limits.numeric.get(entry.concept, ()) if lim.near]
        if needs and entry.with_conditions is None:
            return (
                f"reads {entry.concept!r} only with {', '.join(needs[0].near)} beside it: "
                "the code list needs with_conditions"
            )
    for group in codes.medication_lists():
        if group.concept and group.concept not in limits.medications:
            return f"has no medication rule for {group.concept!r}"
        if not group.concept and len(set(limits.medications.values())) > 1:
            return "has several medication rules: each medication list names its concept"
    named = [c.concept for c in codes.condition_lists()]
    named += [p.concept for p in codes.procedures] + [d.concept for d in codes.devices]
    named += [r.concept for r in codes.results]
    for concept in named:
        if concept and concept not in limits.concepts:
            return f"has no lexicon or graded rule for {concept!r}"
        if concept and not limits.concepts[concept].fires:
            return f"reads {concept!r} only where it is negated: nothing coded can fire it"
    return ""


def gate_limits(resources: Path | None = None) -> dict[str, GateLimits]:
    """Per gate, the limits of its rules (`limits_of`), read from the gate files."""
    from concord.screen.rules import read_gate_file

    root = resources or paths.resources_dir()
    lexicon = Lexicon.load(root / "lexicon")
    units = UnitTable.load(root / "lexicon" / "units.json")
    gates = (
        read_gate_file(path, lexicon, units) for path in sorted((root / "gates").glob("*.json"))
    )
    return {gate.gate_id: limits_of(gate) for gate in gates}


# -- joining the text screen ---------------------------------------------------------------------


def _read_by_code(
    record: Record, findings: Sequence[CodedFinding]
) -> tuple[dict[str, set[str]], set[str]]:
    """Per gate, the resource documents the coded screen read for it; and the resources
    entered in error (no fact of theirs is the patient's data)."""
    resources: dict[str, list[CodedFact]] = defaultdict(list)
    for fact in record.coded:
        resources[fact.resource].append(fact)
    decided: dict[str, set[str]] = defaultdict(set)
    for finding in findings:
        for span in finding.spans:
            if span.source_id in resources:
                decided[finding.gate_id].add(span.source_id)
    void = {
        resource
        for resource, facts in resources.items()
        if all(f.status in IGNORED_STATUSES for f in facts)
    }
    return decided, void


def _text_beside_codes(text: GateHit, dropped: set[str]) -> GateHit | None:
    """The text screen's hit without what it read from the resources in `dropped`: None
    when nothing else is left. A hit whose evidence list is full may have read more than it
    shows, so it stands then (in doubt, the text's reading is kept)."""
    kept = tuple(s for s in text.evidence if s.source_id not in dropped)
    if len(kept) == len(text.evidence):
        return text
    if len(text.evidence) >= MAX_EVIDENCE_SPANS:
        return text.model_copy(update={"evidence": kept}) if kept else text
    return text.model_copy(update={"evidence": kept}) if kept else None


def merge_hits(
    record: Record,
    text_hits: Sequence[GateHit],
    findings: Sequence[CodedFinding],
    definitions: dict[str, GateDefinition],
) -> tuple[GateHit, ...]:
    """The text screen's hits with the coded findings joined in: a gate fires if either
    fires (the worse); coded evidence first, then the text's; the detail names both when
    they disagree. What the text read from a resource the codes decided for that gate (or
    from a resource entered in error) is left out first. `definitions`
    (RecordScreen.definitions) give the title, severity and specialty of a gate only coded
    data fired."""
    by_gate: dict[str, list[CodedFinding]] = defaultdict(list)
    for finding in findings:
        by_gate[finding.gate_id].append(finding)
    decided, void = _read_by_code(record, findings)
    text_by_gate: dict[str, GateHit] = {}
    for hit in text_hits:
        kept = _text_beside_codes(hit, decided.get(hit.gate_id, set()) | void)
        if kept is not None:
            text_by_gate[hit.gate_id] = kept
    order = [hit.gate_id for hit in text_hits] + [g for g in by_gate if g not in text_by_gate]
    out: list[GateHit] = []
    for gate_id in dict.fromkeys(order):
        text = text_by_gate.get(gate_id)
        coded = by_gate.get(gate_id, [])
        if not coded:
            if text is not None:
                out.append(text)
            continue
        template: GateHit | GateDefinition | None = text or definitions.get(gate_id)
        if template is None:
            continue  # a coded finding for a gate the screen does not know
        triggered = [f for f in coded if f.status is GateStatus.TRIGGERED]
        coded_status = GateStatus.TRIGGERED if triggered else GateStatus.NEGATED
        status = (
            GateStatus.TRIGGERED
            if coded_status is GateStatus.TRIGGERED
            or (text and text.status is GateStatus.TRIGGERED)
            else GateStatus.NEGATED
        )
        spans: dict[tuple[str, int, int], SpanText] = {}
        for finding in triggered + [f for f in coded if f not in triggered]:
            for span in finding.spans:
                key = (span.source_id, span.start, span.end)
                if key not in spans and len(spans) < MAX_CODED_SPANS:
                    spans[key] = record.span_text(span.source_id, span.start, span.end)
        for span in text.evidence if text else ():
            spans.setdefault((span.source_id, span.start, span.end), span)
        lead = (triggered or coded)[0].detail
        more = len(triggered or coded) - 1
        detail = lead + (f" (+{more} more coded)" if more else "")
        if text is not None and text.status is not coded_status:
            detail += f"; free text {text.status.value}: {text.detail} - following the worse"
        elif text is not None:
            detail += f"; free text: {text.detail}"
        out.append(
            GateHit(
                gate_id=gate_id,
                title=template.title,
                severity=template.severity,
                status=status,
                specialty=template.specialty,
                evidence=tuple(spans.values()),
                detail=detail,
            )
        )
    return tuple(out)
