"""A runtime wrapper that turns a model that stops responding into one clear ModelError.

`TimeoutRuntime(inner, seconds)` runs each `inner.generate` in a worker thread and waits at
most `seconds`. A generation cannot be interrupted safely (llama.cpp holds the model), so
on a timeout the call is abandoned: the caller gets ModelError at once, the worker thread
finishes in the background, and until it has finished the wrapper refuses new requests
(the inner runtime is never entered twice at the same time). A runtime or HTTP client that
raises TimeoutError is reported the same way.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future

from concord.errors import InputError, ModelError
from concord.llm.runtime import (
    FinishReason,
    Generation,
    GenerationRequest,
    Runtime,
    StopCheck,
    generate_all,
)

DEFAULT_TIMEOUT_S = 600.0
"""Longest a single generation may take before the model is declared unresponsive."""
TIMEOUT_ENV = "CONCORD_MODEL_TIMEOUT"
"""Environment variable overriding DEFAULT_TIMEOUT_S (seconds, > 0)."""


def timeout_from_env(default: float = DEFAULT_TIMEOUT_S) -> float:
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


class TimeoutRuntime:
    """`inner` with a time limit on every generation (see the module doc)."""

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

    def generate(self, request: GenerationRequest) -> Generation:
        future = self._claim()
        worker = threading.Thread(
            target=self._run, args=(request, future), name="concord-model-call", daemon=True
        )
        worker.start()
        try:
            return future.result(timeout=self.seconds)
        except TimeoutError as exc:  # the wait ran out, or the inner runtime timed out
            if future.done() and future.exception() is exc:
                raise self._fail(f"model did not respond in time ({exc or 'timeout'})") from exc
            if future.done() and future.exception() is None:
                return future.result()  # finished just as the wait ran out
            raise self._fail(f"model did not respond within {self.seconds:g} s") from None

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]:
        """The inner runtime's answers as they come, each awaited at most `seconds`; a
        caller that stops listening stops the inner decoding at its next step."""
        future = self._claim()
        abandoned = threading.Event()

        def stop() -> bool:
            return abandoned.is_set() or (should_stop is not None and should_stop())

        answers: queue.Queue[tuple[str, object]] = queue.Queue()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                for answer in generate_all(self.inner, requests, stop):
                    answers.put(("answer", answer))
                answers.put(("done", None))
            except BaseException as exc:  # handed to the caller through the queue
                answers.put(("error", exc))
            finally:
                # frees the runtime; the batch's answers went through the queue
                future.set_result(Generation("", 0, 0, 0.0, False, FinishReason.STOP))
                with self._lock:
                    close_now = self._closed
                if close_now:
                    self._close_inner_once()

        threading.Thread(target=run, name="concord-model-batch", daemon=True).start()
        try:
            while True:
                try:
                    kind, value = answers.get(timeout=self.seconds)
                except queue.Empty:
                    raise self._fail(f"model did not respond within {self.seconds:g} s") from None
                if kind == "done":
                    return
                if kind == "error":
                    assert isinstance(value, BaseException)
                    if isinstance(value, TimeoutError):
                        raise self._fail(f"model did not respond in time ({value})") from value
                    raise value
                yield value  # type: ignore[misc]
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
