"""How many threads llama.cpp decodes on: every core from the command line, one fewer when
the desktop app's window shares the machine."""

from __future__ import annotations

import pytest

import concord.services as services_module
from concord.llm import llama_cpp_runtime
from concord.llm.llama_cpp_runtime import (
    PARALLEL_ENV,
    THREADS_ENV,
    default_threads,
)
from concord.services import Services


@pytest.fixture
def two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_ENV, raising=False)
    monkeypatch.setattr(llama_cpp_runtime.os, "sched_getaffinity", lambda _pid: {0, 1})


def test_the_app_keeps_a_core_and_the_command_line_uses_all(two_cores) -> None:
    assert default_threads() == 1
    assert default_threads(keep_a_core=False) == 2


def test_one_core_is_never_zero_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_ENV, raising=False)
    monkeypatch.setattr(llama_cpp_runtime.os, "sched_getaffinity", lambda _pid: {0})
    assert default_threads() == 1 and default_threads(keep_a_core=False) == 1


def test_the_setting_wins(two_cores, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV, "3")
    assert default_threads() == 3 and default_threads(keep_a_core=False) == 3


@pytest.mark.parametrize(("ui", "threads"), [(True, 1), (False, 2)])
def test_services_load_the_model_with_the_threads_of_their_caller(
    two_cores, monkeypatch: pytest.MonkeyPatch, default_entry, ui: bool, threads: int
) -> None:
    loaded: list[dict] = []

    class Recorded:
        def __init__(self, entry, **opts) -> None:
            loaded.append(opts)

    monkeypatch.setattr(services_module, "IsolatedRuntime", Recorded)
    monkeypatch.setattr(services_module, "TimeoutRuntime", lambda inner, _seconds: inner)
    services = Services(ui=ui)
    monkeypatch.setattr(Services, "model_entry", lambda self, _name: default_entry)
    services.runtime()
    assert loaded[0]["n_threads"] == threads


def test_a_single_thread_runtime_decodes_together_unless_told_one_at_a_time(
    monkeypatch: pytest.MonkeyPatch, default_entry
) -> None:
    """On one thread too (the desktop app on 2 cores, or a busy machine): four sequences
    in one step cost about two steps of one (measured; `LlamaCppRuntime.together`)."""
    from concord.llm.registry import load_runtime
    from concord.llm.runtime import GenerationRequest

    monkeypatch.delenv(PARALLEL_ENV, raising=False)
    requests = [
        GenerationRequest(prefix="Record: K+ 6.1 mmol/L.\n", prompt=q, max_tokens=12 - 3 * i)
        for i, q in enumerate(("Renal risk:", "Cardiac risk:", "Bleeding risk:"))
    ]
    default = load_runtime(default_entry, n_ctx=512, n_threads=1)
    try:
        assert default.parallel > 1 and default.together == default.parallel
        together = list(default.generate_many(requests))
        assert [i for i, _ in together] == [2, 1, 0]  # the shortest first
        default.together = 1  # one at a time when asked (the bench's comparison)
        one_by_one = list(default.generate_many(requests))
        assert [i for i, _ in one_by_one] == [0, 1, 2]
    finally:
        default.close()
    assert {i: g.text for i, g in one_by_one} == {i: g.text for i, g in together}
