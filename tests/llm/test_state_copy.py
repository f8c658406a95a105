"""A sequence's saved KV state is copied by llama.cpp, not zero-filled by Python first.

A ctypes array is zero-filled while the interpreter lock is held: for the 1.5B model's
4k-token record (a state of a few hundred MB) that froze every other Python thread, the
window's included, for 0.3-0.5 s (`ui_max_stall_ms` 295 ms in the model's bench run).
Touching memory page by page is what that costs, so the test counts the pages Python
touched: none of the state's, where llama.cpp (here a stand-in) does the writing."""

from __future__ import annotations

import resource
from typing import Any

from concord.llm.llama_cpp_runtime import LlamaCppRuntime

STATE_BYTES = 256 * 1024 * 1024
PAGE = resource.getpagesize()


class StateCalls:
    """llama.cpp's state functions, without writing the memory (the real ones do, with the
    interpreter lock released)."""

    def __init__(self) -> None:
        self.restored: int | None = None

    def llama_state_seq_get_size(self, _ctx: Any, _seq_id: int) -> int:
        return STATE_BYTES

    def llama_state_seq_get_data(self, _ctx: Any, _dst: Any, size: int, _seq_id: int) -> int:
        return size

    def llama_state_seq_set_data(self, _ctx: Any, _src: Any, size: int, _seq_id: int) -> int:
        self.restored = size
        return size


def _page_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def test_saving_a_state_leaves_its_memory_to_llama_cpp() -> None:
    runtime = object.__new__(LlamaCppRuntime)  # only the state calls, no model
    calls = StateCalls()
    runtime._lib = calls
    runtime._ctx = None
    runtime.model_name = "stand-in"
    before = _page_faults()
    state = runtime._save([1, 2, 3], 0)
    touched = _page_faults() - before
    assert touched < STATE_BYTES // PAGE // 20  # zero-filling it would touch every page
    runtime._restore(state, 1)
    assert calls.restored == STATE_BYTES
    assert state.tokens == (1, 2, 3)
