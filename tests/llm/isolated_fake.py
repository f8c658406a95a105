"""A stand-in model for IsolatedRuntime tests, loaded in the child process: it echoes the
prompt, crashes natively on 'segfault', and hangs on 'hang'. Decoding several requests
together, it answers them in reverse order, and a 'slow' request takes 60 s in 50 ms steps
while asking `should_stop` at each.

It reports progress as the real runtime does (`on_progress`, through a ProgressMeter):
'write N every S' writes N tokens S seconds apart; 'read N every S' evaluates an N-token
prompt one token every S seconds, then writes one token; 'write N then stop' writes N
tokens at once and then hangs."""

from __future__ import annotations

import faulthandler
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from concord.errors import Cancelled
from concord.llm.runtime import FinishReason, Generation, GenerationRequest, StopCheck
from concord.llm.watchdog import ProgressMeter, ProgressSink

SLOW_STEPS = 1200
REPORT_EVERY_S = 0.05  # the real runtime reports once a second, its watch waits 120 s


class EchoRuntime:
    def __init__(self, path: Path, model_sha256: str, *, model_name: str, **opts: object):
        self.model_name = model_name
        self.model_sha256 = model_sha256
        self.prefixes: set[str] = set()
        self.parallel = 3
        self.on_progress: ProgressSink | None = None

    def _scripted_progress(self, prompt: str) -> int:
        """Act out a 'write'/'read' prompt; the number of tokens written."""
        words = prompt.split()
        with ProgressMeter(self.on_progress, every=REPORT_EVERY_S) as meter:
            return self._act(words, meter)

    @staticmethod
    def _act(words: list[str], meter: ProgressMeter) -> int:
        if words[:1] == ["write"] and words[2:] == ["then", "stop"]:
            for _ in range(int(words[1])):
                time.sleep(0.02)
                meter.token()
            time.sleep(120)
        if words[:1] == ["write"] and words[2:3] == ["every"]:
            for _ in range(int(words[1])):
                time.sleep(float(words[3]))
                meter.token()
            return int(words[1])
        if words[:1] == ["read"] and words[2:3] == ["every"]:
            meter.prompt_total = int(words[1])
            for _ in range(int(words[1])):
                time.sleep(float(words[3]))
                meter.prompt(1, float(words[3]))
            meter.token()
            return 1
        return 1

    def generate(self, request: GenerationRequest) -> Generation:
        if request.prompt == "segfault":
            faulthandler.disable()
            faulthandler._sigsegv()  # type: ignore[attr-defined]  # a real native SIGSEGV
        if request.prompt == "hang":
            time.sleep(120)
        tokens = self._scripted_progress(request.prompt)
        reused = request.prefix in self.prefixes
        self.prefixes.add(request.prefix)
        return Generation(
            text=f"{os.getpid()}:{request.prompt}",
            prompt_tokens=1,
            completion_tokens=tokens,
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
