"""PDF records: text extracted page by page (pypdf) into one document; pages without a
text layer (scans) are rendered and read by OCR.

Pages are joined with PAGE_SEPARATOR and `page_starts` records where each page's text
begins, so a locator can name the page. A document with any page read by OCR has kind
"ocr" and carries the OCR layer (word confidences, boxes, page images); a PDF in which
no page has any text, typed or read, is refused rather than imported empty.
"""

from __future__ import annotations

import io
from pathlib import Path

from concord.domain import Record, SourceDocument
from concord.errors import InputError
from concord.records.files import error_detail, normalise_newlines, read_bytes
from concord.records.formats import input_format
from concord.records.ocr.engines import ocr_engine
from concord.records.ocr.images import pdf_pages
from concord.records.ocr.scan import PAGE_SEPARATOR, OcrPage, assemble, ocr_pages

__all__ = ["PAGE_SEPARATOR", "load_pdf_record", "pdf_document"]


MAX_PDF_PAGES = 2000
"""Pages one PDF may have (a text layer is read page by page; at most
`ocr.images.MAX_PAGES` of them without text are read by OCR). A small file can declare
thousands of pages: the count is checked before any page is read."""
MAX_PDF_TEXT_CHARS = 32 * 1024 * 1024
"""Characters of text one PDF may yield (its pages together)."""


def _page_texts(data: bytes, path: Path) -> list[str]:
    from pypdf import PdfReader  # heavy import, only when a PDF is loaded

    # pypdf raises many exception types on damaged files; any of them means "broken PDF".
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise InputError("PDF is password-protected", subject=path)
        count = len(reader.pages)
        if count > MAX_PDF_PAGES:
            raise InputError(
                f"PDF has {count:,} pages, over the {MAX_PDF_PAGES:,}-page limit", subject=path
            )
        texts: list[str] = []
        total = 0
        for page in reader.pages:
            texts.append(normalise_newlines(page.extract_text() or ""))
            total += len(texts[-1])
            if total > MAX_PDF_TEXT_CHARS:
                raise InputError(
                    f"PDF text is over {MAX_PDF_TEXT_CHARS:,} characters by page {len(texts)}",
                    subject=path,
                )
        return texts
    except InputError:
        raise
    except RecursionError as exc:
        raise InputError("PDF is broken (structure nested too deeply)", subject=path) from exc
    except MemoryError as exc:
        raise InputError("PDF is too large to read in the memory available", subject=path) from exc
    except Exception as exc:
        raise InputError(
            f"PDF is broken or unreadable ({error_detail(exc)})", subject=path
        ) from exc


def pdf_document(data: bytes, source_id: str, title: str, subject: Path) -> SourceDocument:
    """One document from PDF bytes: typed pages as extracted, other pages by OCR."""
    if not data.lstrip().startswith(b"%PDF"):
        raise InputError("not a PDF file (no %PDF header)", subject=subject)
    texts = _page_texts(data, subject)
    if not texts:
        raise InputError("PDF has no pages", subject=subject)
    blank = [index for index, text in enumerate(texts) if not text.strip()]
    pages: list[str | OcrPage] = list(texts)
    images = pdf_pages(data, subject, blank) if blank else None  # checks the page budget
    engine = ocr_engine() if images is not None else None
    if images is not None and engine is not None:
        for index, (image, dpi) in zip(blank, images, strict=True):  # one page at a time
            read = ocr_pages([(image, dpi)], engine, first_page=index + 1)[0]
            pages[index] = read if read.text.words else ""  # a blank page stays blank
            del image
    return assemble(source_id, title, pages, engine, subject)


@input_format("pdf", label="PDF documents (text or scanned)", suffixes=(".pdf",))
def load_pdf_record(path: Path) -> Record:
    """A one-document record with page_starts set, one entry per page."""
    document = pdf_document(read_bytes(path), path.name, path.name, path)
    return Record(name=path.name, documents=(document,))
