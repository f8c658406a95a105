"""Clocks for the benchmark: time spent inside the model, decode rates, peak memory."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from concord.llm.runtime import Generation, GenerationRequest, Runtime


@dataclass
class ModelCall:
    request: GenerationRequest
    generation: Generation


class TimedRuntime:
    """A Runtime that forwards to `inner` and records every call and its generation."""

    def __init__(self, inner: Runtime) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.model_sha256 = inner.model_sha256
        self.calls: list[ModelCall] = []

    def generate(self, request: GenerationRequest) -> Generation:
        generation = self.inner.generate(request)
        self.calls.append(ModelCall(request, generation))
        return generation

    def close(self) -> None:  # the caller owns the inner runtime
        pass

    @property
    def model_seconds(self) -> float:
        """Time inside the model, as the runtime itself measured each generation."""
        return sum(c.generation.seconds for c in self.calls)

    @property
    def prompt_seconds(self) -> float:
        return sum(c.generation.prompt_seconds for c in self.calls)

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
