"""Scanned images (.png, .jpg/.jpeg, .tif/.tiff, every frame of a multi-page TIFF): read by
OCR into one document of kind "ocr"."""

from __future__ import annotations

from pathlib import Path

from concord.domain import DocumentKind, Record
from concord.records.files import read_bytes
from concord.records.formats import input_format
from concord.records.ocr.engines import ocr_engine
from concord.records.ocr.images import image_pages
from concord.records.ocr.scan import assemble, ocr_pages


@input_format("image", label="Scanned images", suffixes=(".png", ".jpg", ".jpeg", ".tif", ".tiff"))
def load_image_record(path: Path) -> Record:
    data = read_bytes(path)
    frames = image_pages(data, path)
    engine = ocr_engine()
    document = assemble(
        path.name, path.name, ocr_pages(frames, engine), engine, path, typed_kind=DocumentKind.IMAGE
    )
    return Record(name=path.name, documents=(document,))
