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
    """The settings the runtime was loaded with for `entry`: `n_threads` is the most it
    decodes on (`threads_adapt`: fewer while other processes use the cores)."""
    governor = getattr(runtime, "governor", None)
    return {
        "n_ctx": getattr(runtime, "n_ctx", entry.n_ctx),
        "n_threads": getattr(runtime, "n_threads", default_threads()),
        "threads_adapt": governor is not None and not governor.fixed,
        "parallel": getattr(runtime, "parallel", 1),
        "kv_cache_mb": round(getattr(runtime, "kv_bytes", 0) / 1e6, 1),
        "n_batch": DEFAULT_N_BATCH,
        "n_gpu_layers": entry.n_gpu_layers,
        "gpu_offload_supported": gpu_offload_supported(),
    }
