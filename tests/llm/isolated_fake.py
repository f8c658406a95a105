"""A stand-in model for IsolatedRuntime tests, loaded in the child process: it echoes the
prompt, crashes natively on 'segfault', and hangs on 'hang'. Decoding several requests
together, it answers them in reverse order, and a 'slow' request takes 60 s in 50 ms steps
while asking `should_stop` at each."""

from __future__ import annotations

import faulthandler
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from concord.errors import Cancelled
from concord.llm.runtime import FinishReason, Generation, GenerationRequest, StopCheck

SLOW_STEPS = 1200


class EchoRuntime:
    def __init__(self, path: Path, model_sha256: str, *, model_name: str, **opts: object):
        self.model_name = model_name
        self.model_sha256 = model_sha256
        self.prefixes: set[str] = set()
        self.parallel = 3

    def generate(self, request: GenerationRequest) -> Generation:
        if request.prompt == "segfault":
            faulthandler.disable()
            faulthandler._sigsegv()  # type: ignore[attr-defined]  # a real native SIGSEGV
        if request.prompt == "hang":
            time.sleep(120)
        reused = request.prefix in self.prefixes
        self.prefixes.add(request.prefix)
        return Generation(
            text=f"{os.getpid()}:{request.prompt}",
            prompt_tokens=1,
            completion_tokens=1,
            seconds=0.0,
            prefix_reused=reused,
            finish_reason=FinishReason.STOP,
        )

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]:
        for index in reversed(range(len(requests))):
            if requests[index].prompt == "slow":
                for _ in range(SLOW_STEPS):
                    if should_stop is not None and should_stop():
                        raise Cancelled("generation cancelled")
                    time.sleep(0.05)
            yield index, self.generate(requests[index])

    def close(self) -> None:
        pass
