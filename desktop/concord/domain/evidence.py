"""Evidence-pack lines (the JSONL interchange format) and their alignment to the record."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from concord.domain._base import Frozen


class EvidenceLine(Frozen):
    """One line of an evidence pack, in the JSONL interchange shape of Clegg et al. (2025),
    "Evaluating Metrics for Safety with LLM-as-Judges"."""

    source_id: str = Field(description="Document the extract was taken from")
    locator: str = Field(description="Where in the document: line id, page, section")
    extract_text: str = Field(description="The verbatim extract")
    tag: str = Field(description="Domain vocabulary tag of the agent's specialty")
    comment: str = Field(default="", description="At most 12 words")


class AlignmentStatus(StrEnum):
    EXACT = "EXACT"
    FUZZY = "FUZZY"
    FAILED = "FAILED"


class Alignment(Frozen):
    status: AlignmentStatus
    source_id: str | None = Field(default=None, description="Aligned document, if any")
    start: int | None = None
    end: int | None = None
    score: float = Field(default=0.0, description="Similarity 0..100 (100 for EXACT)")
    flags: tuple[str, ...] = Field(
        default=(), description="e.g. number_mismatch, negated, unknown_source"
    )

    @property
    def verified(self) -> bool:
        """Shown as verified only when aligned and no number/unit/negation mismatch."""
        return self.status != AlignmentStatus.FAILED and not (
            {"number_mismatch", "negation_mismatch"} & set(self.flags)
        )


class VerifiedEvidence(Frozen):
    """An evidence line together with what code found when aligning it."""

    evidence_id: str = Field(description="Stable id within the brief, e.g. E1")
    line: EvidenceLine
    alignment: Alignment
    line_id: str | None = Field(default=None, description="Record line cited, if by id")
