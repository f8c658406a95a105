"""A stand-in model for IsolatedRuntime tests, loaded in the child process: it echoes the
prompt, crashes natively on 'segfault', and hangs on 'hang'."""

from __future__ import annotations

import faulthandler
import os
import time
from pathlib import Path

from concord.llm.runtime import FinishReason, Generation, GenerationRequest


class EchoRuntime:
    def __init__(self, path: Path, model_sha256: str, *, model_name: str, **opts: object):
        self.model_name = model_name
        self.model_sha256 = model_sha256
        self.prefixes: set[str] = set()

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

    def close(self) -> None:
        pass
