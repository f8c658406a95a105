"""Record fixtures: the committed text/JSON files and a PDF generated with reportlab."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "records"

PDF_PAGES = (
    ["Discharge summary page one", "K+ 6.3 mmol/L on admission"],
    ["Page two: echo", "LVEF 25-30%, severe aortic stenosis"],
)


def write_pdf(path: Path, pages: list[list[str]] | tuple[list[str], ...]) -> Path:
    """A small text PDF, one list of lines per page (blank pages for empty lists)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4)
    for lines in pages:
        y = 800
        for line in lines:
            pdf.drawString(72, y, line)
            y -= 16
        pdf.showPage()
    pdf.save()
    return path


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture
def pdf_writer() -> Callable[[Path, list[list[str]]], Path]:
    return write_pdf


@pytest.fixture
def pdf_record_path(tmp_path: Path) -> Path:
    return write_pdf(tmp_path / "discharge.pdf", PDF_PAGES)
