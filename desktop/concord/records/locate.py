"""Human locators for offsets: the record line id, plus the page for PDFs."""

from __future__ import annotations

from bisect import bisect_right

from concord.domain import Line, Record


def line_at(record: Record, source_id: str, offset: int) -> Line | None:
    """The record line containing `offset`; in a blank stretch, the last line before it
    (or the document's first line if there is none before). None if the document has no
    non-blank line at all."""
    lines = [line for line in record.lines if line.source_id == source_id]
    if not lines:
        return None
    index = bisect_right([line.start for line in lines], offset) - 1
    return lines[max(index, 0)]


def locator_for(record: Record, source_id: str, start: int) -> str:
    """E.g. 'L12', or 'L12 p3' in a paged (PDF) document. Raises KeyError for an unknown
    source_id."""
    document = record.document(source_id)
    line = line_at(record, source_id, start)
    parts = [line.line_id] if line is not None else []
    page = document.page_of(start)
    if page is not None:
        parts.append(f"p{page}")
    return " ".join(parts)
