"""Plain-text and Markdown records: one document whose source_id is the file name."""

from __future__ import annotations

from pathlib import Path

from concord.domain import Record, SourceDocument
from concord.records.files import read_text


def load_text_record(path: Path) -> Record:
    """A one-document record; `kind` is the suffix without the dot (txt or md)."""
    text = read_text(path)
    kind = path.suffix.lower().lstrip(".")
    document = SourceDocument(source_id=path.name, title=path.name, kind=kind, text=text)
    return Record(name=path.name, documents=(document,))
