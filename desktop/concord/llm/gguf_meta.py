"""A tiny reader for GGUF header metadata (no llama.cpp needed, no tensors read).

Format: magic `GGUF`, version (u32), tensor count (u64), key/value count (u64), then the
key/value pairs, each a string key, a u32 value type and the value (little-endian).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

from concord.errors import ModelError

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
MAX_STRING_BYTES = 64 * 1024 * 1024  # a sanity bound: a corrupt length must not allocate GBs

_SCALARS: dict[int, str] = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING = 8
_ARRAY = 9


class _Reader:
    def __init__(self, handle: BinaryIO, subject: Path) -> None:
        self._handle = handle
        self._subject = subject

    def exact(self, size: int) -> bytes:
        data = self._handle.read(size)
        if len(data) != size:
            raise ModelError("GGUF header is truncated", subject=self._subject)
        return data

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.exact(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        length = self.unpack("<Q")
        if length > MAX_STRING_BYTES:
            raise ModelError("GGUF header has an implausible string length", subject=self._subject)
        return self.exact(length).decode("utf-8", errors="replace")

    def value(self, kind: int, keep: bool) -> Any:
        if kind in _SCALARS:
            return self.unpack(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item_kind = self.unpack("<I")
            count = self.unpack("<Q")
            if not keep and item_kind in _SCALARS:
                self._handle.seek(count * struct.calcsize(_SCALARS[item_kind]), 1)
                return None
            items = [self.value(item_kind, keep) for _ in range(count)]
            return items if keep else None
        raise ModelError(f"GGUF header has unknown value type {kind}", subject=self._subject)


def read_gguf_metadata(path: Path, keys: Iterable[str] | None = None) -> dict[str, Any]:
    """Metadata key/values of a GGUF file; with `keys`, only those (stops once all are read).
    Array values are returned only when asked for by key."""
    wanted = set(keys) if keys is not None else None
    out: dict[str, Any] = {}
    try:
        with open(path, "rb") as handle:
            reader = _Reader(handle, path)
            if reader.exact(4) != GGUF_MAGIC:
                raise ModelError("not a GGUF file (bad magic)", subject=path)
            version = reader.unpack("<I")
            if version not in SUPPORTED_VERSIONS:
                raise ModelError(f"unsupported GGUF version {version}", subject=path)
            reader.unpack("<Q")  # tensor count
            kv_count = reader.unpack("<Q")
            for _ in range(kv_count):
                key = reader.string()
                kind = reader.unpack("<I")
                keep = wanted is None or key in wanted
                value = reader.value(kind, keep=keep and (kind != _ARRAY or wanted is not None))
                if keep:
                    out[key] = value
                if wanted is not None and wanted <= out.keys():
                    break
    except OSError as exc:
        raise ModelError(f"cannot read GGUF file: {exc.strerror or exc}", subject=path) from exc
    return out


def context_length(path: Path) -> int | None:
    """The model's trained context length (`<arch>.context_length`), if recorded."""
    arch = read_gguf_metadata(path, keys=["general.architecture"]).get("general.architecture")
    if not isinstance(arch, str):
        return None
    value = read_gguf_metadata(path, keys=[f"{arch}.context_length"]).get(f"{arch}.context_length")
    return int(value) if isinstance(value, int) else None
