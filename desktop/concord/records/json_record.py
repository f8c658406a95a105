"""JSON records: several documents in one file.

Accepted shapes:
    {"name": str, "operation": str | null, "documents": [{"source_id", "title"?, "text"}]}
    [{"source_id", "title"?, "text"}, ...]          (name defaults to the file name)
Document texts get the same CRLF -> LF normalisation as text files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from concord.domain import DocumentKind, Record, SourceDocument
from concord.errors import InputError
from concord.records.fhir.load import record_from_fhir
from concord.records.fhir.parse import is_fhir
from concord.records.files import normalise_newlines, read_text
from concord.records.formats import input_format
from concord.records.validation import summarise_validation_error


class _JsonDocument(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source_id: str = Field(min_length=1)
    title: str = ""
    text: str


class _JsonRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    operation: str | None = None
    documents: list[_JsonDocument] = Field(min_length=1)


def parse_json(text: str, path: Path) -> Any:
    """json.loads with every failure (syntax, nesting depth, huge numbers) as InputError."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", subject=path
        ) from exc
    except RecursionError as exc:
        raise InputError("JSON is nested too deeply", subject=path) from exc
    except ValueError as exc:  # e.g. integer literals over Python's digit limit
        raise InputError(f"malformed JSON: {exc}", subject=path) from exc


@input_format("json", label="Concord or FHIR R4 JSON", suffixes=(".json",))
def load_json_record(path: Path) -> Record:
    """A FHIR Bundle or resource (see records.fhir), else Concord's own JSON record: one
    SourceDocument (kind 'json') per entry of `documents`."""
    data = parse_json(read_text(path), path)
    if is_fhir(data):
        return record_from_fhir(data, path)
    return record_from_json(data, path)


def record_from_json(data: Any, path: Path) -> Record:
    """Concord's own JSON record shape (see the module docstring)."""
    if isinstance(data, list):
        data = {"documents": data}
    try:
        parsed = _JsonRecord.model_validate(data)
        documents = tuple(
            SourceDocument(
                source_id=doc.source_id,
                title=doc.title,
                kind=DocumentKind.JSON,
                text=normalise_newlines(doc.text),
            )
            for doc in parsed.documents
        )
        record = Record(
            name=parsed.name or path.name, documents=documents, operation=parsed.operation
        )
    except ValidationError as exc:
        raise InputError(
            f"JSON is not a record: {summarise_validation_error(exc)}", subject=path
        ) from exc
    except RecursionError as exc:
        raise InputError("JSON is nested too deeply", subject=path) from exc
    if not any(doc.text.strip() for doc in record.documents):
        raise InputError("record has no text (every document is empty)", subject=path)
    return record
