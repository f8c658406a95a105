"""How much memory the KV cache of parallel sequences takes, and how many are safe.

The llama.cpp runtime gives each parallel sequence its own KV stream of `n_ctx` cells
(`concord.llm.llama_cpp_runtime`). One cell holds, for every layer, a key and a value of
`head_count_kv * key_length` (and `value_length`) f16 numbers; models with sliding-window
layers keep them full-size in this configuration (llama.cpp's `swa_full`), so every layer
counts. The figures come from the GGUF's own metadata.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

KV_BYTES_PER_VALUE = 2  # f16 keys and values (llama.cpp's default cache type)
KV_MEMORY_SHARE = 0.25
"""Share of the workstation's physical memory the parallel KV streams may take: the rest is
for the model file, the application, the clinician's other programs and the OS."""


@dataclass(frozen=True)
class KvShape:
    """What one KV cell costs: the model's layers and attention heads."""

    n_layer: int
    n_head_kv: int
    key_length: int
    value_length: int

    @classmethod
    def from_metadata(cls, meta: Mapping[str, Any]) -> KvShape | None:
        """From GGUF metadata (values as numbers or strings); None when a field is missing."""
        arch = str(meta.get("general.architecture", ""))

        def number(key: str) -> int | None:
            value = meta.get(f"{arch}.{key}")
            try:
                return int(str(value)) if value is not None else None
            except ValueError:
                return None

        layers, heads = number("block_count"), number("attention.head_count")
        kv_heads = number("attention.head_count_kv") or heads
        embedding = number("embedding_length")
        per_head = embedding // heads if embedding and heads else None
        key = number("attention.key_length") or per_head
        value = number("attention.value_length") or per_head
        if not (layers and kv_heads and key and value):
            return None
        return cls(layers, kv_heads, key, value)

    def bytes_per_cell(self) -> int:
        per_layer = self.n_head_kv * (self.key_length + self.value_length) * KV_BYTES_PER_VALUE
        return self.n_layer * per_layer

    def bytes_per_stream(self, n_ctx: int) -> int:
        return self.bytes_per_cell() * n_ctx


GEMMA3_4B = KvShape(n_layer=34, n_head_kv=4, key_length=256, value_length=256)
"""A 4B hospital model (Gemma 3 4B's published shape), for the memory estimate."""
WORKSTATION_BYTES = 16 * 1024**3


def physical_memory() -> int | None:
    """Bytes of physical memory, None where the OS does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def safe_parallel(bytes_per_stream: int, wanted: int, memory: int | None = None) -> int:
    """At most `wanted` sequences, and no more than KV_MEMORY_SHARE of `memory` (default:
    this machine's) holds; at least 1."""
    memory = physical_memory() if memory is None else memory
    if memory is None or bytes_per_stream <= 0:
        return max(1, wanted)
    fits = int(memory * KV_MEMORY_SHARE // bytes_per_stream)
    return max(1, min(wanted, fits))
