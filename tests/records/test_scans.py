"""Scanned PDFs and images: OCR text with per-word confidence, page boxes and the page
images; uncertain words exposed on the record; bad scans refused with one line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from concord.bench.scan_pages import (
    LAB_PRINTOUT,
    REFERRAL_LETTER,
    PageSpec,
    image_only_pdf,
    render_page,
)
from concord.domain.ocr import UncertainKind
from concord.errors import InputError
from concord.records import load_record, locator_for
from concord.records.ocr.scan import OCR_TITLE_MARK, PAGE_SEPARATOR

LETTER = PageSpec(
    "letter", REFERRAL_LETTER, "serif", dpi=200, skew_degrees=0.5, noise=0.002, seed=1
)
LABS = PageSpec("labs", LAB_PRINTOUT, "mono", dpi=200, seed=2)


def test_image_only_pdf_is_read_page_by_page(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(image_only_pdf([render_page(LETTER), render_page(LABS)], 200))
    record = load_record(path)
    (doc,) = record.documents
    assert doc.kind == "ocr" and doc.title.endswith(OCR_TITLE_MARK)
    assert doc.ocr is not None and len(doc.ocr.pages) == 2
    assert len(doc.page_starts) == 2
    assert doc.text[doc.page_starts[1] - len(PAGE_SEPARATOR) : doc.page_starts[1]] == PAGE_SEPARATOR
    assert "Potassium" in doc.text and "6.4" in doc.text
    at = doc.text.index("Potassium")
    assert doc.page_of(at) == 2 and locator_for(record, doc.source_id, at).endswith(" p2")
    for word in doc.ocr.words:  # every word's offsets hold its text, its box is on its page
        assert doc.text[word.start : word.end].strip() == doc.text[word.start : word.end] != ""
        image = doc.ocr.page_image(word.page)
        assert image is not None
        x0, y0, x1, y1 = word.box
        assert 0 <= x0 < x1 <= image.width and 0 <= y0 < y1 <= image.height
    stored = Image.open(io.BytesIO(doc.ocr.pages[0].data))
    assert stored.size == (doc.ocr.pages[0].width, doc.ocr.pages[0].height)


def test_the_box_of_a_value_is_where_it_was_printed(tmp_path: Path) -> None:
    """The potassium row is the 6th printed line of the lab printout: its box is there."""
    path = tmp_path / "labs.png"
    render_page(LABS).save(path, dpi=(200, 200))
    record = load_record(path)
    (doc,) = record.documents
    assert doc.ocr is not None
    start = doc.text.index("Potassium")
    word = next(w for w in doc.ocr.words if w.start == start)
    line_height = round(11 * 200 / 72) * 1.45
    top = 0.9 * 200 + 5 * line_height
    assert abs(word.box[1] - top) < line_height / 2


def test_record_round_trips_through_json_with_page_images(tmp_path: Path) -> None:
    from concord.domain.record import Record

    path = tmp_path / "letter.png"
    render_page(LETTER).save(path)
    record = load_record(path)
    again = Record.model_validate_json(record.model_dump_json())
    assert again == record
    assert again.documents[0].ocr is not None
    assert again.documents[0].ocr.pages[0].data == record.documents[0].ocr.pages[0].data


def test_uncertain_words_are_exposed_on_the_record(tmp_path: Path) -> None:
    """A faxed page has words below the threshold; each is a span with its confidence."""
    fax = PageSpec("fax", LAB_PRINTOUT, "mono", dpi=100, noise=0.006, blur=0.5, fax=True, seed=3)
    path = tmp_path / "fax.tif"
    render_page(fax).save(path, dpi=(100, 100))
    record = load_record(path)
    (doc,) = record.documents
    assert doc.ocr is not None
    uncertain = record.uncertain_spans()
    assert uncertain, "a 100 dpi fax with speckle always has some uncertain words"
    for span in uncertain:
        assert span.confidence < doc.ocr.threshold
        assert doc.text[span.start : span.end] == span.text
        assert span.kind is (
            UncertainKind.NUMBER if any(c.isdigit() for c in span.text) else UncertainKind.WORD
        )
    sure = {(w.start, w.end) for w in doc.ocr.words if w.confidence >= doc.ocr.threshold}
    assert not sure & {(s.start, s.end) for s in uncertain}


def test_typed_pdf_is_not_marked_ocr(pdf_record_path: Path) -> None:
    record = load_record(pdf_record_path)
    assert record.documents[0].kind == "pdf" and record.documents[0].ocr is None
    assert record.uncertain_spans() == ()


def test_mixed_pdf_reads_only_the_scanned_page(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    from tests.records.helpers import write_pdf

    typed = write_pdf(tmp_path / "typed.pdf", [["Typed page: K+ 4.0 mmol/L"]])
    scanned = tmp_path / "scanned.pdf"
    scanned.write_bytes(image_only_pdf([render_page(LABS)], 200))
    writer = PdfWriter()
    for source in (typed, scanned):
        for page in PdfReader(source).pages:
            writer.add_page(page)
    mixed = tmp_path / "mixed.pdf"
    with mixed.open("wb") as out:
        writer.write(out)
    (doc,) = load_record(mixed).documents
    assert doc.kind == "ocr" and doc.ocr is not None
    assert doc.text.startswith("Typed page: K+ 4.0 mmol/L")
    assert {w.page for w in doc.ocr.words} == {2}
    assert [p.page for p in doc.ocr.pages] == [2]


def test_image_with_no_text(tmp_path: Path) -> None:
    path = tmp_path / "blank.png"
    Image.new("L", (1200, 1600), 255).save(path)
    with pytest.raises(InputError, match=r"blank\.png: image has no text"):
        load_record(path)


def test_not_an_image(tmp_path: Path) -> None:
    path = tmp_path / "photo.jpg"
    path.write_bytes(b"GIF89a this is not a jpeg")
    with pytest.raises(InputError, match=r"photo\.jpg: not a readable image"):
        load_record(path)


def test_encrypted_scan(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    plain = tmp_path / "plain.pdf"
    plain.write_bytes(image_only_pdf([render_page(LETTER)], 200))
    writer = PdfWriter()
    for page in PdfReader(plain).pages:
        writer.add_page(page)
    writer.encrypt("letmein")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as out:
        writer.write(out)
    with pytest.raises(InputError, match=r"locked\.pdf: PDF is password-protected"):
        load_record(locked)
