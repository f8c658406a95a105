"""What the benchmark's model runs with: context, threads, batch, GPU offload."""

from __future__ import annotations

from typing import Any

from concord.llm.llama_cpp_runtime import (
    DEFAULT_N_BATCH,
    default_threads,
    gpu_offload_supported,
)
from concord.llm.registry import ModelEntry
from concord.llm.runtime import Runtime


def runtime_settings(entry: ModelEntry, runtime: Runtime) -> dict[str, Any]:
    """The settings `load_runtime` used for `entry` (the store passes no thread or batch
    override, so the machine defaults apply)."""
    return {
        "n_ctx": getattr(runtime, "n_ctx", entry.n_ctx),
        "n_threads": getattr(runtime, "n_threads", default_threads()),
        "parallel": getattr(runtime, "parallel", 1),
        "kv_cache_mb": round(getattr(runtime, "kv_bytes", 0) / 1e6, 1),
        "n_batch": DEFAULT_N_BATCH,
        "n_gpu_layers": entry.n_gpu_layers,
        "gpu_offload_supported": gpu_offload_supported(),
    }
