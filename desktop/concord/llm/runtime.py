"""The one protocol every model runtime implements.

A request is split in two: `prefix`, the part shared by every agent and judge prompt on
a record (preamble + the delimited patient record, byte-identical across agents), and
`prompt`, the agent-specific remainder. The runtime wraps both in the model's own chat
template as `template_head + prefix + prompt + template_tail`, so that the token prefix
`template_head + prefix` can be evaluated once and reused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

DEFAULT_MAX_TOKENS = 512


class FinishReason:
    """Why a generation stopped (plain strings, as llama.cpp reports them)."""

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


@dataclass(frozen=True)
class Generation:
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    prefix_reused: bool
    finish_reason: str
    prompt_seconds: float = 0.0  # of `seconds`, spent before the first output token (0: unknown)


@runtime_checkable
class Runtime(Protocol):
    model_name: str
    model_sha256: str

    def generate(self, request: GenerationRequest) -> Generation: ...

    def close(self) -> None: ...
