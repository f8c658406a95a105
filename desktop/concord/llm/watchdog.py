"""The watchdog: tells a slow model that is still working from one that has stopped.

A model is judged by its progress, not by how long a call takes. The runtime counts what
it has done on the current call (`Progress`: prompt tokens evaluated, output tokens
written, and finer steps inside one long evaluation) with a `ProgressMeter`; the
model's child process sends those counts to the parent (`concord.llm.isolated`), whose
`ProgressWatch` stops the child only when none of them has moved for `window` seconds
(CONCORD_MODEL_TIMEOUT, default 120 s). Its message says what it measured: "no token for
120 s after 812 tokens at 3.1 tok/s". A model on a loaded machine that writes one token
every 20 s is never killed; one that hangs mid-answer is killed 120 s after its last token
instead of at a fixed limit for the whole answer (under load a 1.5B model's brief took
longer than the fixed 600 s that killed it).

`TimeoutRuntime(inner, seconds)` is the outer backstop in the caller's process: it runs
each call in a worker thread and gives up `seconds` after the inner runtime's own watch
(when it has one, as the child process's runtime has) should have stopped it, that is when
the watch has seen no progress for its window plus `seconds`; for a runtime that reports
no progress, when the whole call has taken `seconds`. A generation cannot be interrupted
safely (llama.cpp holds the model), so the call is then abandoned: the caller gets
ModelError at once, the worker thread finishes in the background, and until it has
finished the wrapper refuses new requests (the inner runtime is never entered twice at the
same time). A runtime or HTTP client that raises TimeoutError is reported the same way.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import asdict, dataclass, fields
from typing import Any

from concord.errors import InputError, ModelError
from concord.llm.runtime import (
    FinishReason,
    Generation,
    GenerationRequest,
    Runtime,
    StopCheck,
    generate_all,
)

DEFAULT_TIMEOUT_S = 120.0
"""Longest a model may go without progress (no prompt token, no output token, no step of
an evaluation) before it is declared stuck."""
TIMEOUT_ENV = "CONCORD_MODEL_TIMEOUT"
"""Environment variable overriding DEFAULT_TIMEOUT_S (seconds without progress, > 0)."""
PROGRESS_EVERY_S = 1.0
"""How often a runtime reports its progress (when it has moved); far below the window."""
WAIT_SLICE_S = 0.2
"""How often a waiting caller looks at the watch."""
HANDLED_WAIT_S = 60.0
"""How long a batch waits for its caller to have handled an answer before it goes on: a
caller that keeps the batch but never asks for more (an exception kept with its traceback)
must not hold the model; requests it adds later are answered in another batch
(`generate_all`)."""


def timeout_from_env(default: float = DEFAULT_TIMEOUT_S) -> float:
    """$CONCORD_MODEL_TIMEOUT (seconds a model may go without progress), else `default`."""
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise InputError(f"{TIMEOUT_ENV} must be a number of seconds", subject=raw) from None
    if not value > 0:
        raise InputError(f"{TIMEOUT_ENV} must be more than 0 seconds", subject=raw)
    return value


@dataclass(frozen=True)
class Progress:
    """What a runtime has done so far on the current call (cumulative counts)."""

    prompt_tokens: int = 0  # prompt tokens evaluated
    prompt_total: int = 0  # prompt tokens the call evaluates in all (as far as known)
    tokens: int = 0  # output tokens written
    prompt_seconds: float = 0.0  # spent evaluating prompts
    decode_seconds: float = 0.0  # from the first output token to the last
    steps: int = 0  # finer steps inside long evaluations (compute-graph nodes)

    def advanced_from(self, before: Progress) -> bool:
        return (
            self.prompt_tokens > before.prompt_tokens
            or self.tokens > before.tokens
            or self.steps > before.steps
        )

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Progress:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


ProgressSink = Callable[[Progress], None]


def _seconds(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def _rate(count: int, seconds: float) -> str:
    if seconds <= 0 or count <= 0:
        return "an unknown rate"
    rate = count / seconds
    return f"{rate:.1f} tok/s" if rate < 100 else f"{rate:.0f} tok/s"


def describe_stall(progress: Progress, silent_for: float) -> str:
    """What the watch measured, in one phrase: "no token for 120 s after 812 tokens at
    3.1 tok/s"."""
    gap = _seconds(silent_for)
    if progress.tokens:
        rate = _rate(progress.tokens - 1, progress.decode_seconds)  # tokens after the first
        return f"no token for {gap} s after {progress.tokens:,} tokens at {rate}"
    if progress.prompt_tokens or progress.steps:
        rate = _rate(progress.prompt_tokens, progress.prompt_seconds)
        return (
            f"no progress for {gap} s reading the prompt, after {progress.prompt_tokens:,} of "
            f"{progress.prompt_total:,} prompt tokens at {rate}"
        )
    return f"nothing done for {gap} s (no prompt token evaluated, no token written)"


