"""The record screen: deterministic quality gates evaluated on the patient record itself.

This is Concord's answer to mutual omission: whatever the agents write, a gate the record
triggers is found here, by code, with the spans that fired it.

How a record is read:

* Each document is read as a person sees it (`concord.screen.reading`: invisible
  characters dropped, look-alikes and full-width forms folded, misspellings one slip from
  a known word corrected); every span maps back to the document's own text.
* The lexicon finds mentions; `concord.screen.sections` finds headings; the record states
  its own dates (`RecordClock`: the planned surgery, each document's date, its present).
* Each gate's rules turn mentions into findings (`concord.screen.findings.Finding`:
  gate, status, span, value, time), reading context (`concord.screen.context`), values
  (`concord.screen.values`), grades (`concord.screen.qualifiers`) and dates.
* A gate with any triggered finding is ``triggered`` (evidence: those spans); else one
  with negated findings is ``negated`` (evidence: those spans); else it is not reported.

Every step looks at a bounded neighbourhood of each mention, so the cost grows linearly
with the record.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from concord import paths
from concord.domain.gate import GateHit, GateStatus
from concord.domain.record import DocumentKind, Record
from concord.errors import InputError
from concord.screen.bmi_rule import bmi_findings
from concord.screen.coded import CodedScreen, FreeTextValues, limits_of, merge_hits
from concord.screen.context import ContextReader
from concord.screen.cues import Cues
from concord.screen.dates import document_date, record_clock
from concord.screen.document import ReadDocument
from concord.screen.findings import Finding, GateHeader, ValueSeen, hits_from_findings
from concord.screen.lexicon import Lexicon, Mention
from concord.screen.lexicon_rules import graded_findings, lexicon_findings
from concord.screen.medication_rules import medication_findings
from concord.screen.numeric_rules import (
    numeric_findings,
    observations,
    quantity_spec,
    rising_findings,
)
from concord.screen.qualifiers import Scale, load_scales
from concord.screen.reading import SpellingVocabulary, reading_text
from concord.screen.rules import (
    AnyRule,
    BmiRule,
    GateDefinition,
    GateFile,
    GatesRule,
    GradedRule,
    LexiconRule,
    MedicationRule,
    NumericRule,
    RisingRule,
    concept_ids,
    definition_of,
    read_gate_file,
)
from concord.screen.screening import Screening
from concord.screen.sections import SectionReader
from concord.screen.spelling import read_spelling
from concord.screen.stent_rule import stent_findings
from concord.screen.units import UnitTable
from concord.screen.values import ValueReader
from concord.text.context_file import context_words, read_context_file


class RecordScreen:
    """The loaded gates with their lexicon, units and context words. Build with `load`."""

    def __init__(
        self,
        gates: list[GateFile],
        lexicon: Lexicon,
        units: UnitTable,
        cues: Cues,
        scales: dict[str, Scale],
        spelling: SpellingVocabulary | None = None,
        coded: CodedScreen | None = None,
    ) -> None:
        self.lexicon = lexicon
        self.coded = coded
        self._gates_sorted = sorted(gates, key=lambda g: (g.order, g.gate_id))
        self._reading_lexicon = lexicon.restricted_to(
            cid for gate in self._gates_sorted for rule in gate.rules for cid in concept_ids(rule)
        )
        self.units = units
        self.cues = cues
        self.scales = scales
        self.spelling = spelling
        self._gates = self._gates_sorted
        self._definitions = {g.gate_id: definition_of(g, lexicon) for g in self._gates}
        self._context = ContextReader(cues)
        self._values = ValueReader(units, cues)
        self._sections = SectionReader(cues)

    @classmethod
    def load(cls, resources: Path | None = None) -> RecordScreen:
        """Gates from `<resources>/gates`; lexicon, units, context words, qualifier scales and
        spelling from `<resources>/lexicon`."""
        root = resources or paths.resources_dir()
        lexicon = Lexicon.load(root / "lexicon")
        units = UnitTable.load(root / "lexicon" / "units.json")
        cues = Cues.load(root / "lexicon" / "context.json")
        scales = load_scales(root / "lexicon" / "qualifiers.json")
        spelling_file = root / "lexicon" / "spelling.json"
        gate_dir = root / "gates"
        files = sorted(gate_dir.glob("*.json")) if gate_dir.is_dir() else []
        if not files:
            raise InputError("no gate files found", subject=gate_dir)
        gates: list[GateFile] = []
        seen: dict[str, Path] = {}
        for path in files:
            gate = read_gate_file(path, lexicon, units, scales)
            if gate.gate_id in seen:
                raise InputError(
                    f"gate {gate.gate_id} already defined in {seen[gate.gate_id].name}",
                    subject=path,
                )
            seen[gate.gate_id] = path
            gates.append(gate)
        limits = {g.gate_id: limits_of(g) for g in gates}
        screen = cls(gates, lexicon, units, cues, scales, coded=CodedScreen.load(root, limits))
        cue_words = context_words(read_context_file(root / "lexicon" / "context.json"))
        screen.spelling = read_spelling(spelling_file, screen._reading_lexicon, cue_words)
        return screen

    @property
    def definitions(self) -> dict[str, GateDefinition]:
        return dict(self._definitions)

    def owners(self) -> dict[str, tuple[str, ...]]:
        """Specialty -> the gates it owns (its own and those it shares), in display order:
        gate ownership is stated once, in the gate files."""
        out: dict[str, list[str]] = {}
        for gate in self._gates:
            for specialty in (gate.specialty, *gate.also_specialties):
                out.setdefault(specialty, []).append(gate.gate_id)
        return {k: tuple(v) for k, v in out.items()}

    @property
    def gates(self) -> tuple[GateFile, ...]:
        """The loaded gate files, in display order."""
        return tuple(self._gates)

    # -- screening ------------------------------------------------------------------------

    def screen(self, record: Record, *, today: date | None = None) -> tuple[GateHit, ...]:
        """Every gate the record triggers or mentions negated, in gate order: the text's
        findings, joined with what the record's coded data (FHIR) fires, where it has any."""
        headers = [GateHeader(g.gate_id, g.title, g.severity, g.specialty) for g in self._gates]
        hits = hits_from_findings(headers, self.findings(record, today=today), record)
        if self.coded is None or not record.coded:
            return hits
        coded, _ = self.coded.evaluate(record, today=today, text_values=FreeTextValues(self))
        return merge_hits(record, hits, coded, self.definitions)

    def findings(self, record: Record, *, today: date | None = None) -> list[Finding]:
        """Every finding of every gate, with spans in the documents' own text."""
        screening = self.prepare(record, today=today)
        out: list[Finding] = []
        derived: list[tuple[str, GatesRule]] = []
        for gate in self._gates:
            for rule in gate.rules:
                if isinstance(rule, GatesRule):
                    derived.append((gate.gate_id, rule))
                else:
                    out.extend(self._apply(gate.gate_id, rule, screening))
        for gate_id, rule in derived:
            out.extend(self._where_gates_fire(gate_id, rule, out))
        return out

    def _where_gates_fire(
        self, gate_id: str, rule: GatesRule, found: list[Finding]
    ) -> Iterator[Finding]:
        """One finding per listed gate that fires, at the first span that fired it."""
        for other in rule.gate_ids:
            first = next(
                (f for f in found if f.gate_id == other and f.status is GateStatus.TRIGGERED),
                None,
            )
            if first is not None:
                title = self._definitions[other].title if other in self._definitions else other
                yield replace(first, gate_id=gate_id, detail=f"{title}: {first.detail}")

    def prepare(self, record: Record, *, today: date | None = None) -> Screening:
        """The record read for screening: documents, mentions, sections and clock."""
        today = today or datetime.now(UTC).date()
        documents = []
        for index, doc in enumerate(record.documents):
            read = reading_text(doc.text, self.spelling)
            documents.append(
                ReadDocument(
                    doc=doc,
                    index=index,
                    read=read,
                    mentions=self._not_names(read.text, self._reading_lexicon.mentions(read.text)),
                    sections=self._sections.read(read.text),
                    written=document_date(read.text),
                )
            )
        clock = record_clock(
            [d.text for d in documents], today, tuple(d.written for d in documents)
        )
        return Screening(
            documents=tuple(documents),
            clock=clock,
            lexicon=self._reading_lexicon,
            context=self._context,
            values=self._values,
            scales=self.scales,
        )

    def _not_names(self, text: str, mentions: list[Mention]) -> list[Mention]:
        """The mentions that are not a person's name after a title ("Dr Aki" names no acute
        kidney injury, "Nurse Tia Morgan" no TIA)."""
        names = [m.span("name") for m in self.cues.person_name.finditer(text)]
        if not names:
            return mentions
        starts = [start for start, _ in names]

        def in_name(m: Mention) -> bool:
            i = bisect_right(starts, m.start) - 1
            return i >= 0 and m.end <= names[i][1]

        return [m for m in mentions if not in_name(m)]

    def values_of(
        self, record: Record, concept: str, *, skip_kinds: frozenset[DocumentKind] = frozenset()
    ) -> list[ValueSeen]:
        """Every result written in the record for a quantity concept ("potassium"), read as
        the gates read it (tables, combined fields, units, series, dates) in the unit of the
        gate rule that reads it; targets, thresholds, relatives' and protocols' values left
        out. Documents whose kind is in `skip_kinds` are not read."""
        rule = self._value_rule(concept)
        if rule is None:
            return []
        screening = self.prepare(record)
        out: list[ValueSeen] = []
        for o in observations(screening, concept, quantity_spec(rule), lambda _v: False, []):
            if o.d.doc.kind in skip_kinds or o.value.low != o.value.high or not o.eligible:
                continue
            start, end = o.d.span(min(o.label.start, o.value.start), o.value.end)
            out.append(
                ValueSeen(
                    source_id=o.d.source_id,
                    start=start,
                    end=end,
                    value=o.value.low,
                    written=" ".join(o.d.doc.text[start:end].split()),
                    time=o.when,
                )
            )
        return out

    def _value_rule(self, concept: str) -> NumericRule | RisingRule | None:
        for gate in self._gates:
            for rule in gate.rules:
                if isinstance(rule, NumericRule | RisingRule) and rule.concept == concept:
                    return rule
        return None

    def _apply(self, gate_id: str, rule: AnyRule, s: Screening) -> Iterator[Finding]:
        if isinstance(rule, LexiconRule):
            return lexicon_findings(gate_id, rule, s)
        if isinstance(rule, GradedRule):
            return graded_findings(gate_id, rule, s)
        if isinstance(rule, NumericRule):
            unit = self.units.canonical.get(rule.quantity, "") if rule.quantity else ""
            return numeric_findings(gate_id, rule, s, unit)
        if isinstance(rule, RisingRule):
            return rising_findings(gate_id, rule, s)
        if isinstance(rule, MedicationRule):
            return medication_findings(gate_id, rule, s)
        if isinstance(rule, BmiRule):
            return bmi_findings(gate_id, rule, s)
        if isinstance(rule, GatesRule):
            return iter(())  # read after every other gate (`_where_gates_fire`)
        return stent_findings(gate_id, rule, s)


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
