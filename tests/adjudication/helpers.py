"""Hand-built briefs for pinning the adjudication formulas.

The lexicon and gate rules here are deliberately tiny and explicit so every expected number
in the tests can be computed by hand; the real lexicon is exercised in the pipeline tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from concord.adjudication.config import load_scoring_config
from concord.domain import (
    Alignment,
    AlignmentStatus,
    Brief,
    BriefItem,
    BriefSection,
    EvidenceLine,
    GateHit,
    GateStatus,
    Record,
    Severity,
    SourceDocument,
    VerifiedEvidence,
)

RECORD_TEXT = (
    "Potassium 6.3 mmol/L on 01/11.\n"
    "SpO2 89% on room air.\n"
    "Hodgkin lymphoma treated with ABVD x6 in 2015.\n"
    "Drug-eluting stent to LAD six weeks ago, on clopidogrel.\n"
)

CONCEPTS = {
    "potassium": r"potassium|k\+",
    "spo2": r"spo2|oxygen saturation|o2 sats",
    "bleomycin": r"bleomycin|abvd",
    "stent": r"stent|des\b",
    "antiplatelet": r"clopidogrel|aspirin|antiplatelet",
    "arrhythmia": r"arrhythmia",
    "airway": r"airway",
    "anaemia": r"anaemia|haemoglobin",
    "renal": r"renal|ckd|egfr",
    "glucose": r"glucose|diabetes",
    "delay": r"\bdelay\b",
}


class TinyLexicon:
    def __init__(self) -> None:
        self._patterns = {k: re.compile(v, re.I) for k, v in CONCEPTS.items()}

    def concepts_in(self, text: str) -> frozenset[str]:
        return frozenset(k for k, p in self._patterns.items() if p.search(text))


@dataclass(frozen=True)
class TermRule:
    pattern: str

    def addressed_by(self, text: str) -> bool:
        return re.search(self.pattern, text, re.I) is not None


RULES = {
    "hyperkalaemia": TermRule(r"potassium|k\+|hyperkalaemia"),
    "hypoxaemia": TermRule(r"spo2|hypoxaemia|oxygen saturation"),
    "bleomycin_exposure": TermRule(r"bleomycin|abvd|pulmonary toxicity"),
    "recent_coronary_stent": TermRule(r"stent|\bdes\b"),
}


@pytest.fixture
def record() -> Record:
    return Record(
        name="test",
        documents=(SourceDocument(source_id="note.txt", kind="txt", text=RECORD_TEXT),),
    )


def evidence_for(
    record: Record, eid: str, quote: str, *, verified: bool = True
) -> VerifiedEvidence:
    doc = record.documents[0]
    start = doc.text.find(quote)
    if verified:
        assert start >= 0, quote
        alignment = Alignment(
            status=AlignmentStatus.EXACT,
            source_id=doc.source_id,
            start=start,
            end=start + len(quote),
            score=100.0,
        )
    else:
        alignment = Alignment(status=AlignmentStatus.FAILED, flags=("number_mismatch",))
    return VerifiedEvidence(
        evidence_id=eid,
        line=EvidenceLine(source_id=doc.source_id, locator="L1", extract_text=quote, tag="LABS"),
        alignment=alignment,
    )


def item(
    section: BriefSection, rank: int, text: str, cites: tuple[str, ...] = ("E1",)
) -> BriefItem:
    return BriefItem(
        item_id=f"{section.value}.{rank}", section=section, rank=rank, text=text, cites=cites
    )


def brief(
    agent: str,
    record: Record,
    items: list[BriefItem],
    evidence: list[VerifiedEvidence] | None = None,
) -> Brief:
    if evidence is None:
        evidence = [evidence_for(record, "E1", "Potassium 6.3 mmol/L")]
    return Brief(agent=agent, items=tuple(items), evidence=tuple(evidence))


def gate(record: Record, gate_id: str, specialty: str, quote: str) -> GateHit:
    span_start = record.documents[0].text.find(quote)
    return GateHit(
        gate_id=gate_id,
        title=gate_id.replace("_", " "),
        severity=Severity.MAJOR,
        status=GateStatus.TRIGGERED,
        specialty=specialty,
        evidence=(record.span_text("note.txt", span_start, span_start + len(quote)),),
    )


@pytest.fixture
def config():
    return load_scoring_config()


@pytest.fixture
def lexicon() -> TinyLexicon:
    return TinyLexicon()
