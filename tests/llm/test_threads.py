"""How many threads llama.cpp decodes on: every core from the command line, one fewer when
the desktop app's window shares the machine."""

from __future__ import annotations

import pytest

import concord.services as services_module
from concord.llm import llama_cpp_runtime
from concord.llm.llama_cpp_runtime import THREADS_ENV, default_threads
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