class ProgressMeter:
    """Counts a call's progress inside the runtime; while it is entered (`with`), a thread
    hands the counts to `sink` every `every` seconds when they have moved, and once more at
    the end. Counting is cheap (the decoding loop only adds), and the counts keep going
    out while the decoding thread is inside a long native call."""

    def __init__(
        self,
        sink: ProgressSink | None,
        prompt_total: int = 0,
        *,
        every: float = PROGRESS_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._sink = sink
        self._every = every
        self._clock = clock
        self.prompt_total = prompt_total
        self.prompt_tokens = 0
        self.tokens = 0
        self.steps = 0
        self.prompt_seconds = 0.0
        self._first_token_at: float | None = None
        self._last_token_at: float | None = None
        self._sent: Progress | None = None
        self._done = threading.Event()
        self._reporter: threading.Thread | None = None

    def __enter__(self) -> ProgressMeter:
        if self._sink is not None:
            self._reporter = threading.Thread(
                target=self._report, name="concord-progress", daemon=True
            )
            self._reporter.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._done.set()
        if self._reporter is not None:
            self._reporter.join()
            self._reporter = None
        self.send()

    def prompt(self, count: int, seconds: float) -> None:
        """`count` prompt tokens were evaluated in `seconds`."""
        self.prompt_tokens += count
        self.prompt_total = max(self.prompt_total, self.prompt_tokens)
        self.prompt_seconds += seconds

    def token(self, count: int = 1) -> None:
        """`count` output tokens were written."""
        now = self._clock()
        if self._first_token_at is None:
            self._first_token_at = now
        self._last_token_at = now
        self.tokens += count

    def step(self) -> None:
        """One step inside a long evaluation (called from llama.cpp between graph nodes)."""
        self.steps += 1

    def snapshot(self) -> Progress:
        first, last = self._first_token_at, self._last_token_at
        return Progress(
            prompt_tokens=self.prompt_tokens,
            prompt_total=self.prompt_total,
            tokens=self.tokens,
            prompt_seconds=round(self.prompt_seconds, 3),
            decode_seconds=0.0 if first is None or last is None else round(last - first, 3),
            steps=self.steps,
        )

    def send(self) -> None:
        """Hand the counts to the sink if they moved since the last time."""
        if self._sink is None:
            return
        progress = self.snapshot()
        if self._sent is None or progress.advanced_from(self._sent):
            self._sent = progress
            self._sink(progress)

    def _report(self) -> None:
        while not self._done.wait(self._every):
            self.send()


class ProgressWatch:
    """Judges one call at a time by its progress: stuck when nothing has moved for
    `window` seconds (far longer than PROGRESS_EVERY_S). Read from other threads
    (`last_advance` is one float)."""

    def __init__(self, window: float, clock: Callable[[], float] = time.monotonic) -> None:
        if not window > 0:
            raise ValueError("window must be more than 0 seconds")
        self.window = window
        self._clock = clock
        self.progress = Progress()
        self.started = self.last_advance = clock()

    def start(self) -> None:
        """A new call begins: its counts start from nothing."""
        self.progress = Progress()
        self.started = self.last_advance = self._clock()

    def observe(self, progress: Progress) -> None:
        if progress.advanced_from(self.progress):
            self.last_advance = self._clock()
        self.progress = progress

    def answered(self) -> None:
        """An answer arrived: that is progress too."""
        self.last_advance = self._clock()

    def remaining(self) -> float:
        return self.last_advance + self.window - self._clock()

    def describe(self) -> str:
        return describe_stall(self.progress, self._clock() - self.last_advance)


Answers = Generator[tuple[int, Generation], None, None]


class TimeoutRuntime:
    """`inner` with a watchdog on every call (see the module doc)."""

    # its batches go to `generate_all` on the inner runtime, which answers added requests
    takes_added_requests = True

    def __init__(self, inner: Runtime, seconds: float = DEFAULT_TIMEOUT_S) -> None:
        if not seconds > 0:
            raise ValueError("seconds must be more than 0")
        self.inner = inner
        self.seconds = seconds
        self.model_name = inner.model_name
        self.model_sha256 = inner.model_sha256
        self.parallel = int(getattr(inner, "parallel", 1))
        self._pending: Future[Generation] | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._inner_closed = False

    def _close_inner_once(self) -> None:
        with self._lock:
            if self._inner_closed:
                return
            self._inner_closed = True
        self.inner.close()

    def _fail(self, problem: str) -> ModelError:
        return ModelError(problem, subject=self.model_name)

    def _claim(self) -> Future[Generation]:
        with self._lock:
            if self._closed:
                raise self._fail("runtime is closed")
            if self._pending is not None and not self._pending.done():
                raise self._fail(
                    "model is still busy with a request that did not respond in time; "
                    "try again when it has finished"
                )
            future: Future[Generation] = Future()
            self._pending = future
            return future

    def _remaining(self, since: float) -> float:
        """Seconds left before the call counts as stuck: `seconds` after the inner
        runtime's own watch runs out (its last progress + its window), when it has one,
        else `seconds` after `since` (the call's start or the last answer)."""
        watch = getattr(self.inner, "watch", None)
        if isinstance(watch, ProgressWatch):
            return max(since, watch.last_advance) + watch.window + self.seconds - time.monotonic()
        return since + self.seconds - time.monotonic()

    def _stuck(self) -> ModelError:
        watch = getattr(self.inner, "watch", None)
        if isinstance(watch, ProgressWatch):
            return self._fail(f"model stopped making progress: {watch.describe()}")
        return self._fail(f"model did not respond within {self.seconds:g} s")

    def generate(self, request: GenerationRequest) -> Generation:
        future = self._claim()
        worker = threading.Thread(
            target=self._run, args=(request, future), name="concord-model-call", daemon=True
        )
        started = time.monotonic()
        worker.start()
        while True:
            try:
                return future.result(timeout=max(0.0, min(WAIT_SLICE_S, self._remaining(started))))
            except (TimeoutError, FutureTimeout) as exc:
                if future.done():
                    if future.exception() is exc:  # the inner runtime timed out
                        raise self._fail(
                            f"model did not respond in time ({exc or 'timeout'})"
                        ) from exc
                    return future.result()  # finished just as the wait ran out
                if self._remaining(started) <= 0:
                    raise self._stuck() from None

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]:
        """The inner runtime's answers as they come, while it makes progress; a caller
        that stops listening stops the inner decoding at its next step. The inner batch is
        asked for its next answer only once the caller has handled the last one, so the
        requests the caller added meanwhile reach it (`ParallelRuntime`)."""
        future = self._claim()
        abandoned = threading.Event()
        handled = threading.Semaphore(0)  # the caller has handled an answer

        def stop() -> bool:
            return abandoned.is_set() or (should_stop is not None and should_stop())

        answers: queue.Queue[tuple[str, object]] = queue.Queue()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            batch: Generator[tuple[int, Generation], None, None] = generate_all(
                self.inner, requests, stop
            )
            ended: tuple[str, object] = ("done", None)
            try:
                for answer in batch:
                    answers.put(("answer", answer))
                    waited = time.monotonic()
                    while not handled.acquire(timeout=WAIT_SLICE_S):
                        if abandoned.is_set():
                            return
                        if time.monotonic() - waited > HANDLED_WAIT_S:
                            break  # go on without it (what it adds later: another batch)
            except BaseException as exc:  # handed to the caller through the queue
                ended = ("error", exc)
            finally:
                # an abandoned batch is cancelled in the inner runtime; its caller has gone
                with contextlib.suppress(Exception):
                    batch.close()
                # frees the runtime; the batch's answers went through the queue
                future.set_result(Generation("", 0, 0, 0.0, False, FinishReason.STOP))
                with self._lock:
                    close_now = self._closed
                if close_now:
                    self._close_inner_once()
            # told only once the runtime is free: a caller that starts its next call as
            # soon as this one has ended must not find the model still busy
            answers.put(ended)

        threading.Thread(target=run, name="concord-model-batch", daemon=True).start()
        since = time.monotonic()
        try:
            while True:
                try:
                    wait = max(0.0, min(WAIT_SLICE_S, self._remaining(since)))
                    kind, value = answers.get(timeout=wait)
                except queue.Empty:
                    if self._remaining(since) <= 0:
                        raise self._stuck() from None
                    continue
                if kind == "done":
                    return
                if kind == "error":
                    assert isinstance(value, BaseException)
                    if isinstance(value, TimeoutError):
                        raise self._fail(f"model did not respond in time ({value})") from value
                    raise value
                yield value  # type: ignore[misc]
                since = time.monotonic()
                handled.release()
        finally:
            abandoned.set()

    def _run(self, request: GenerationRequest, future: Future[Generation]) -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(self.inner.generate(request))
        except BaseException as exc:  # handed to the caller through the future
            future.set_exception(exc)
        finally:
            with self._lock:
                close_now = self._closed
            if close_now:
                self._close_inner_once()

    def close(self) -> None:
        """Close the inner runtime now, or as soon as an abandoned call has finished."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            busy = self._pending is not None and not self._pending.done()
        if not busy:
            self._close_inner_once()
