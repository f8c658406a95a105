"""`load_record`: the one entry point that turns a file into a Record."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from concord.domain import Record
from concord.errors import InputError
from concord.records.json_record import load_json_record
from concord.records.pdf import load_pdf_record
from concord.records.text import load_text_record

LOADERS: dict[str, Callable[[Path], Record]] = {
    ".txt": load_text_record,
    ".md": load_text_record,
    ".json": load_json_record,
    ".pdf": load_pdf_record,
}


def load_record(path: Path | str) -> Record:
    """The record in `path`, chosen by suffix (.txt, .md, .json, .pdf; case-insensitive).

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
