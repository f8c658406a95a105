"""Requests decoded together: the protocol (`generate_all`), through the child process and
through the watchdog, with answers as they finish and cancellation mid-decode."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path

import pytest

from concord.errors import Cancelled, ModelError
from concord.llm.isolated import IsolatedRuntime
from concord.llm.registry import ModelStore
from concord.llm.runtime import (
    FinishReason,
    Generation,
    GenerationRequest,
    ParallelRuntime,
    StopCheck,
    generate_all,
)
from concord.llm.scripted import ScriptedRuntime
from concord.llm.watchdog import TimeoutRuntime
from tests.llm.helpers import write_fake_gguf

FAKE = "tests.llm.isolated_fake:EchoRuntime"


def requests(*prompts: str) -> list[GenerationRequest]:
    return [GenerationRequest(prefix="record", prompt=p) for p in prompts]


def answer(text: str) -> Generation:
    return Generation(text, 1, 1, 0.0, True, FinishReason.STOP)


class Batched:
    """A parallel runtime that answers in reverse order, optionally waiting before each."""

    model_name = "batched"
    model_sha256 = "0" * 64
    parallel = 4

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.batches: list[list[str]] = []
        self.stopped = threading.Event()

    def generate(self, request: GenerationRequest) -> Generation:
        return answer(request.prompt)

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]:
        self.batches.append([r.prompt for r in requests])
        for index in reversed(range(len(requests))):
            deadline = time.monotonic() + self.delay
            while time.monotonic() < deadline:
                if should_stop is not None and should_stop():
                    self.stopped.set()
                    raise Cancelled("generation cancelled")
                time.sleep(0.01)
            yield index, answer(requests[index].prompt)

    def close(self) -> None:
        pass


def test_a_runtime_that_cannot_batch_answers_one_after_another_and_can_be_stopped() -> None:
    runtime = ScriptedRuntime(["one", "two", "three"])
    assert not isinstance(runtime, ParallelRuntime)
    assert [(i, g.text) for i, g in generate_all(runtime, requests("a", "b", "c"))] == [
        (0, "one"),
        (1, "two"),
        (2, "three"),
    ]
    asked: list[int] = []
    runtime = ScriptedRuntime(["one", "two", "three"])
    with pytest.raises(Cancelled):
        for index, _ in generate_all(runtime, requests("a", "b", "c"), lambda: bool(asked)):
            asked.append(index)
    assert asked == [0] and len(runtime.requests) == 1


def test_a_parallel_runtime_gets_every_request_at_once_and_answers_as_they_finish() -> None:
    runtime = Batched()
    assert isinstance(runtime, ParallelRuntime)
    answers = list(generate_all(runtime, requests("a", "b", "c")))
    assert runtime.batches == [["a", "b", "c"]]
    assert [(i, g.text) for i, g in answers] == [(2, "c"), (1, "b"), (0, "a")]


def test_the_watchdog_passes_answers_through_and_times_out_per_answer() -> None:
    watched = TimeoutRuntime(Batched(), seconds=5)
    assert isinstance(watched, ParallelRuntime) and watched.parallel == 4
    assert sorted(i for i, _ in watched.generate_many(requests("a", "b"))) == [0, 1]
    slow = Batched(delay=3.0)
    watched = TimeoutRuntime(slow, seconds=0.5)
    with pytest.raises(ModelError, match="did not respond within 0.5 s"):
        list(watched.generate_many(requests("a", "b")))
    # The abandoned batch is told to stop at its next step, and then frees the runtime.
    assert slow.stopped.wait(5)


def test_the_watchdog_forwards_a_cancel_and_errors_of_the_inner_runtime() -> None:
    watched = TimeoutRuntime(Batched(delay=0.2), seconds=5)
    started = time.monotonic()
    with pytest.raises(Cancelled):
        list(watched.generate_many(requests("a", "b"), lambda: time.monotonic() - started > 0.1))

    class Broken(Batched):
        def generate_many(self, requests, should_stop=None):  # type: ignore[override]
            raise ModelError("llama.cpp failed to decode", subject="batched")
            yield  # pragma: no cover

    with pytest.raises(ModelError, match="failed to decode"):
        list(TimeoutRuntime(Broken(), seconds=5).generate_many(requests("a")))


@pytest.fixture
def child(tmp_path: Path) -> Iterator[IsolatedRuntime]:
    store = ModelStore.open(tmp_path / "models")
    entry = store.add(write_fake_gguf(tmp_path / "models" / "toy.gguf"), role="agent")
    runtime = IsolatedRuntime(entry, factory=FAKE, timeout=30)
    yield runtime
    runtime.close()


def test_the_child_decodes_together_and_streams_each_answer(child: IsolatedRuntime) -> None:
    assert child.parallel == 3  # reported by the child's runtime when it loaded
    answers = list(child.generate_many(requests("a", "b", "c")))
    assert [i for i, _ in answers] == [2, 1, 0]  # in the order the child finished them
    assert [g.text.split(":")[1] for _, g in answers] == ["c", "b", "a"]


def test_a_cancel_reaches_the_child_mid_decode_and_the_next_request_is_clean(
    child: IsolatedRuntime,
) -> None:
    started = time.monotonic()
    seen: list[int] = []
    with pytest.raises(Cancelled):
        for index, _ in child.generate_many(
            requests("slow", "b"), lambda: time.monotonic() - started > 0.5
        ):
            seen.append(index)
    assert seen == [1]  # "b" finished before the slow one was cancelled
    assert time.monotonic() - started < 20  # not the 60 s the slow request would take
    pid = child.pid
    answers = list(child.generate_many(requests("x", "y")))
    assert sorted(g.text.split(":")[1] for _, g in answers) == ["x", "y"]
    assert child.pid == pid and child.restarts == 0


def test_a_caller_that_stops_listening_leaves_the_child_ready(child: IsolatedRuntime) -> None:
    answers = child.generate_many(requests("slow", "b"))
    index, _ = next(answers)
    assert index == 1
    answers.close()  # e.g. the pipeline was cancelled between two answers
    assert child.generate(GenerationRequest(prefix="record", prompt="z")).text.endswith(":z")


def test_a_batch_dropped_after_the_child_answered_everything_leaves_no_reply_behind(
    child: IsolatedRuntime,
) -> None:
    """Both answers are in the pipe when the caller drops the batch after the first: the
    child, told to cancel while it waits for more, ends the batch, and that end is read
    then, not by the next request."""
    answers = child.generate_many(requests("b", "c"))
    next(answers)
    time.sleep(0.3)  # the child has answered both and waits for more, or for the end
    answers.close()
    pid = child.pid
    assert child.generate(GenerationRequest(prefix="record", prompt="z")).text.endswith(":z")
    assert [g.text.split(":")[1] for _, g in child.generate_many(requests("x"))] == ["x"]
    assert child.pid == pid and child.restarts == 0


def test_a_cancel_that_crosses_the_last_answer_is_not_read_by_the_next_request(
    child: IsolatedRuntime,
) -> None:
    seen: list[int] = []
    stop_now = threading.Event()
    for index, _ in child.generate_many(requests("b"), stop_now.is_set):
        seen.append(index)
        stop_now.set()  # the caller's stop arrives as the last answer is handled
        time.sleep(0.5)  # the child sees the cancel while it waits for more
    assert seen == [0]
    assert child.generate(GenerationRequest(prefix="record", prompt="z")).text.endswith(":z")


def test_requests_added_to_a_childs_batch_are_answered_in_it(child: IsolatedRuntime) -> None:
    watched = TimeoutRuntime(child, seconds=5)
    asked = requests("a", "b")
    texts: dict[int, str] = {}
    for index, generation in generate_all(watched, asked):
        texts[index] = generation.text.split(":")[1]
        if len(asked) == 2:
            asked.extend(requests("c", "d"))
    assert texts == {0: "a", 1: "b", 2: "c", 3: "d"}
    assert child.generate(GenerationRequest(prefix="record", prompt="z")).text.endswith(":z")


def test_a_request_added_after_a_batch_ended_is_answered_in_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The watchdog's batch waits a while for its caller to handle an answer, then goes
    on (a caller that keeps a batch it never asks again must not hold the model): what the
    caller adds afterwards is answered all the same."""
    import concord.llm.watchdog as watchdog

    monkeypatch.setattr(watchdog, "HANDLED_WAIT_S", 0.2)
    inner = Batched()
    inner.takes_added_requests = True  # type: ignore[attr-defined]
    watched = TimeoutRuntime(inner, seconds=5)
    asked = requests("a")
    texts = []
    for _, generation in generate_all(watched, asked):
        texts.append(generation.text)
        if len(asked) == 1:
            time.sleep(0.6)  # longer than the batch waits
            asked.append(requests("b")[0])
    assert texts == ["a", "b"]
    assert inner.batches == [["a"], ["b"]]
    # a caller that keeps a batch and never asks again does not hold the model
    kept = watched.generate_many(requests("c", "d"))
    next(kept)
    deadline = time.monotonic() + 30  # the batch waits 0.2 s an answer, on a busy machine longer
    while not watched._pending.done():  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "a batch nobody asks again still holds the model"
        time.sleep(0.05)
    assert [g.text for _, g in watched.generate_many(requests("e"))] == ["e"]
    kept.close()


def test_a_call_started_as_soon_as_a_batch_has_ended_finds_the_model_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The batch's end reaches its caller only once the runtime is free: here freeing it
    takes 0.3 s (a slow thread), and the caller's next call, made at once, is not refused as
    'still busy'."""
    import concord.llm.watchdog as watchdog

    class SlowToFree(Future):  # type: ignore[type-arg]
        def set_result(self, result):  # type: ignore[no-untyped-def]
            time.sleep(0.3)
            super().set_result(result)

    monkeypatch.setattr(watchdog, "Future", SlowToFree)
    watched = TimeoutRuntime(Batched(), seconds=5)
    for _ in range(3):
        assert sorted(g.text for _, g in watched.generate_many(requests("a", "b"))) == ["a", "b"]
        assert watched.generate(requests("c")[0]).text == "c"
