"""Every `Llama` Concord makes loads its weights unpacked: repacked kernels use AMX where
the CPU lists it, and a virtual machine that lists AMX without granting it dies with
SIGILL on the first decode (CI did, in the embedder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from concord.errors import ModelError
from concord.llm.unpacked import default_params_unpacked, unpacked_llama


def test_the_defaults_say_no_repacking_only_inside_the_block() -> None:
    import llama_cpp.llama_cpp as bindings

    before = bindings.llama_model_default_params().use_extra_bufts
    with default_params_unpacked():
        assert bindings.llama_model_default_params().use_extra_bufts is False
    assert bindings.llama_model_default_params().use_extra_bufts == before


def test_the_defaults_come_back_when_loading_fails(tmp_path: Path) -> None:
    import llama_cpp.llama_cpp as bindings

    original = bindings.llama_model_default_params
    bad = tmp_path / "not-a-model.gguf"
    bad.write_bytes(b"GGUF but nothing else")
    with pytest.raises(ModelError, match="could not load") as caught:
        unpacked_llama(str(bad), verbose=False)
    assert str(bad) in str(caught.value)
    assert bindings.llama_model_default_params is original


@pytest.mark.real_model
def test_the_embedder_loads_the_default_model_unpacked() -> None:
    from concord.eval.embedder import GgufEmbedder, choose_embedding_entry
    from concord.llm.registry import ModelStore

    embedder = GgufEmbedder(choose_embedding_entry(ModelStore.open()))
    try:
        assert embedder._llm.model_params.use_extra_bufts is False
    finally:
        embedder.close()
