"""`load_record`: the one entry point that turns a file into a Record.

Which loader reads a file, which files a folder import picks up and the desktop's file
filter all come from the input-format registry (`concord.records.formats`). The built-in
formats register themselves when their modules are imported, below.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from concord.domain import Record
from concord.errors import InputError
from concord.records.formats import InputFormat, registered_formats

BUILTIN_FORMATS = {
    "text": "concord.records.text",  # .txt, .md
    "json": "concord.records.json_record",  # Concord's own record, or a FHIR R4 Bundle
    "pdf": "concord.records.pdf",  # text layer, else OCR page by page
    "image": "concord.records.image",  # scanned images, OCR
}
"""The built-in formats (name: module), in the order a file dialog lists them. Importing a
module registers its format (its loader carries the `@input_format` decorator); a new
built-in format is a new module added here. Formats registered elsewhere follow them."""
for _module in BUILTIN_FORMATS.values():
    importlib.import_module(_module)
_ORDER = list(BUILTIN_FORMATS)

ALL_FILES = "All files (*)"


def input_formats() -> tuple[InputFormat, ...]:
    """Every format Concord imports, built-ins first (in BUILTIN_FORMATS order)."""
    known = registered_formats()
    rank = {
        fmt.name: _ORDER.index(fmt.name) if fmt.name in _ORDER else len(_ORDER) for fmt in known
    }
    return tuple(sorted(known, key=lambda fmt: rank[fmt.name]))


def record_suffixes() -> tuple[str, ...]:
    """Every suffix some format reads (lower-case, with the dot)."""
    return tuple(s for fmt in input_formats() for s in fmt.suffixes)


def format_for(path: Path | str) -> InputFormat | None:
    """The format that reads `path` (by suffix, case-insensitive), or None."""
    suffix = Path(path).suffix.lower()
    return next((fmt for fmt in input_formats() if suffix in fmt.suffixes), None)


def is_record_file(path: Path) -> bool:
    return format_for(path) is not None


def file_filter(title: str = "Patient records") -> str:
    """A file-dialog filter: every record suffix first, then one entry per format, then
    all files ("Patient records (*.txt *.md ...);;Text and Markdown (*.txt *.md);;...")."""
    every = " ".join(f"*{s}" for s in record_suffixes())
    each = [f"{fmt.label} ({fmt.patterns})" for fmt in input_formats()]
    return ";;".join([f"{title} ({every})", *each, ALL_FILES])


def load_record(path: Path | str) -> Record:
    """The record in `path`, read by the format registered for its suffix.

    Guarantees: every document's text is the file's text as decoded (see records.files for
    the only normalisations), and any unusable input raises InputError naming the file.
    """
    path = Path(path)
    fmt = format_for(path)
    if fmt is None:
        expected = ", ".join(record_suffixes())
        shown = path.suffix or "(none)"
        raise InputError(f"unsupported file type {shown} (expected {expected})", subject=path)
    try:
        return fmt.load(path)
    except RecursionError as exc:
        raise InputError("input is nested too deeply", subject=path) from exc
