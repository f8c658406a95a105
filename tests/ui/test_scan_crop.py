"""The scan crop beside OCR'd evidence: shown for text read by OCR, hidden otherwise."""

from __future__ import annotations

from pathlib import Path

from concord.bench.scan_pages import LAB_PRINTOUT, PageSpec, render_page
from concord.records import load_record
from concord.ui.scan_crop import ScanCropView

FHIR = Path(__file__).resolve().parent.parent / "fixtures" / "records" / "fhir"


def test_crop_of_an_ocr_span(qtbot, tmp_path: Path) -> None:
    path = tmp_path / "labs.png"
    render_page(PageSpec("labs", LAB_PRINTOUT, "mono", dpi=200, seed=5)).save(path)
    record = load_record(path)
    (doc,) = record.documents
    view = ScanCropView()
    qtbot.addWidget(view)
    start = doc.text.index("Potassium")
    assert view.show_span(record, doc.source_id, start, start + len("Potassium"))
    assert not view.isHidden()
    pixmap = view.image.pixmap()
    assert pixmap is not None and not pixmap.isNull() and pixmap.width() > 100
    assert "Scanned page 1" in view.caption.text() and "OCR" in view.caption.text()


def test_hidden_for_typed_text(qtbot) -> None:
    record = load_record(FHIR / "halloran.json")
    view = ScanCropView()
    qtbot.addWidget(view)
    assert not view.show_span(record, "Observation/k-new", 0, 9)
    assert view.isHidden()
