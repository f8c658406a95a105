from __future__ import annotations

from pathlib import Path

import pytest

from concord.errors import ModelError
from concord.eval.embedder import GgufEmbedder, choose_embedding_entry
from concord.eval.similarity import maxsim, pooled_cosine
from concord.llm.registry import ModelEntry, ModelStore


def test_a_file_whose_hash_differs_is_refused_before_loading(tmp_path: Path) -> None:
    path = tmp_path / "fake.gguf"
    path.write_bytes(b"GGUF not really")
    entry = ModelEntry(
        name="fake",
        file=str(path),
        sha256="a" * 64,
        size=path.stat().st_size,
        roles=("embedder",),
        n_ctx=512,
        path=path,
    )
    with pytest.raises(ModelError, match="SHA-256 does not match"):
        GgufEmbedder(entry)


@pytest.mark.real_model
def test_default_model_gives_token_embeddings_that_rank_sensibly() -> None:
    embedder = GgufEmbedder(choose_embedding_entry(ModelStore.open()))
    try:
        label = embedder.embed_tokens("Stop apixaban 48 hours before high bleeding-risk surgery.")
        close = embedder.embed_tokens("Apixaban should be stopped two days before the operation.")
        far = embedder.embed_tokens("The museum opens at ten on Sunday mornings.")
    finally:
        embedder.close()
    assert label.ndim == 2 and label.shape[0] > 5 and label.shape[1] == close.shape[1]
    assert maxsim(label, close) > maxsim(label, far)
    assert pooled_cosine(label, close) > pooled_cosine(label, far)
