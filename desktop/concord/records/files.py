"""Reading a user's file as text, with one clear InputError for every way it can be unusable.

Text policy (the only changes Concord makes to a file's text): decode as UTF-8, drop a
leading byte-order mark, and turn CRLF line ends into LF. Everything else, including lone
CR, tabs and trailing spaces, is kept, so every span indexes the text as imported.
"""

from __future__ import annotations

import re
from pathlib import Path

from concord.errors import InputError

MAX_RECORD_BYTES = 64 * 1024 * 1024
"""Largest file Concord will import (64 MiB); bigger files are refused, not truncated."""

_BOM = b"\xef\xbb\xbf"


def read_bytes(path: Path, *, limit: int = MAX_RECORD_BYTES, allow_empty: bool = False) -> bytes:
    """The file's bytes. Raises InputError if missing, not a file, unreadable, empty or too big."""
    try:
        if not path.exists():
            raise InputError("file not found", subject=path)
        if not path.is_file():
            raise InputError("not a regular file", subject=path)
        size = path.stat().st_size
        if size > limit:
            raise InputError(f"file is {size:,} bytes, over the {limit:,}-byte limit", subject=path)
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror or exc})", subject=path) from exc
    if len(data) > limit:  # grew between stat and read
        raise InputError(f"file is over the {limit:,}-byte limit", subject=path)
    if not data and not allow_empty:
        raise InputError("file is empty", subject=path)
    return data


def decode_text(data: bytes, path: Path) -> str:
    """UTF-8 text with the BOM dropped and CRLF -> LF. Raises InputError for binary data."""
    offset = len(_BOM) if data.startswith(_BOM) else 0
    nul = data.find(b"\x00", offset)
    if nul >= 0:
        raise InputError(f"not UTF-8 text (NUL byte at byte offset {nul})", subject=path)
    try:
        text = data[offset:].decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = offset + exc.start
        raise InputError(
            f"not UTF-8 text (byte 0x{data[bad]:02x} at byte offset {bad})", subject=path
        ) from exc
    return normalise_newlines(text)


def normalise_newlines(text: str) -> str:
    """CRLF -> LF; nothing else changes (the only normalisation applied to record text)."""
    return text.replace("\r\n", "\n")


def read_text(path: Path, *, allow_empty: bool = False) -> str:
    """`read_bytes` then `decode_text`; a file of only whitespace counts as empty."""
    text = decode_text(read_bytes(path, allow_empty=allow_empty), path)
    if not allow_empty and not text.strip():
        raise InputError("file is empty (only whitespace)", subject=path)
    return text


_OBJECT_REPR = re.compile(r"<[^<>]*? at 0x[0-9a-fA-F]+>")


def error_detail(exc: BaseException, limit: int = 120) -> str:
    """A library's error as one short line for the user: whitespace folded, Python object
    representations ("<_io.BytesIO object at 0x7f...>") taken out, the type name if nothing
    is left."""
    text = _OBJECT_REPR.sub("the data", str(exc))
    return " ".join(text.split())[:limit] or type(exc).__name__
