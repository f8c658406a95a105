"""Plain-text and Markdown records: one document whose source_id is the file name."""

from __future__ import annotations

from pathlib import Path

from concord.domain import DocumentKind, Record, SourceDocument
from concord.records.files import read_text
from concord.records.formats import input_format


@input_format("text", label="Text and Markdown", suffixes=(".txt", ".md"))
def load_text_record(path: Path) -> Record:
    """A one-document record of kind md for a Markdown file, txt otherwise."""
    text = read_text(path)
    kind = DocumentKind.MD if path.suffix.lower() == ".md" else DocumentKind.TXT
    document = SourceDocument(source_id=path.name, title=path.name, kind=kind, text=text)
    return Record(name=path.name, documents=(document,))
