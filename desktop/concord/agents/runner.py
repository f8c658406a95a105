"""Run one agent on a record: prompt -> constrained generation -> validation -> Brief.

Invalid output is retried (up to `max_attempts`, later attempts sampled at a small
temperature with another seed, since greedy decoding would repeat itself); after that the
brief is returned FAILED with the reason and the raw output. Nothing is repaired.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from concord.agents.convert import to_brief
from concord.agents.output import (
    InvalidOutput,
    OutputContext,
    parse_brief,
    parse_surgeon,
)
from concord.agents.profiles import AgentProfile, AgentRole, load_profiles, specialists
from concord.agents.prompts import (
    BRIEF_TEMPLATE_FILE,
    brief_prompt,
    build_record_block,
    prompt_sha256,
    surgeon_prompt,
)
from concord.agents.schema import brief_schema, line_ids, line_word_counts, surgeon_schema
from concord.domain.brief import Brief, BriefStatus
from concord.domain.record import Record
from concord.errors import InputError, ModelOutputError
from concord.llm.runtime import FinishReason, Generation, GenerationRequest, Runtime

DEFAULT_BRIEF_MAX_TOKENS = 640
SURGEON_MAX_TOKENS = 160
DEFAULT_MAX_ATTEMPTS = 2
RETRY_TEMPERATURE = 0.5
DEFAULT_SEED = 0

T = TypeVar("T")


def _attempt_settings(attempt: int, seed: int) -> tuple[float, int]:
    """(temperature, seed) of attempt 1, 2, ...: greedy first, then seeded sampling."""
    if attempt == 1:
        return 0.0, seed
    return RETRY_TEMPERATURE, seed + attempt - 1


def _check(generation: Generation, max_tokens: int) -> None:
    if generation.finish_reason == FinishReason.LENGTH:
        raise InvalidOutput(f"output cut off at max_tokens={max_tokens}")


@dataclass(frozen=True)
class _Tries(Generic[T]):
    answer: T | None  # None when no attempt gave a valid answer
    attempts: int
    reason: str  # why the last invalid attempt was refused
    raw: str  # the text of the last attempt


def _generate_valid(
    runtime: Runtime,
    request: GenerationRequest,
    parse: Callable[[str], T],
    *,
    max_attempts: int,
    seed: int,
) -> _Tries[T]:
    """Generate until `parse` accepts the text (InvalidOutput refuses it), at most
    `max_attempts` times; each attempt takes its temperature and seed from `_attempt_settings`."""
    reason, raw = "", ""
    for attempt in range(1, max_attempts + 1):
        temperature, attempt_seed = _attempt_settings(attempt, seed)
        generation = runtime.generate(replace(request, temperature=temperature, seed=attempt_seed))
        raw = generation.text
        try:
            _check(generation, request.max_tokens)
            answer = parse(raw)
        except InvalidOutput as exc:
            reason = str(exc)
            continue
        return _Tries(answer, attempt, reason, raw)
    return _Tries(None, max_attempts, reason, raw)


def default_specialist_ids() -> tuple[str, ...]:
    return tuple(p.id for p in specialists(load_profiles()))


def run_agent(
    runtime: Runtime,
    profile: AgentProfile,
    record: Record,
    *,
    operation: str,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    max_tokens: int = DEFAULT_BRIEF_MAX_TOKENS,
    specialist_ids: Sequence[str] | None = None,
    seed: int = DEFAULT_SEED,
) -> Brief:
    """The agent's brief on `record`; FAILED (with reason and raw output) if no attempt
    produced a valid answer. Runtime errors (ModelError) propagate."""
    if profile.role == AgentRole.SURGEON:
        raise InputError(
            "the surgeon proposes an operation; use propose_operation", subject=profile.id
        )
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    consult_ids: tuple[str, ...] = ()
    if profile.role == AgentRole.ANAESTHETIST:
        consult_ids = (
            tuple(specialist_ids) if specialist_ids is not None else default_specialist_ids()
        )
    prompt = brief_prompt(profile, operation, consult_ids)
    schema = brief_schema(profile, record, consult_ids)
    context = OutputContext(
        line_ids=frozenset(line_ids(record)),
        tags=frozenset(profile.tags),
        gate_ids=frozenset(profile.gate_ids),
        specialist_ids=frozenset(consult_ids),
        max_items=profile.max_items.model_dump(),
        line_words=line_word_counts(record),
    )
    bookkeeping = {
        "model_sha256": runtime.model_sha256,
        "prompt_sha256": prompt_sha256(BRIEF_TEMPLATE_FILE, profile, consult_ids),
    }
    request = GenerationRequest(
        prefix=build_record_block(record), prompt=prompt, schema=schema, max_tokens=max_tokens
    )
    tries = _generate_valid(
        runtime,
        request,
        lambda raw: parse_brief(raw, context),
        max_attempts=max_attempts,
        seed=seed,
    )
    if tries.answer is not None:
        return to_brief(
            profile.id,
            record,
            tries.answer,
            raw_output=tries.raw,
            attempts=tries.attempts,
            **bookkeeping,
        )
    return Brief(
        agent=profile.id,
        status=BriefStatus.FAILED,
        failure_reason=f"no valid answer in {max_attempts} attempt(s); last: {tries.reason}",
        raw_output=tries.raw,
        attempts=max_attempts,
        model_sha256=bookkeeping["model_sha256"],
        prompt_sha256=bookkeeping["prompt_sha256"],
    )


def propose_operation(
    runtime: Runtime,
    surgeon_profile: AgentProfile,
    record: Record,
    *,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    seed: int = DEFAULT_SEED,
) -> str:
    """The operation the surgeon agent proposes. ModelOutputError if no valid answer."""
    request = GenerationRequest(
        prefix=build_record_block(record),
        prompt=surgeon_prompt(surgeon_profile),
        schema=surgeon_schema(),
        max_tokens=SURGEON_MAX_TOKENS,
    )
    tries = _generate_valid(runtime, request, parse_surgeon, max_attempts=max_attempts, seed=seed)
    if tries.answer is not None:
        return tries.answer.operation.strip()
    raise ModelOutputError(
        f"surgeon agent gave no valid operation in {max_attempts} attempt(s): {tries.reason}",
        subject=surgeon_profile.id,
    )
