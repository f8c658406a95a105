"""Page images from a scanned file: PNG, JPEG, TIFF (every frame) or the pages of a PDF
(rendered with PDFium), and the compact form they are stored in with the record."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image, ImageSequence, UnidentifiedImageError

from concord.domain.ocr import PageImage
from concord.errors import InputError

RENDER_DPI = 200
"""Resolution PDF pages are rendered at for OCR and for the stored page image."""
MAX_PAGES = 200
MAX_PIXELS = 60_000_000
"""Largest page (in pixels) Concord will read: a 600 dpi A3 page is about 70 M; refusing
larger images stops a decompression bomb."""
STORED_JPEG_QUALITY = 80


def image_pages(data: bytes, path: Path) -> list[tuple[Image.Image, int]]:
    """Every frame of a PNG/JPEG/TIFF as (grayscale image, dpi). InputError when the file is
    not an image Concord can read."""
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with Image.open(io.BytesIO(data)) as image:
            frames: list[tuple[Image.Image, int]] = []
            for frame in ImageSequence.Iterator(image):
                if len(frames) >= MAX_PAGES:
                    raise InputError(f"image has over {MAX_PAGES} pages", subject=path)
                dpi = _dpi_of(frame.info.get("dpi"))
                frames.append((frame.convert("L"), dpi))
    except InputError:
        raise
    except Image.DecompressionBombError as exc:
        raise InputError(f"image is too large (over {MAX_PIXELS:,} pixels)", subject=path) from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        detail = " ".join(str(exc).split())[:100] or type(exc).__name__
        raise InputError(f"not a readable image ({detail})", subject=path) from exc
    if not frames:
        raise InputError("image has no pages", subject=path)
    return frames


def _dpi_of(value: object) -> int:
    if isinstance(value, tuple) and value and isinstance(value[0], int | float) and value[0] > 1:
        return round(float(value[0]))
    return RENDER_DPI  # unknown: assume an office scan


def pdf_pages(data: bytes, path: Path, pages: list[int]) -> list[tuple[Image.Image, int]]:
    """The given 0-based pages of a PDF rendered at RENDER_DPI, grayscale."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise InputError(f"PDF cannot be rendered ({exc})", subject=path) from exc
    try:
        out = []
        for index in pages:
            page = document[index]
            width, height = page.get_size()
            if width * height * (RENDER_DPI / 72) ** 2 > MAX_PIXELS:
                raise InputError(f"PDF page {index + 1} is too large to read", subject=path)
            bitmap = page.render(scale=RENDER_DPI / 72, grayscale=True)
            out.append((bitmap.to_pil().convert("L"), RENDER_DPI))
        return out
    finally:
        document.close()


def stored_page(image: Image.Image, page: int, dpi: int) -> PageImage:
    """The page as kept with the record: grayscale JPEG (a noisy scan compresses badly as
    PNG; at quality 80 digits stay as legible as in the scan)."""
    buffer = io.BytesIO()
    image.convert("L").save(buffer, format="JPEG", quality=STORED_JPEG_QUALITY, optimize=True)
    return PageImage(
        page=page,
        media_type="image/jpeg",
        width=image.width,
        height=image.height,
        dpi=dpi,
        data=buffer.getvalue(),
    )
