"""PDF records: text extracted page by page (pypdf) into one document.

Pages are joined with PAGE_SEPARATOR and `page_starts` records where each page's text
begins, so a locator can name the page. A PDF without extractable text (e.g. a scan) is
refused rather than imported empty.
"""

from __future__ import annotations

import io
from pathlib import Path

from concord.domain import Record, SourceDocument
from concord.errors import InputError
from concord.records.files import normalise_newlines, read_bytes

PAGE_SEPARATOR = "\n\f\n"
"""Between pages: a form feed on its own line (blank to `Record.lines`)."""


def _page_texts(data: bytes, path: Path) -> list[str]:
    from pypdf import PdfReader  # heavy import, only when a PDF is loaded

    # pypdf raises many exception types on damaged files; any of them means "broken PDF".
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise InputError("PDF is password-protected", subject=path)
        return [normalise_newlines(page.extract_text() or "") for page in reader.pages]
    except InputError:
        raise
    except RecursionError as exc:
        raise InputError("PDF is broken (structure nested too deeply)", subject=path) from exc
    except Exception as exc:
        detail = " ".join(str(exc).split())[:120] or type(exc).__name__
        raise InputError(f"PDF is broken or unreadable ({detail})", subject=path) from exc


def load_pdf_record(path: Path) -> Record:
    """A one-document record (kind 'pdf') with page_starts set, one entry per page."""
    data = read_bytes(path)
    if not data.lstrip().startswith(b"%PDF"):
        raise InputError("not a PDF file (no %PDF header)", subject=path)
    pages = _page_texts(data, path)
    if not pages:
        raise InputError("PDF has no pages", subject=path)
    if not any(page.strip() for page in pages):
        raise InputError("PDF has no extractable text (scanned image?)", subject=path)
    starts: list[int] = []
    offset = 0
    for page in pages:
        starts.append(offset)
        offset += len(page) + len(PAGE_SEPARATOR)
    document = SourceDocument(
        source_id=path.name,
        title=path.name,
        kind="pdf",
        text=PAGE_SEPARATOR.join(pages),
        page_starts=tuple(starts),
    )
    return Record(name=path.name, documents=(document,))
