"""A scripted runtime with the hooks the benchmark uses on the llama.cpp runtime: a prefix
reuse switch, and a record prefix that is reported as reused only when the switch is on."""

from __future__ import annotations

from concord.llm.runtime import Generation, GenerationRequest
from concord.llm.scripted import ScriptedRuntime
from tests.fake_agents import answer_for

FREE_TEXT = "The patient has several risks worth reviewing before surgery " * 4


def respond(request: GenerationRequest) -> str:
    """Schema-valid JSON for every panel request; plain text for a free request."""
    if request.schema is None:
        return " ".join(FREE_TEXT.split()[: request.max_tokens])
    return answer_for(request)


class SwitchableRuntime(ScriptedRuntime):
    def __init__(self) -> None:
        super().__init__(respond, model_name="scripted-bench")
        self.prefix_cache = True
        self._saved: set[str] = set()

    def generate(self, request: GenerationRequest) -> Generation:
        generation = super().generate(request)
        reused = self.prefix_cache and request.prefix in self._saved
        if self.prefix_cache:
            self._saved.add(request.prefix)
        return Generation(
            text=generation.text,
            prompt_tokens=generation.prompt_tokens,
            completion_tokens=generation.completion_tokens,
            seconds=generation.seconds,
            prefix_reused=reused,
            finish_reason=generation.finish_reason,
        )
