"""The one protocol every model runtime implements.

A request is split in three: `prefix`, the part shared by every agent and judge prompt on
a record (preamble + the delimited patient record, byte-identical across agents);
`preface`, the part a group of requests shares after it (the instructions every agent of
the panel reads; empty for a judge); and `prompt`, the request's own remainder. The runtime
wraps them in the model's own chat template as `template_head + prefix + preface + prompt +
template_tail`, so that the token prefixes `template_head + prefix` and `... + preface` can
each be evaluated once and reused.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, overload, runtime_checkable

from concord.errors import Cancelled, ModelError

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
    preface: str = ""  # after the prefix, shared by a group of requests (module doc)

    @property
    def own_text(self) -> str:
        """What a runtime that keeps no prefix state sends after the prefix."""
        return self.preface + self.prompt


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
    sequences it decodes at the same time (more requests wait for a free one).

    Requests added while it answers: the caller may append to `requests` (a list) while it
    handles an answer, that is between two answers it is given (the panel adds the
    specialists the anaesthetist chose as soon as its brief is in, while the specialists
    every record needs are still being written). A runtime with `takes_added_requests`
    takes them in the same call (llama.cpp in-process and in its child process start them at
    their next decoding step; a wrapper such as the watchdog passes them to its inner runtime
    through `generate_all`); `generate_all` answers them after the others for any other
    runtime. A runtime looks for added requests only when its caller has taken the last
    answer (a generator resumed), so an answer's follow-up is never missed."""

    parallel: int

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]: ...


def takes_added_requests(runtime: Runtime) -> bool:
    """Whether `runtime.generate_many` starts requests appended while it answers."""
    return bool(getattr(runtime, "takes_added_requests", False))


class _Tail(Sequence[GenerationRequest]):
    """The requests of a growing list from `start` on, growing with it."""

    def __init__(self, requests: Sequence[GenerationRequest], start: int) -> None:
        self._requests = requests
        self._start = start

    def __len__(self) -> int:
        return max(0, len(self._requests) - self._start)

    @overload
    def __getitem__(self, index: int) -> GenerationRequest: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[GenerationRequest]: ...

    def __getitem__(self, index: int | slice) -> GenerationRequest | Sequence[GenerationRequest]:
        items = list(self._requests[self._start :])
        return items[index]


def generate_all(
    runtime: Runtime, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
) -> Generator[tuple[int, Generation], None, None]:
    """Every request's generation as it finishes: decoded together by a ParallelRuntime,
    else one after another (cancellation then takes effect between requests).

    `requests` may grow while answers come (see ParallelRuntime): every request appended
    by the caller while it handles an answer is answered too, started at once by a runtime
    that `takes_added_requests`, else after the requests before it. One appended after a
    batch has ended (a caller that took longer than the runtime waited) starts another."""
    start = 0
    while start < len(requests):
        if isinstance(runtime, ParallelRuntime):
            native = takes_added_requests(runtime)
            batch = _Tail(requests, start) if native else list(requests[start:])
            answers = runtime.generate_many(batch, should_stop)
        else:
            batch = _Tail(requests, start)
            answers = _one_by_one(runtime, batch, should_stop)
        answered = 0
        for index, generation in answers:
            answered += 1
            yield start + index, generation
        if not answered:  # a batch must answer its requests, or say why (an error)
            raise ModelError(
                f"the model answered none of {len(requests) - start} request(s)",
                subject=runtime.model_name,
            )
        start += answered


def _one_by_one(
    runtime: Runtime, requests: Sequence[GenerationRequest], should_stop: StopCheck | None
) -> Iterator[tuple[int, Generation]]:
    index = 0
    while index < len(requests):
        if should_stop is not None and should_stop():
            raise Cancelled("generation cancelled", subject=runtime.model_name)
        yield index, runtime.generate(requests[index])
        index += 1
