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

    @property
    def meaning(self) -> str:
        """What the check means, in the words a clinician is shown (the machine value stays
        in `concord verify-extracts`). It says the quote is (or is not) the record's text,
        never that the bullet citing it is right."""
        return _STATUS_MEANINGS[self]


_STATUS_MEANINGS = {
    AlignmentStatus.EXACT: "the quote is the record's text",
    AlignmentStatus.FUZZY: "the record's text, formatting aside",
    AlignmentStatus.FAILED: "not the record's text",
}


class AlignmentFlag(StrEnum):
    """What the alignment noticed. The *_mismatch, context_cut and row_join flags mean the
    extract is not the record's words (never verified); the others only inform."""

    UNKNOWN_SOURCE = "unknown_source"
    """The named source_id does not exist; every document was searched."""
    SOURCE_MISMATCH = "source_mismatch"
    """Found in a document other than the named one."""
    EMPTY_EXTRACT = "empty_extract"
    """The extract has no words."""
    NUMBER_MISMATCH = "number_mismatch"
    """A number, unit, sign or comparison differs from the closest record text."""
    NEGATION_MISMATCH = "negation_mismatch"
    """The extract adds or drops a negation, or leaves out the one that governs it."""
    WORD_MISMATCH = "word_mismatch"
    """Any other word or symbol differs from the closest record text."""
    CONTEXT_CUT = "context_cut"
    """The record's words, cut so that a governing negation, laterality word or qualifier
    (severity, grade, hedge, family history, plan, past history) falls outside."""
    ROW_JOIN = "row_join"
    """The record's words, but joining parts of different table rows."""
    OCR_UNCERTAIN = "ocr_uncertain"
    """The record text was read by OCR and a word in it fell below the confidence threshold:
    a person must check it against the page image before it counts as evidence."""
    NEGATED = "negated"
    """A negation cue governs the aligned record text (informative)."""


BLOCKING_FLAGS = frozenset(
    {
        AlignmentFlag.NUMBER_MISMATCH,
        AlignmentFlag.NEGATION_MISMATCH,
        AlignmentFlag.WORD_MISMATCH,
        AlignmentFlag.CONTEXT_CUT,
        AlignmentFlag.ROW_JOIN,
        AlignmentFlag.OCR_UNCERTAIN,
    }
)
"""Flags that make an extract not verified, whatever its status says."""


class WordChange(Frozen):
    """One place where an extract differs from the closest record text."""

    record: str = Field(description="What the record says there ('' if the quote adds words)")
    quote: str = Field(description="What the extract says instead ('' if it leaves words out)")


class Alignment(Frozen):
    status: AlignmentStatus
    source_id: str | None = Field(default=None, description="Aligned document, if any")
    start: int | None = None
    end: int | None = None
    score: float = Field(default=0.0, description="Similarity 0..100 (100 for EXACT)")
    flags: tuple[AlignmentFlag, ...] = Field(
        default=(), description="e.g. number_mismatch, negated, unknown_source"
    )
    diff: tuple[WordChange, ...] = Field(
        default=(),
        description="For an extract that is not verified: the words it changed against the "
        "closest record text (start..end), in reading order",
    )

    @property
    def verified(self) -> bool:
        """The one verdict to trust: the extract is the record's own words, in context."""
        return self.status != AlignmentStatus.FAILED and not BLOCKING_FLAGS.intersection(self.flags)


class VerifiedEvidence(Frozen):
    """An evidence line together with what code found when aligning it."""

    evidence_id: str = Field(description="Stable id within the brief, e.g. E1")
    line: EvidenceLine
    alignment: Alignment
    line_id: str | None = Field(default=None, description="Record line cited, if by id")
