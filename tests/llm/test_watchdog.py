"""The watchdog judges a model by its progress: a slow model that keeps writing (or keeps
reading its prompt) is never stopped, however long the answer takes; one that stops is
stopped one window after its last progress, with what was measured in the message."""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from concord.errors import ModelError
from concord.llm.isolated import IsolatedRuntime
from concord.llm.registry import ModelEntry, ModelStore
from concord.llm.runtime import FinishReason, Generation, GenerationRequest
from concord.llm.watchdog import (
    Progress,
    ProgressMeter,
    ProgressWatch,
    TimeoutRuntime,
    describe_stall,
)
from tests.llm.helpers import write_fake_gguf

FAKE = "tests.llm.isolated_fake:EchoRuntime"
WINDOW = 2.0  # seconds without progress before a model counts as stuck


def ask(runtime: IsolatedRuntime | TimeoutRuntime, prompt: str):
    return runtime.generate(GenerationRequest(prefix="record", prompt=prompt))


@pytest.fixture
def entry(tmp_path: Path) -> ModelEntry:
    store = ModelStore.open(tmp_path / "models")
    return store.add(write_fake_gguf(tmp_path / "models" / "toy.gguf"), role="agent")


@pytest.fixture
def child(entry: ModelEntry) -> Iterator[IsolatedRuntime]:
    runtime = IsolatedRuntime(entry, factory=FAKE, timeout=WINDOW)
    yield runtime
    runtime.close()


def test_a_slow_model_that_keeps_writing_is_not_stopped(child: IsolatedRuntime) -> None:
    pid = child.pid
    started = time.monotonic()
    answer = ask(child, "write 12 every 0.3")  # 3.6 s in all, a token every 0.3 s
    assert time.monotonic() - started > 1.5 * WINDOW  # longer than the window...
    assert answer.completion_tokens == 12  # ...and answered in full
    assert child.pid == pid and child.restarts == 0


def test_a_slow_prompt_evaluation_is_not_stopped(child: IsolatedRuntime) -> None:
    answer = ask(child, "read 12 every 0.3")
    assert answer.completion_tokens == 1 and child.restarts == 0


def test_a_slow_batch_is_judged_by_its_progress_not_its_length(child: IsolatedRuntime) -> None:
    requests = [GenerationRequest(prefix="record", prompt=p) for p in ("write 8 every 0.3",) * 2]
    answers = dict(child.generate_many(requests))  # 4.8 s, never silent for the window
    assert [answers[i].completion_tokens for i in (0, 1)] == [8, 8]


def test_a_model_that_stops_writing_is_stopped_with_what_was_measured(
    child: IsolatedRuntime,
) -> None:
    pid = child.pid
    assert pid is not None
    started = time.monotonic()
    with pytest.raises(ModelError) as caught:
        ask(child, "write 7 then stop")
    assert time.monotonic() - started < 10 * WINDOW  # not the 120 s the fake would hang
    message = str(caught.value)
    # the gap is measured when the watch wakes, so a busy machine may print 2.1 s or more
    assert re.search(
        r"model process was stopped while generating: no token for 2\.\d s after 7 tokens at",
        message,
    )
    assert "tok/s" in message
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the stuck child is gone
    assert ask(child, "next").text.endswith(":next")  # a fresh one answers


class Trickling:
    """An in-process runtime with its own watch that never stops it (as a child's pipe
    that hangs would not): it writes `tokens` tokens `every` seconds apart, then hangs
    until released if `stop` is in the prompt."""

    model_name, model_sha256 = "trickling", "t" * 64

    def __init__(self, window: float) -> None:
        self.watch = ProgressWatch(window)
        self.release = threading.Event()

    def generate(self, request: GenerationRequest) -> Generation:
        self.watch.start()
        words = request.prompt.split()
        count, every = words[1], words[3]
        for written in range(1, int(count) + 1):
            time.sleep(float(every))
            self.watch.observe(Progress(tokens=written, decode_seconds=written * float(every)))
        if "stop" in request.prompt:
            self.release.wait(30)
        return Generation("done", 1, int(count), 0.0, False, FinishReason.STOP)

    def close(self) -> None:
        self.release.set()


