"""How much memory the KV cache of parallel sequences takes, and how many are safe.

The llama.cpp runtime gives each parallel sequence its own KV stream of `n_ctx` cells
(`concord.llm.llama_cpp_runtime`). One cell holds, for every layer, a key and a value of
`head_count_kv * key_length` (and `value_length`) f16 numbers. A sliding-window layer
(Gemma 3: five of every six) keeps only the cells its window and one micro-batch need
(llama.cpp without `swa_full`: the window plus `n_ubatch`, rounded up to 256). The figures
come from the GGUF's own metadata; where a model states a window but its layer pattern is
not known here, every layer is counted full-size (an upper bound).

The streams may take at most `KV_MEMORY_SHARE` of physical memory (`safe_parallel`), and the
saved prefix states (`concord.llm.llama_cpp_runtime`) share what the streams leave of it
(`prefix_state_budget`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

KV_BYTES_PER_VALUE = 2  # f16 keys and values (llama.cpp's default cache type)
KV_CELL_PAD = 256  # llama.cpp rounds a sliding-window cache up to this many cells
SWA_PATTERN = {"gemma3": 6}
"""Architectures whose every n-th layer is global and the others sliding-window (llama.cpp's
own pattern for them); a model of another architecture counts every layer full-size."""
KV_MEMORY_SHARE = 0.25
"""Share of the workstation's physical memory the parallel KV streams and the saved prefix
states may take together: the rest is for the model file, the application, the clinician's
other programs and the OS."""


@dataclass(frozen=True)
class KvShape:
    """What one KV cell costs: the model's layers and attention heads."""

    n_layer: int
    n_head_kv: int
    key_length: int
    value_length: int
    swa_layers: int = 0  # layers that see only the last `sliding_window` positions
    sliding_window: int = 0

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
        window, pattern = number("attention.sliding_window") or 0, SWA_PATTERN.get(arch)
        if not (window and pattern):
            return cls(layers, kv_heads, key, value)
        return cls(layers, kv_heads, key, value, layers - layers // pattern, window)

    def bytes_per_cell(self) -> int:
        """A cell of every layer (as if all were global)."""
        return self.n_layer * self._per_layer()

    def _per_layer(self) -> int:
        return self.n_head_kv * (self.key_length + self.value_length) * KV_BYTES_PER_VALUE

    def bytes_per_stream(self, n_ctx: int, n_ubatch: int = 512) -> int:
        """One sequence's stream of `n_ctx` cells: the global layers' cells, and the
        sliding-window layers' window plus a micro-batch of `n_ubatch` tokens."""
        window = n_ctx
        if self.swa_layers:
            window = min(n_ctx, -(-(self.sliding_window + n_ubatch) // KV_CELL_PAD) * KV_CELL_PAD)
        full = self.n_layer - self.swa_layers
        return self._per_layer() * (full * n_ctx + self.swa_layers * window)


GEMMA3_4B = KvShape(
    n_layer=34, n_head_kv=4, key_length=256, value_length=256, swa_layers=29, sliding_window=1024
)
"""A 4B hospital model (Gemma 3 4B's published shape: 34 layers, every sixth global, a
1,024-token window), for the memory estimate."""
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


def prefix_state_budget(kv_bytes: int, memory: int | None = None) -> int | None:
    """Bytes the saved prefix states may take together: what KV_MEMORY_SHARE of `memory`
    (default: this machine's) leaves once the parallel streams (`kv_bytes`) have theirs;
    None where the OS does not say. A saved state is a copy of a sequence's KV cells (a
    record of a few thousand tokens: 121 MB for the 1.5B model, a few hundred MB for a 7B
    one), so without a bound a handful of them could take as much again as the streams."""
    memory = physical_memory() if memory is None else memory
    if memory is None:
        return None
    return max(0, int(memory * KV_MEMORY_SHARE) - kv_bytes)
