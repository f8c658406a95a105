"""Clocks for the benchmark: time spent inside the model, decode rates, peak memory."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from concord.llm.runtime import (
    Generation,
    GenerationRequest,
    ParallelRuntime,
    Runtime,
    StopCheck,
    generate_all,
)


@dataclass
class ModelCall:
    request: GenerationRequest
    generation: Generation


class TimedRuntime:
    """A Runtime that forwards to `inner` (decoding together when it can) and records every
    call, its generation, and the wall time spent waiting for the model.

    Requests decoded together overlap in time, so their `Generation.seconds` are not
    added: `model_seconds` is the wall time inside the inner runtime, and `prompt_seconds`
    counts, for each batch, the wait until the last of its prompts was evaluated.
    `seconds_by_kind` splits `model_seconds` by `kind(request)` of each call, e.g. by agent
    role; a batch of several kinds counts under them joined by "+" (the anaesthetist and the
    specialists decoded together: "anaesthetist+specialist")."""

    # its batches go to `generate_all` on the inner runtime, which answers added requests
    takes_added_requests = True

    def __init__(
        self, inner: Runtime, kind: Callable[[GenerationRequest], str] = lambda r: r.agent
    ) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.model_sha256 = inner.model_sha256
        self.parallel = int(getattr(inner, "parallel", 1))
        self.calls: list[ModelCall] = []
        self.model_seconds = 0.0
        self.prompt_seconds = 0.0
        self.seconds_by_kind: dict[str, float] = {}
        self._kind = kind

    def _spent(self, requests: Sequence[GenerationRequest], seconds: float) -> None:
        self.model_seconds += seconds
        kind = "+".join(sorted({self._kind(r) for r in requests}))
        self.seconds_by_kind[kind] = self.seconds_by_kind.get(kind, 0.0) + seconds

    def generate(self, request: GenerationRequest) -> Generation:
        started = time.perf_counter()
        generation = self.inner.generate(request)
        self._spent([request], time.perf_counter() - started)
        self.prompt_seconds += generation.prompt_seconds
        self.calls.append(ModelCall(request, generation))
        return generation

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]:
        answers = generate_all(self.inner, requests, should_stop)
        prompt = 0.0
        while True:
            started = time.perf_counter()
            try:
                index, generation = next(answers)
            except StopIteration:
                break
            finally:
                if requests:  # the kinds of the batch so far (it may grow)
                    self._spent(requests, time.perf_counter() - started)
            together = isinstance(self.inner, ParallelRuntime)
            prompt = (
                max(prompt, generation.prompt_seconds)
                if together
                else prompt + (generation.prompt_seconds)
            )
            self.calls.append(ModelCall(requests[index], generation))
            yield index, generation
        self.prompt_seconds += prompt

    def close(self) -> None:  # the caller owns the inner runtime
        pass

    @property
    def completion_tokens(self) -> int:
        return sum(c.generation.completion_tokens for c in self.calls)


def decode_seconds(generation: Generation) -> float:
    """Time spent producing output tokens (the whole call when the runtime does not report
    its prompt time)."""
    return max(0.0, generation.seconds - generation.prompt_seconds)


def decode_rate(generation: Generation) -> float | None:
    """Output tokens per second of decoding, None if nothing was timed."""
    seconds = decode_seconds(generation)
    return generation.completion_tokens / seconds if seconds > 0 else None


def peak_rss_mb() -> float | None:
    """Peak resident memory of this process in MB (None where the OS does not say)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, kB on Linux
    return peak * scale / 1e6