def test_the_backstop_judges_the_inner_runtimes_progress() -> None:
    inner = Trickling(window=WINDOW)
    watched = TimeoutRuntime(inner, seconds=0.5)
    try:
        # 12 tokens 0.3 s apart: 3.6 s, more than window + backstop, never silent that long
        assert ask(watched, "write 12 every 0.3").completion_tokens == 12
        started = time.monotonic()
        with pytest.raises(ModelError) as caught:
            ask(watched, "write 5 every 0.05 then stop")
        waited = time.monotonic() - started
        assert WINDOW + 0.5 <= waited < 10 * WINDOW  # the inner window, then the backstop
        assert "trickling: model stopped making progress: no token for" in str(caught.value)
        assert "after 5 tokens at" in str(caught.value)
    finally:
        watched.close()
        inner.close()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_watch_counts_only_progress_and_says_what_it_measured() -> None:
    clock = Clock()
    watch = ProgressWatch(120.0, clock=clock)
    watch.start()
    clock.now += 100
    watch.observe(Progress(prompt_tokens=512, prompt_total=4353, prompt_seconds=10.0))
    assert watch.remaining() == 120.0  # the prompt advanced: a full window again
    clock.now += 50
    watch.observe(Progress(prompt_tokens=512, prompt_total=4353, prompt_seconds=10.0))
    assert watch.remaining() == 70.0  # the same counts again are no progress
    assert watch.describe() == (
        "no progress for 50 s reading the prompt, after 512 of 4,353 prompt tokens at 51.2 tok/s"
    )
    watch.observe(Progress(prompt_tokens=512, prompt_total=4353, steps=3))
    assert watch.remaining() == 120.0  # a step inside a long evaluation counts
    clock.now += 130
    watch.observe(Progress(prompt_tokens=4353, prompt_total=4353, tokens=812, decode_seconds=261.9))
    clock.now += 120
    assert watch.remaining() == 0.0
    assert watch.describe() == "no token for 120 s after 812 tokens at 3.1 tok/s"
    watch.answered()
    assert watch.remaining() == 120.0


def test_a_call_that_did_nothing_says_so() -> None:
    assert describe_stall(Progress(), 7.25) == (
        "nothing done for 7.2 s (no prompt token evaluated, no token written)"
    )


def test_the_meter_reports_counts_that_moved_while_the_runtime_is_busy() -> None:
    sent: list[Progress] = []
    meter = ProgressMeter(sent.append, prompt_total=8, every=0.05)
    meter.prompt(8, 0.5)  # moved before its thread runs: a late first tick sees them all
    meter.token(3)
    with meter:
        deadline = time.monotonic() + 5
        while not sent:  # reported by the meter's own thread, not the caller
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(0.3)  # nothing moves: nothing more is sent
        assert [(p.prompt_tokens, p.tokens) for p in sent] == [(8, 3)]
        meter.step()
    assert [(p.prompt_tokens, p.tokens, p.steps) for p in sent] == [(8, 3, 0), (8, 3, 1)]


@pytest.mark.real_model
def test_the_real_runtime_reports_its_prompt_its_graph_steps_and_its_tokens(
    default_entry: ModelEntry,
) -> None:
    from concord.llm.registry import load_runtime

    runtime = load_runtime(default_entry, n_ctx=1024, n_threads=1)
    request = GenerationRequest(
        prefix="Record: " + "K+ 6.1 mmol/L, creatinine 180. " * 20,
        prompt="Renal risk:",
        max_tokens=12,
    )
    reports: list[Progress] = []
    try:
        quiet = runtime.generate(request)
        runtime.forget_prefixes()  # the record is read again, now with a meter
        runtime.on_progress = reports.append
        reported = runtime.generate(request)
    finally:
        runtime.close()
    assert reported.text == quiet.text  # counting changes nothing
    last = reports[-1]
    assert last.prompt_tokens == last.prompt_total == reported.prompt_tokens
    assert last.tokens == reported.completion_tokens
    assert last.steps > 0  # llama.cpp's graph nodes, counted while the prompt was read
