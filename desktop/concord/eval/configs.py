"""A generation configuration: model + optional context + temperature, named by its hash.

The prompts are Concord's own. The question goes in the request-specific part; the shared
instruction is the prefix, so its KV state is reused across questions.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass

from concord.store.codec import to_json

PROMPT_VERSION = "eval-answer-1"
ANSWER_INSTRUCTION = (
    "You are helping a hospital doctor. Answer the clinical question below the way a "
    "guideline author would: state the recommended action first, give numbers and "
    "thresholds where they matter, and keep to two or three sentences. If you are not "
    "sure, say so rather than guess.\n\n"
)
CONTEXT_HEADER = "Guideline passage you may rely on:\n"
QUESTION_HEADER = "Question:\n"

DEFAULT_MAX_TOKENS = 96
DEFAULT_K = 5


def prompt_sha256(use_context: bool) -> str:
    text = to_json(
        {
            "version": PROMPT_VERSION,
            "instruction": ANSWER_INSTRUCTION,
            "context_header": CONTEXT_HEADER if use_context else "",
            "question_header": QUESTION_HEADER,
        }
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def build_prompt(question: str, context: str, use_context: bool) -> tuple[str, str]:
    """(prefix, prompt) for one question."""
    body = ""
    if use_context and context.strip():
        body += f"{CONTEXT_HEADER}{context.strip()}\n\n"
    body += f"{QUESTION_HEADER}{question.strip()}\n"
    return ANSWER_INSTRUCTION, body


@dataclass(frozen=True)
class GenerationConfig:
    model_name: str
    model_sha256: str
    temperature: float
    use_context: bool
    max_tokens: int = DEFAULT_MAX_TOKENS

    def __post_init__(self) -> None:
        object.__setattr__(self, "temperature", round(float(self.temperature), 3))

    @property
    def prompt_sha256(self) -> str:
        return prompt_sha256(self.use_context)

    def identity(self) -> dict[str, object]:
        """What the hash covers: everything that changes the answers but the seed."""
        data = asdict(self)
        data.pop("model_name")
        data["prompt_sha256"] = self.prompt_sha256
        return data

    @property
    def config_hash(self) -> str:
        return hashlib.sha256(to_json(self.identity()).encode("utf-8")).hexdigest()

    @property
    def label(self) -> str:
        context = " +context" if self.use_context else ""
        return f"{self.model_name} T={self.temperature:g}{context}"


def answer_seed(question_id: str, sample: int) -> int:
    """A fixed seed per (question, sample): reruns reproduce, samples differ."""
    digest = hashlib.sha256(f"{question_id}#{sample}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF
