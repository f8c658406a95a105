"""Text read by OCR: each word's place in the text, its page box and its confidence, and
the page images themselves (kept with the record so a person can check a number against
the scan)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import ConfigDict, Field, model_validator

from concord.domain._base import Frozen
from concord.domain.span import SpanText


class UncertainKind(StrEnum):
    NUMBER = "number"  # the word has a digit: a value, a dose, a date
    WORD = "word"  # letters only: possibly a drug name


class OcrWord(Frozen):
    start: int = Field(ge=0, description="Start offset of the word in the document text")
    end: int = Field(ge=0, description="End offset (exclusive) in the document text")
    page: int = Field(ge=1, description="1-based page number")
    box: tuple[int, int, int, int] = Field(
        description="x0, y0, x1, y1 in pixels of the stored page image (origin top left)"
    )
    confidence: float = Field(ge=0.0, le=1.0, description="The OCR engine's confidence")


class PageImage(Frozen):
    """One scanned page as stored with the record (bytes are base64 in JSON)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", ser_json_bytes="base64", val_json_bytes="base64"
    )

    page: int = Field(ge=1)
    media_type: str = Field(pattern=r"^image/(png|jpeg)$")
    width: int = Field(gt=0, description="Pixels")
    height: int = Field(gt=0, description="Pixels")
    dpi: int = Field(gt=0, description="Resolution the page was read at")
    data: bytes = Field(description="The encoded image")


class OcrLayer(Frozen):
    engine: str = Field(description="OCR engine and version, e.g. 'rapidocr-onnxruntime 1.4.4'")
    threshold: float = Field(
        ge=0.0, le=1.0, description="Words below this confidence need a person to check them"
    )
    words: tuple[OcrWord, ...] = Field(description="Every word read, in text order")
    pages: tuple[PageImage, ...] = Field(default=(), description="The page images, in order")
    mean_confidence: float = Field(default=0.0, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _pages_known(self) -> OcrLayer:
        pages = {image.page for image in self.pages}
        for word in self.words:
            if pages and word.page not in pages:
                raise ValueError(f"OCR word on page {word.page}, which has no page image")
        return self

    def words_in(self, start: int, end: int) -> tuple[OcrWord, ...]:
        """Words overlapping text[start:end]."""
        return tuple(w for w in self.words if w.start < end and w.end > start)

    def region(self, start: int, end: int) -> ScanRegion | None:
        """Where text[start:end] is on the scan: the page, the union of its words' boxes on
        that page (the first page the span touches), and the least confidence among them."""
        words = self.words_in(start, end)
        if not words:
            return None
        page = words[0].page
        on_page = [w for w in words if w.page == page]
        box = (
            min(w.box[0] for w in on_page),
            min(w.box[1] for w in on_page),
            max(w.box[2] for w in on_page),
            max(w.box[3] for w in on_page),
        )
        lowest = min(w.confidence for w in words)
        return ScanRegion(
            page=page, box=box, lowest_confidence=lowest, uncertain=lowest < self.threshold
        )

    def page_image(self, page: int) -> PageImage | None:
        for image in self.pages:
            if image.page == page:
                return image
        return None

    def uncertain_spans(self, source_id: str, text: str) -> list[UncertainSpan]:
        out = []
        for word in self.words:
            if word.confidence >= self.threshold:
                continue
            written = text[word.start : word.end]
            kind = UncertainKind.NUMBER if any(c.isdigit() for c in written) else UncertainKind.WORD
            out.append(
                UncertainSpan(
                    source_id=source_id,
                    start=word.start,
                    end=word.end,
                    text=written,
                    confidence=word.confidence,
                    kind=kind,
                    page=word.page,
                )
            )
        return out


class ScanRegion(Frozen):
    page: int
    box: tuple[int, int, int, int]
    lowest_confidence: float
    uncertain: bool = Field(description="Some word of the span is below the threshold")


class UncertainSpan(SpanText):
    """A word the OCR read below its threshold: evidence over it is never verified."""

    confidence: float
    kind: UncertainKind
    page: int
