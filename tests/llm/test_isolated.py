"""IsolatedRuntime: the model runs in a child process; a native crash, a hang or a bad file
ends (or refuses) that process with a clear ModelError, and the parent carries on."""

from __future__ import annotations

import os
import shutil
import signal
import threading
from functools import partial
from pathlib import Path

import pytest

from concord import services
from concord.domain.record import Record, SourceDocument
from concord.errors import ModelError
from concord.llm import isolated
from concord.llm.isolated import IsolatedRuntime
from concord.llm.registry import REFUSAL, ModelStore
from concord.llm.runtime import GenerationRequest
from concord.llm.watchdog import TimeoutRuntime
from concord.store import Repository
from tests.llm.helpers import write_fake_gguf

FAKE = "tests.llm.isolated_fake:EchoRuntime"


def ask(runtime: IsolatedRuntime, prompt: str) -> str:
    return runtime.generate(GenerationRequest(prefix="record", prompt=prompt)).text


@pytest.fixture
def store(tmp_path: Path) -> ModelStore:
    return ModelStore.open(tmp_path / "models")


@pytest.fixture
def entry(store: ModelStore, tmp_path: Path):
    return store.add(write_fake_gguf(tmp_path / "models" / "toy.gguf"), role="agent")


@pytest.fixture
def runtime(entry):
    loaded = IsolatedRuntime(entry, factory=FAKE, timeout=30)
    yield loaded
    loaded.close()


def save_a_record(repo: Repository, name: str) -> None:
    doc = SourceDocument(source_id="note.txt", kind="txt", text=f"{name}: potassium 4.1\n")
    repo.save_record(Record(name=name, documents=(doc,)), "tester")


def test_generation_runs_in_a_child_that_keeps_the_prefix_state(runtime):
    first = runtime.generate(GenerationRequest(prefix="record", prompt="a"))
    second = runtime.generate(GenerationRequest(prefix="record", prompt="b"))
    pid, text = second.text.split(":")
    assert int(pid) == runtime.pid != os.getpid() and text == "b"
    assert not first.prefix_reused and second.prefix_reused


def test_native_crash_raises_model_error_and_parent_keeps_working(runtime, repo):
    save_a_record(repo, "before the crash")
    head = repo.audit_head()
    old_pid = runtime.pid
    with pytest.raises(ModelError, match=r"ended unexpectedly \(signal 11, SIGSEGV\)"):
        ask(runtime, "segfault")
    assert repo.audit_head() == head  # the crash wrote nothing
    assert ask(runtime, "again").endswith(":again")  # a fresh child
    assert runtime.pid != old_pid and runtime.restarts == 1
    save_a_record(repo, "after the crash")  # the database writer is unaffected
    assert repo.verify_audit().ok


def test_child_killed_mid_request(runtime, repo):
    save_a_record(repo, "open database")
    threading.Timer(0.5, os.kill, (runtime.pid, signal.SIGSEGV)).start()
    with pytest.raises(ModelError, match="signal 11"):
        ask(runtime, "hang")
    assert ask(runtime, "after").endswith(":after")
    assert repo.verify_audit().ok


def test_a_request_that_makes_no_progress_for_its_timeout_is_stopped(entry):
    loaded = IsolatedRuntime(entry, factory=FAKE, timeout=1.0)
    try:
        pid = loaded.pid
        with pytest.raises(ModelError, match=r"stopped while generating: nothing done for 1\.\d s"):
            ask(loaded, "hang")
        assert pid is not None
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # the hung child is gone
        assert ask(loaded, "next").endswith(":next")
    finally:
        loaded.close()


def test_hash_is_checked_in_the_parent_before_any_child_starts(entry, monkeypatch):
    path = entry.resolved_path()
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF  # same size, one bit pattern changed
    path.write_bytes(bytes(data))

    def no_child(*args, **kwargs):
        raise AssertionError("a child was started for a file with the wrong hash")

    monkeypatch.setattr(isolated.subprocess, "Popen", no_child)
    with pytest.raises(ModelError, match=REFUSAL):
        IsolatedRuntime(entry, factory=FAKE)


def test_swapped_file_is_refused(entry, tmp_path):
    other = write_fake_gguf(tmp_path / "other.gguf", context_length=4096)
    shutil.copyfile(other, entry.resolved_path())
    with pytest.raises(ModelError, match="manifest"):
        IsolatedRuntime(entry, factory=FAKE)


def test_truncated_gguf_registered_with_its_own_hash_fails_in_the_child(store, tmp_path):
    pytest.importorskip("llama_cpp")
    truncated = write_fake_gguf(tmp_path / "models" / "cut.gguf")
    truncated.write_bytes(truncated.read_bytes()[:-4000])
    entry = store.add(truncated, role="agent", n_ctx=512)  # the hash matches: llama.cpp decides
    with pytest.raises(ModelError) as caught:
        IsolatedRuntime(entry)
    message = str(caught.value)
    assert "cut" in message and ("could not load" in message or "ended unexpectedly" in message)
    # The parent is fine and can still run a model.
    good = IsolatedRuntime(
        store.add(write_fake_gguf(tmp_path / "models" / "ok.gguf"), role="agent"), factory=FAKE
    )
    assert ask(good, "fine").endswith(":fine")
    good.close()


@pytest.mark.real_model
def test_truncated_real_model_is_refused_cleanly(default_entry, store, tmp_path):
    cut = tmp_path / "models" / "gemma-cut.gguf"
    with open(default_entry.resolved_path(), "rb") as src:
        cut.write_bytes(src.read(32 * 1024 * 1024))
    entry = store.add(cut, role="agent", n_ctx=512)
    with pytest.raises(ModelError, match="gemma-cut") as caught:
        IsolatedRuntime(entry)
    assert "could not load" in str(caught.value) or "ended unexpectedly" in str(caught.value)


def test_services_load_models_in_a_child_behind_a_watchdog(store, entry, monkeypatch):
    monkeypatch.setenv("CONCORD_MODELS", str(store.directory))
    monkeypatch.setenv("CONCORD_MODEL_TIMEOUT", "1")
    monkeypatch.setattr(services, "IsolatedRuntime", partial(IsolatedRuntime, factory=FAKE))
    svc = services.Services()
    try:
        loaded = svc.runtime()
        assert svc.runtime(entry.name) is loaded  # loaded once, shared by every agent
        assert isinstance(loaded, TimeoutRuntime) and isinstance(loaded.inner, IsolatedRuntime)
        assert loaded.inner.timeout == 1.0 and loaded.seconds == services.BACKSTOP_SECONDS
        first = loaded.generate(GenerationRequest(prefix="record", prompt="a"))
        second = loaded.generate(GenerationRequest(prefix="record", prompt="b"))
        assert int(first.text.split(":")[0]) not in (os.getpid(), None)
        assert not first.prefix_reused and second.prefix_reused
        hung = loaded.inner.pid
        with pytest.raises(ModelError, match=r"nothing done for 1\.\d s"):
            loaded.generate(GenerationRequest(prefix="record", prompt="hang"))
        assert loaded.generate(GenerationRequest(prefix="record", prompt="c")).text.endswith(":c")
        assert loaded.inner.pid != hung
    finally:
        svc.close()
    assert loaded.inner.pid is None  # closing the services stops the child
