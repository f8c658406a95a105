"""Token embeddings from a local GGUF model through llama.cpp.

The file is taken from the model store and its SHA-256 checked before llama.cpp sees it.
The model is loaded with pooling NONE, so one pass gives the per-token vectors that MaxSim
needs; pooled vectors are their mean (see `similarity.mean_pool`). Any GGUF works (the
default chat model included); a registered embedding model (role `embedder`) works better.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol, runtime_checkable

import numpy as np

from concord.errors import ModelError
from concord.llm.registry import ModelEntry, ModelRole, ModelStore, verify_file

EMBED_N_CTX = 512
"""Tokens per text; longer texts are cut (answers here are short)."""


@runtime_checkable
class Embedder(Protocol):
    model_name: str
    model_sha256: str

    def embed_tokens(self, text: str) -> np.ndarray:
        """Token vectors of `text`, shape (n_tokens, dim), float32."""
        ...

    def close(self) -> None: ...


def choose_embedding_entry(store: ModelStore, name_or_path: str | None = None) -> ModelEntry:
    """The named model, else the first registered `embedder`, else the default model."""
    if name_or_path:
        return store.resolve(name_or_path)
    for entry in store.entries():
        if entry.has_role(ModelRole.EMBEDDER):
            return entry
    return store.default()


class GgufEmbedder:
    """A GGUF model loaded in embedding mode (pooling NONE); `embed_tokens` is serialised."""

    def __init__(self, entry: ModelEntry, *, n_threads: int | None = None) -> None:
        path = entry.resolved_path()
        verify_file(path, size=entry.size, sha256=entry.sha256)
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelError("llama-cpp-python is not installed", subject=path) from exc
        from concord.llm.llama_cpp_runtime import default_threads
        from concord.llm.unpacked import unpacked_llama

        threads = n_threads or default_threads()
        self._llm: Any = unpacked_llama(
            str(path),
            embedding=True,
            pooling_type=llama_cpp.LLAMA_POOLING_TYPE_NONE,
            n_ctx=EMBED_N_CTX,
            n_batch=EMBED_N_CTX,
            n_ubatch=EMBED_N_CTX,
            n_threads=threads,
            n_threads_batch=threads,
            n_gpu_layers=entry.n_gpu_layers,
            verbose=False,
        )
        self.model_name = entry.name
        self.model_sha256 = entry.sha256
        self._bos = self._llm.token_bos()
        self._lock = threading.Lock()

    def embed_tokens(self, text: str) -> np.ndarray:
        if not text.strip():
            raise ModelError("cannot embed an empty text", subject=self.model_name)
        with self._lock:
            try:
                rows = self._llm.embed(text, normalize=False, truncate=True)
            except (ValueError, RuntimeError) as exc:
                raise ModelError(f"embedding failed: {exc}", subject=self.model_name) from exc
            first_token = self._llm.tokenize(text.encode("utf-8"))[:1]
        vectors = np.asarray(rows, dtype=np.float32)
        # The BOS position attends to nothing and is the same for every text: drop it.
        if first_token == [self._bos] and vectors.shape[0] > 1:
            vectors = vectors[1:]
        return vectors

    def close(self) -> None:
        with self._lock:
            self._llm.close()
