"""A tiny hand-made GGUF header (no weights) for store tests, and the real default model."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from concord.llm.hashing import forget_cached_hashes


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def write_fake_gguf(
    path: Path,
    context_length: int = 2048,
    payload: bytes = b"\0" * 4096,
    *,
    name: str | None = None,
) -> Path:
    kvs = [
        _string("general.architecture") + struct.pack("<I", 8) + _string("toy"),
        _string("toy.vocab") + struct.pack("<IIQ", 9, 8, 2) + _string("a") + _string("b"),
        _string("toy.context_length") + struct.pack("<II", 4, context_length),
    ]
    if name is not None:
        kvs.append(_string("general.name") + struct.pack("<I", 8) + _string(name))
    header = b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs)
    path.write_bytes(header + payload)
    return path


@pytest.fixture(autouse=True)
def _fresh_hash_cache() -> None:
    forget_cached_hashes()
