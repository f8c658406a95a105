"""A patient record: source documents with their exact text, and spans into them.

The one invariant of Concord: a span is `(source_id, start, end)` in characters of that
document's text, and `document.text[start:end]` is the quoted evidence.
"""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from functools import cached_property

from pydantic import Field, model_validator

from concord.domain._base import Frozen
from concord.domain.coded import CodedFact
from concord.domain.ocr import OcrLayer, UncertainSpan
from concord.domain.span import Span, SpanText

__all__ = ["DocumentKind", "Line", "Record", "SourceDocument", "Span", "SpanText"]


class DocumentKind(StrEnum):
    """How a document's text was obtained: the origin the screen and the reviewer read.

    A new input format picks the kind that says how its text was obtained; it adds a member
    here only for a new origin (the value is stored in every record, so never rename one).
    """

    TXT = "txt"  # a plain-text file
    MD = "md"  # a Markdown file
    JSON = "json"  # a document of Concord's own JSON record
    PDF = "pdf"  # the text layer of a PDF
    FHIR = "fhir"  # text rendered from a coded FHIR resource
    OCR = "ocr"  # text read by OCR from a scanned PDF or an image
    IMAGE = "image"  # an image whose text was given as typed pages (no OCR layer)


class SourceDocument(Frozen):
    source_id: str = Field(description="Stable id of the document within the record")
    title: str = Field(default="", description="Human title, e.g. 'Echo report 12/03'")
    kind: DocumentKind = Field(
        description="Origin format: txt, md, json, pdf, fhir (a rendered FHIR resource), "
        "ocr (text read by OCR from a scanned PDF or an image) or image"
    )
    text: str = Field(description="The exact text; every span indexes into it")
    page_starts: tuple[int, ...] = Field(
        default=(), description="For PDFs and scans: character offset where each page begins"
    )
    ocr: OcrLayer | None = Field(
        default=None,
        description="For text read by OCR: per-word confidence and page boxes, page images",
    )

    def page_of(self, offset: int) -> int | None:
        """1-based page number that contains `offset`, or None for non-paged documents."""
        if not self.page_starts:
            return None
        page = 0
        for index, start in enumerate(self.page_starts):
            if start <= offset:
                page = index
        return page + 1


class Line(Frozen):
    line_id: str = Field(description="Stable citation id, L1, L2 ... across the record")
    source_id: str
    start: int
    end: int
    text: str = Field(description="The line's text, without its newline")


class Record(Frozen):
    """A patient record: an ordered list of source documents."""

    name: str = Field(description="Display name, e.g. the file name or patient label")
    documents: tuple[SourceDocument, ...] = Field(min_length=1)
    operation: str | None = Field(default=None, description="Planned operation, if given")
    coded: tuple[CodedFact, ...] = Field(
        default=(),
        description="Coded data (FHIR): each fact points at the rendered text of its resource",
    )

    @model_validator(mode="after")
    def _unique_sources(self) -> Record:
        ids = [d.source_id for d in self.documents]
        if len(ids) != len(set(ids)):
            raise ValueError("source_id values must be unique within a record")
        known = set(ids)
        for fact in self.coded:
            for span in fact.spans():
                if span.source_id not in known:
                    raise ValueError(f"coded fact {fact.resource} points at unknown document")
        return self

    def uncertain_spans(self) -> tuple[UncertainSpan, ...]:
        """Words read by OCR below their document's confidence threshold, in record order.

        Evidence that overlaps one of these is never verified: a number or drug name the
        OCR was unsure of must be checked against the page image by a person.
        """
        out: list[UncertainSpan] = []
        for doc in self.documents:
            if doc.ocr is not None:
                out.extend(doc.ocr.uncertain_spans(doc.source_id, doc.text))
        return tuple(out)

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 over the documents' ids and exact texts: identical imports share it."""
        payload = json.dumps(
            [[d.source_id, d.text] for d in self.documents], ensure_ascii=False
        ).encode("utf-8")
        return hashlib.sha256(payload).hexdigest()

    @property
    def record_id(self) -> str:
        return "R-" + self.content_hash[:12]

    def document(self, source_id: str) -> SourceDocument:
        for doc in self.documents:
            if doc.source_id == source_id:
                return doc
        raise KeyError(source_id)

    def span_text(self, source_id: str, start: int, end: int) -> SpanText:
        text = self.document(source_id).text[start:end]
        return SpanText(source_id=source_id, start=start, end=end, text=text)

    @cached_property
    def lines(self) -> tuple[Line, ...]:
        """Non-blank lines of every document, numbered L1.. in document order."""
        out: list[Line] = []
        for doc in self.documents:
            offset = 0
            for raw in doc.text.splitlines(keepends=True):
                body = raw.rstrip("\r\n")
                if body.strip():
                    out.append(
                        Line(
                            line_id=f"L{len(out) + 1}",
                            source_id=doc.source_id,
                            start=offset,
                            end=offset + len(body),
                            text=body,
                        )
                    )
                offset += len(raw)
        return tuple(out)

    @cached_property
    def line_index(self) -> dict[str, Line]:
        return {line.line_id: line for line in self.lines}
