"""A word the OCR read below its confidence threshold is never verified evidence, however the
quote reached it (an imported evidence pack, or a line an agent cited)."""

from __future__ import annotations

import re

from concord.domain import AlignmentStatus, Record, SourceDocument
from concord.domain.evidence import AlignmentFlag
from concord.domain.ocr import OcrLayer, OcrWord
from concord.evidence.align import align_extract, align_span

TEXT = "Oncology letter\nABVD x6 completed 2019, cumulative bleomycin 120,000 IU.\nWell since."
DOUBTFUL = "120,000"


def scanned(text: str = TEXT, doubtful: str = DOUBTFUL, confidence: float = 0.41) -> Record:
    words = tuple(
        OcrWord(
            start=m.start(),
            end=m.end(),
            page=1,
            box=(0, 0, 10, 10),
            confidence=confidence if m.group() == doubtful else 0.97,
        )
        for m in re.finditer(r"\S+", text)
    )
    layer = OcrLayer(engine="test", threshold=0.9, words=words)
    doc = SourceDocument(source_id="letter", title="Letter", kind="ocr", text=text, ocr=layer)
    return Record(name="scan", documents=(doc,))


def test_a_quote_over_a_doubtful_number_is_not_verified() -> None:
    got = align_extract(scanned(), "cumulative bleomycin 120,000 IU")
    assert not got.verified
    assert got.status is AlignmentStatus.FAILED
    assert AlignmentFlag.OCR_UNCERTAIN in got.flags
    assert got.start is not None and TEXT[got.start : got.end].endswith("120,000 IU")


def test_a_quote_clear_of_doubtful_words_is_verified() -> None:
    got = align_extract(scanned(), "ABVD x6 completed 2019")
    assert got.verified and AlignmentFlag.OCR_UNCERTAIN not in got.flags


def test_confident_ocr_is_verified_like_any_text() -> None:
    got = align_extract(scanned(confidence=0.95), "cumulative bleomycin 120,000 IU")
    assert got.verified


def test_a_cited_span_over_a_doubtful_word_is_not_verified() -> None:
    start = TEXT.index("ABVD")
    end = TEXT.index("IU.") + 3
    got = align_span(scanned(), "letter", start, end)
    assert not got.verified and AlignmentFlag.OCR_UNCERTAIN in got.flags
