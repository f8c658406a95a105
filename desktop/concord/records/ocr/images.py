"""Page images from a scanned file: PNG, JPEG, TIFF (every frame) or the pages of a PDF
(rendered with PDFium), and the compact form they are stored in with the record.

A small file can describe enormous pages (a 726 kB TIFF of 200 frames of 50 megapixels, a
1.26 MB PDF of 10,000 pages), so pages are read against a stated budget, checked before
anything is decoded, and decoded one at a time (each is read by OCR and dropped before the
next is decoded):

* at most `MAX_PAGES` pages read by OCR per file;
* at most `MAX_PIXELS` pixels on one page (Pillow's own limit only warns below twice its
  setting, so the size is checked here, exactly, before decoding);
* at most `MAX_TOTAL_PIXELS` pixels over all pages of one file.

Peak memory is then one decoded page (at most `MAX_PIXELS` bytes as 8-bit grayscale) plus
the OCR engine's working memory, whatever the file claims. Anything over a limit is one
InputError naming the file, the page and the limit.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PIL import Image, ImageSequence, UnidentifiedImageError

from concord.domain.ocr import PageImage
from concord.errors import InputError
from concord.records.files import error_detail

RENDER_DPI = 200
"""Resolution PDF pages are rendered at for OCR and for the stored page image."""
MAX_PAGES = 200
"""Pages one file may have read by OCR."""
MAX_PIXELS = 60_000_000
"""Largest page (in pixels) Concord will read: an A3 page scanned at 500 dpi is about 48 M,
at 600 dpi 70 M (refused); anything larger is refused, never decoded."""
MAX_TOTAL_PIXELS = 1_000_000_000
"""All the pages of one file together: about 250 A4 pages at 200 dpi, 110 at 300 dpi."""
STORED_JPEG_QUALITY = 80


def _budget(sizes: Iterator[tuple[int, int]], path: Path, what: str) -> int:
    """Check page sizes against the limits before any page is decoded; the page count."""
    total = 0
    count = 0
    for width, height in sizes:
        count += 1
        if count > MAX_PAGES:
            raise InputError(
                f"{what} has over {MAX_PAGES} pages to read by OCR (the limit per file)",
                subject=path,
            )
        pixels = width * height
        if pixels > MAX_PIXELS:
            raise InputError(
                f"{what} page {count} is too large to read ({width} x {height} = "
                f"{pixels:,} pixels, over the {MAX_PIXELS:,}-pixel limit per page)",
                subject=path,
            )
        total += pixels
        if total > MAX_TOTAL_PIXELS:
            raise InputError(
                f"{what} is too large to read: its pages add up to over "
                f"{MAX_TOTAL_PIXELS:,} pixels (the limit per file) by page {count}",
                subject=path,
            )
    return count


def _open_image(data: bytes, path: Path) -> Image.Image:
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():  # the size is checked exactly by `_budget`
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            return Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        raise InputError(f"image is too large (over {MAX_PIXELS:,} pixels)", subject=path) from exc
    except UnidentifiedImageError as exc:
        raise InputError("not a readable image (not a PNG, JPEG or TIFF)", subject=path) from exc
    except (OSError, ValueError, SyntaxError) as exc:
        raise InputError(f"not a readable image ({error_detail(exc)})", subject=path) from exc


def image_pages(data: bytes, path: Path) -> Iterator[tuple[Image.Image, int]]:
    """Every frame of a PNG/JPEG/TIFF as (grayscale image, dpi), decoded one at a time as the
    caller asks for it; the sizes of all frames are checked first (see the module doc).
    InputError when the file is not an image Concord can read or is over a limit."""
    with _open_image(data, path) as image:
        try:
            count = _budget((frame.size for frame in ImageSequence.Iterator(image)), path, "image")
        except InputError:
            raise
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            raise InputError(f"not a readable image ({error_detail(exc)})", subject=path) from exc
    if count == 0:
        raise InputError("image has no pages", subject=path)
    return _decoded_frames(data, path)


def _decoded_frames(data: bytes, path: Path) -> Iterator[tuple[Image.Image, int]]:
    with _open_image(data, path) as image:
        try:
            for frame in ImageSequence.Iterator(image):
                dpi = _dpi_of(frame.info.get("dpi"))
                yield frame.convert("L"), dpi
        except Image.DecompressionBombError as exc:
            raise InputError(
                f"image is too large (over {MAX_PIXELS:,} pixels)", subject=path
            ) from exc
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            raise InputError(f"not a readable image ({error_detail(exc)})", subject=path) from exc


def _dpi_of(value: object) -> int:
    if isinstance(value, tuple) and value and isinstance(value[0], int | float) and value[0] > 1:
        return round(float(value[0]))
    return RENDER_DPI  # unknown: assume an office scan


def pdf_pages(data: bytes, path: Path, pages: list[int]) -> Iterator[tuple[Image.Image, int]]:
    """The given 0-based pages of a PDF rendered at RENDER_DPI, grayscale, one at a time as
    the caller asks for them; their sizes are checked against the limits first."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise InputError(f"PDF cannot be rendered ({error_detail(exc)})", subject=path) from exc
    scale = RENDER_DPI / 72
    try:
        sizes = []
        for index in pages:
            width, height = document.get_page_size(index)
            sizes.append((round(width * scale), round(height * scale)))
        _budget(iter(sizes), path, "PDF")
    except BaseException:
        document.close()
        raise
    return _rendered(document, pages, scale)


def _rendered(document: Any, pages: list[int], scale: float) -> Iterator[tuple[Image.Image, int]]:
    try:
        for index in pages:
            page = document[index]
            try:
                bitmap = page.render(scale=scale, grayscale=True)
                image = bitmap.to_pil().convert("L")
                bitmap.close()
            finally:
                page.close()
            yield image, RENDER_DPI
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
