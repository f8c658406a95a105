"""The one protocol every model runtime implements.

A request is split in two: `prefix`, the part shared by every agent and judge prompt on
a record (preamble + the delimited patient record, byte-identical across agents), and
`prompt`, the agent-specific remainder. The runtime wraps both in the model's own chat
template as `template_head + prefix + prompt + template_tail`, so that the token prefix
`template_head + prefix` can be evaluated once and reused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from concord.errors import Cancelled

DEFAULT_MAX_TOKENS = 512


class FinishReason(StrEnum):
    """Why a generation stopped (the strings llama.cpp reports)."""

    STOP = "stop"
    LENGTH = "length"


@dataclass(frozen=True)
class GenerationRequest:
    prefix: str
    prompt: str
    schema: dict[str, Any] | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    temperature: float = 0.0
    seed: int = 0
    agent: str = ""  # who asks (for logs of which server answered whom); not sent to the model


@dataclass(frozen=True)
class Generation:
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    prefix_reused: bool
    finish_reason: FinishReason
    prompt_seconds: float = 0.0  # of `seconds`: its prompt, once it had a sequence (0: unknown)


@runtime_checkable
class Runtime(Protocol):
    model_name: str
    model_sha256: str

    def generate(self, request: GenerationRequest) -> Generation: ...

    def close(self) -> None: ...


StopCheck = Callable[[], bool]
"""Asked between decoding steps; True cancels the generation (concord.errors.Cancelled)."""


@runtime_checkable
class ParallelRuntime(Runtime, Protocol):
    """A runtime that decodes several requests on the same prefix together.

    `generate_many` yields `(index into requests, Generation)` as each request finishes, in
    the order they finish; every request is answered exactly once. `parallel` is how many
    sequences it decodes at the same time (more requests wait for a free one)."""

    parallel: int

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]: ...


def generate_all(
    runtime: Runtime, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
) -> Iterator[tuple[int, Generation]]:
    """Every request's generation as it finishes: decoded together by a ParallelRuntime,
    else one after another (cancellation then takes effect between requests)."""
    if isinstance(runtime, ParallelRuntime):
        yield from runtime.generate_many(requests, should_stop)
        return
    for index, request in enumerate(requests):
        if should_stop is not None and should_stop():
            raise Cancelled("generation cancelled", subject=runtime.model_name)
        yield index, runtime.generate(request)
