"""A tiny hand-made GGUF header (no weights) for store tests, and the real default model."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from concord.llm.default_model import DEFAULT_MODEL_NAME
from concord.llm.hashing import forget_cached_hashes
from concord.llm.store import ModelEntry, ModelStore


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def write_fake_gguf(path: Path, context_length: int = 2048, payload: bytes = b"\0" * 4096) -> Path:
    kvs = [
        _string("general.architecture") + struct.pack("<I", 8) + _string("toy"),
        _string("toy.vocab") + struct.pack("<IIQ", 9, 8, 2) + _string("a") + _string("b"),
        _string("toy.context_length") + struct.pack("<II", 4, context_length),
    ]
    header = b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs)
    path.write_bytes(header + payload)
    return path


@pytest.fixture(autouse=True)
def _fresh_hash_cache() -> None:
    forget_cached_hashes()


@pytest.fixture(scope="session")
def default_entry() -> ModelEntry:
    """The default model from the real store, verified; skips when it is not installed."""
    from concord.errors import ModelError

    try:
        store = ModelStore.open()
        entry = store.resolve(DEFAULT_MODEL_NAME)
        store.verify(entry)
    except ModelError as exc:
        pytest.skip(
            f"default model not installed in the model store ({exc}); install it with "
            "`python -m concord.llm.default_model`"
        )
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        pytest.skip("llama-cpp-python is not installed")
    return entry
