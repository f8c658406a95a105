"""KV cache size from a GGUF's shape, the number of parallel sequences memory holds, and
what the saved prefix states may take beside them."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import numpy as np

from concord.llm.gguf_meta import read_gguf_metadata
from concord.llm.kv_memory import GEMMA3_4B, KvShape, prefix_state_budget, safe_parallel
from concord.llm.llama_cpp_runtime import PREFIX_CACHE_SIZE, _PrefixState, keep_within
from tests.llm.helpers import write_fake_gguf

GIB = 1024**3


def test_shape_from_metadata_of_a_gemma3_file() -> None:
    meta = {
        "general.architecture": "gemma3",
        "gemma3.block_count": 18,
        "gemma3.attention.head_count": 4,
        "gemma3.attention.head_count_kv": 1,
        "gemma3.attention.key_length": 256,
        "gemma3.attention.value_length": 256,
        "gemma3.embedding_length": 640,
    }
    shape = KvShape.from_metadata(meta)
    assert shape == KvShape(18, 1, 256, 256)
    # 18 layers x (256 + 256) f16 numbers: 18,432 bytes a cell; 151 MB for 8,192 cells
    assert shape.bytes_per_cell() == 18 * 512 * 2
    assert shape.bytes_per_stream(8192) == 150_994_944
    # with its sliding window: 3 global layers of 8,192 cells and 15 of the window (512)
    # plus a micro-batch (512) = 1,024 cells; 41 MB
    windowed = KvShape.from_metadata({**meta, "gemma3.attention.sliding_window": 512})
    assert windowed == KvShape(18, 1, 256, 256, swa_layers=15, sliding_window=512)
    assert windowed.bytes_per_stream(8192, 512) == 1024 * (3 * 8192 + 15 * 1024)
    assert windowed.bytes_per_stream(8192, 600) == 1024 * (3 * 8192 + 15 * 1280)  # to 256
    assert windowed.bytes_per_stream(512, 512) == shape.bytes_per_stream(512)  # never more
    # a window on an architecture whose layer pattern is not known: all full-size
    other = {k.replace("gemma3", "mystery"): v for k, v in meta.items()}
    other["general.architecture"] = "mystery"
    other["mystery.attention.sliding_window"] = 512
    assert KvShape.from_metadata(other) == KvShape(18, 1, 256, 256)


def test_head_size_from_the_embedding_when_not_stated_and_strings_as_llama_cpp_gives_them():
    meta = {
        "general.architecture": "llama",
        "llama.block_count": "32",
        "llama.attention.head_count": "32",
        "llama.attention.head_count_kv": "8",
        "llama.embedding_length": "4096",
    }
    assert KvShape.from_metadata(meta) == KvShape(32, 8, 128, 128)
    assert KvShape.from_metadata({"general.architecture": "llama"}) is None


def test_a_file_without_attention_metadata_has_no_shape(tmp_path: Path) -> None:
    meta = read_gguf_metadata(write_fake_gguf(tmp_path / "toy.gguf"))
    assert KvShape.from_metadata(meta) is None


def test_a_16_gb_workstation_with_a_4b_model_runs_four_sequences() -> None:
    # 5 global layers of 8,192 cells, 29 sliding-window layers of 1,536 (1,024 + 512)
    per_stream = GEMMA3_4B.bytes_per_stream(8192)
    assert per_stream == 4 * 512 * 2 * (5 * 8192 + 29 * 1536)  # 350 MB
    assert safe_parallel(per_stream, 4, 16 * GIB) == 4  # 1.4 GB of KV, within 4 GB
    full = GEMMA3_4B.bytes_per_cell() * 8192  # 1.14 GB if every layer kept every cell
    assert safe_parallel(full, 4, 16 * GIB) == 3  # 3.4 GB of KV, a quarter of 16 GB
    assert safe_parallel(per_stream, 4, 1 * GIB) == 1  # always at least one
    assert safe_parallel(0, 4, 16 * GIB) == 4  # unknown size: as asked


LLAMA_8B = KvShape(n_layer=32, n_head_kv=8, key_length=128, value_length=128)
"""An 8B model without a sliding window (Llama 3.1 8B's shape): 128 KiB a cell."""


def test_saved_states_share_what_the_streams_leave_of_the_memory_share() -> None:
    # an 8B model at 8,192 cells: 1 GiB a stream, so a 16 GB workstation runs 4 streams and
    # the share is spent: without a limit, four saved states of a 6,000-token record (750
    # MiB each) would take 3 GiB more beside the model's 4.9 GB
    stream = LLAMA_8B.bytes_per_stream(8192)
    assert stream == GIB
    streams = safe_parallel(stream, 4, 16 * GIB)
    assert streams == 4
    assert prefix_state_budget(streams * stream, 16 * GIB) == 0
    assert prefix_state_budget(GIB, 16 * GIB) == 3 * GIB
    small = GEMMA3_4B.bytes_per_stream(8192) * 4  # 1.4 GB of streams
    assert prefix_state_budget(small, 16 * GIB) == 4 * GIB - small


def _states(*sizes: int) -> OrderedDict[str, _PrefixState]:
    """Saved states, least recently used first, of the given sizes in bytes."""
    return OrderedDict(
        (f"s{i}", _PrefixState(tokens=(i,), data=np.zeros(size, dtype=np.uint8)))
        for i, size in enumerate(sizes)
    )


def test_states_beyond_the_count_go_least_recently_used_first() -> None:
    states = _states(*[10] * (PREFIX_CACHE_SIZE + 2))
    keep_within(states, 2, None)
    assert list(states) == [f"s{i}" for i in range(2, PREFIX_CACHE_SIZE + 2)]


def test_states_beyond_the_byte_limit_go_but_never_those_the_request_restores_next() -> None:
    states = _states(100, 100, 120, 130)  # two records, each with its preface
    keep_within(states, 2, 300)
    assert list(states) == ["s2", "s3"]  # 250 bytes: the older record's two are gone
    states = _states(100, 100, 120, 130)
    keep_within(states, 2, 0)
    assert list(states) == ["s2", "s3"]  # over the limit, but the next restore needs them
    states = _states(100, 100, 120, 130)
    keep_within(states, 1, 350)
    assert list(states) == ["s1", "s2", "s3"]  # 350 bytes: within


def test_room_for_a_state_is_made_before_it_is_copied() -> None:
    states = _states(100, 100, 120)  # a record with its preface, then the next record
    keep_within(states, 1, 300, adding=130)  # the next record's preface is about to be saved
    assert list(states) == ["s2"]  # 120 + 130 bytes: the older record's two made room
    states = _states(*[10] * PREFIX_CACHE_SIZE)
    keep_within(states, 1, None, adding=10)
    assert len(states) == PREFIX_CACHE_SIZE - 1  # the count leaves room for it too
