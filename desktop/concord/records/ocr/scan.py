"""Scanned documents: OCR each page image and assemble one SourceDocument (kind "ocr")
whose text is what was read, with every word's offsets, page box and confidence, and the
page images kept so a person can check a value against the scan."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from concord.domain.ocr import OcrLayer, OcrWord, PageImage
from concord.domain.record import DocumentKind, SourceDocument
from concord.errors import InputError
from concord.records.ocr.engines import DEFAULT_ENGINE, OcrEngine, ocr_engine
from concord.records.ocr.images import stored_page
from concord.records.ocr.layout import PageText, page_text

PAGE_SEPARATOR = "\n\f\n"
"""Between pages: a form feed on its own line (as for PDFs with a text layer)."""
OCR_TITLE_MARK = "(scanned, read by OCR)"


@dataclass(frozen=True)
class OcrPage:
    text: PageText
    image: PageImage


def read_page(image: Image.Image, dpi: int, page: int, engine: OcrEngine) -> OcrPage:
    return OcrPage(page_text(engine.read(image)), stored_page(image, page, dpi))


def ocr_pages(
    images: Iterable[tuple[Image.Image, int]], engine: OcrEngine | None = None, first_page: int = 1
) -> list[OcrPage]:
    """Read each page in turn; a page's image is dropped once read (only its stored JPEG is
    kept), so an iterator of pages is decoded one page at a time."""
    engine = engine or ocr_engine(DEFAULT_ENGINE)
    return [
        read_page(image, dpi, first_page + index, engine)
        for index, (image, dpi) in enumerate(images)
    ]


def assemble(
    source_id: str,
    title: str,
    pages: Sequence[str | OcrPage],
    engine: OcrEngine | None,
    subject: Path | str,
    typed_kind: DocumentKind = DocumentKind.PDF,
) -> SourceDocument:
    """One document from pages that are either typed text or OCR results. InputError when
    no page has any text (an image with no text, a blank scan). Without OCR pages (or
    `engine` None) the document has `typed_kind`."""
    texts: list[str] = []
    starts: list[int] = []
    words: list[OcrWord] = []
    images: list[PageImage] = []
    offset = 0
    confidences: list[float] = []
    for number, page in enumerate(pages, start=1):
        starts.append(offset)
        if isinstance(page, OcrPage):
            texts.append(page.text.text)
            images.append(page.image)
            for placed in page.text.words:
                confidences.append(placed.word.confidence)
                words.append(
                    OcrWord(
                        start=offset + placed.start,
                        end=offset + placed.end,
                        page=number,
                        box=placed.word.box,
                        confidence=round(min(max(placed.word.confidence, 0.0), 1.0), 4),
                    )
                )
        else:
            texts.append(page)
        offset += len(texts[-1]) + len(PAGE_SEPARATOR)
    if not any(text.strip() for text in texts):
        what = "image" if typed_kind is not DocumentKind.PDF else "scanned PDF"
        raise InputError(f"{what} has no text (OCR read nothing on any page)", subject=subject)
    if engine is None or not images:
        return SourceDocument(
            source_id=source_id,
            title=title,
            kind=typed_kind,
            text=PAGE_SEPARATOR.join(texts),
            page_starts=tuple(starts),
        )
    layer = OcrLayer(
        engine=engine.name,
        threshold=engine.threshold,
        words=tuple(words),
        pages=tuple(images),
        mean_confidence=round(sum(confidences) / len(confidences), 4) if confidences else 0.0,
    )
    return SourceDocument(
        source_id=source_id,
        title=f"{title} {OCR_TITLE_MARK}",
        kind=DocumentKind.OCR,
        text=PAGE_SEPARATOR.join(texts),
        page_starts=tuple(starts),
        ocr=layer,
    )
