"""A runtime that replays canned outputs: for tests and UI demos without a model."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from concord.errors import ModelError
from concord.llm.runtime import FinishReason, Generation, GenerationRequest

SCRIPTED_SHA256 = "0" * 64


class ScriptedRuntime:
    """Returns `outputs` in order (or `outputs(request)`), recording every request seen."""

    def __init__(
        self,
        outputs: Sequence[str] | Callable[[GenerationRequest], str],
        model_name: str = "scripted",
        model_sha256: str = SCRIPTED_SHA256,
    ) -> None:
        self.model_name = model_name
        self.model_sha256 = model_sha256
        self._outputs = outputs
        self._next = 0
        self._seen_prefixes: set[str] = set()
        self.requests: list[GenerationRequest] = []
        self.closed = False

    def generate(self, request: GenerationRequest) -> Generation:
        if self.closed:
            raise ModelError("runtime is closed", subject=self.model_name)
        started = time.perf_counter()
        self.requests.append(request)
        if callable(self._outputs):
            text = self._outputs(request)
        else:
            if self._next >= len(self._outputs):
                raise ModelError(
                    f"scripted runtime has no output left (asked for #{self._next + 1})",
                    subject=self.model_name,
                )
            text = self._outputs[self._next]
            self._next += 1
        reused = request.prefix in self._seen_prefixes
        self._seen_prefixes.add(request.prefix)
        return Generation(
            text=text,
            prompt_tokens=len((request.prefix + request.own_text).split()),
            completion_tokens=len(text.split()),
            seconds=time.perf_counter() - started,
            prefix_reused=reused,
            finish_reason=FinishReason.STOP,
        )

    def close(self) -> None:
        self.closed = True
