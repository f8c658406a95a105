"""`load_record`: the one entry point that turns a file into a Record."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from concord.domain import Record
from concord.errors import InputError
from concord.records.image import load_image_record
from concord.records.json_record import load_json_record
from concord.records.pdf import load_pdf_record
from concord.records.text import load_text_record

LOADERS: dict[str, Callable[[Path], Record]] = {
    ".txt": load_text_record,
    ".md": load_text_record,
    ".json": load_json_record,  # Concord's own record, or a FHIR R4 Bundle / resource
    ".pdf": load_pdf_record,  # text layer, else OCR page by page
    ".png": load_image_record,
    ".jpg": load_image_record,
    ".jpeg": load_image_record,
    ".tif": load_image_record,
    ".tiff": load_image_record,
}


def load_record(path: Path | str) -> Record:
    """The record in `path`, chosen by suffix (case-insensitive; see LOADERS).

    Guarantees: every document's text is the file's text as decoded (see records.files for
    the only normalisations), and any unusable input raises InputError naming the file.
    """
    path = Path(path)
    loader = LOADERS.get(path.suffix.lower())
    if loader is None:
        expected = ", ".join(LOADERS)
        shown = path.suffix or "(none)"
        raise InputError(f"unsupported file type {shown} (expected {expected})", subject=path)
    try:
        return loader(path)
    except RecursionError as exc:
        raise InputError("input is nested too deeply", subject=path) from exc
