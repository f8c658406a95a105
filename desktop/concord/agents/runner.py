"""Run agents on a record: prompt -> constrained generation -> validation -> Brief.

Several agents on the same record (the specialists) run together: each round sends every
agent still without a valid answer to the runtime at once (`generate_all`: decoded in one
batch by a parallel runtime), and validates each answer as it arrives.

A brief's token cap follows its item budget (`brief_token_cap`): the schema's maxItems and
maxLength end the answer, and the cap only stops a runaway. A fixed cap of 640 tokens cut
off 6 of 33 greedy briefs on the demo patients; each was decoded to the cap, thrown away and
asked again at half budget. Decoded to their end, those 6 took 675-1,018 tokens and were
valid, and the most any demo brief spent was 44 tokens per item of its budget.

A retry changes something that can change the answer, and is capped (`max_attempts`):
- an answer cut off at its token cap (a runaway, or a cap given by the caller) is asked
  again, greedily, with every section's item budget halved (the schema's maxItems, the
  limits the prompt states and the cap that follows them);
- any other invalid answer is asked again sampled at RETRY_TEMPERATURE with another seed.
The validation error is NOT quoted back in the prompt: measured on the demo patients, the
default model copied such a note into its answer (the surgeon "proposed" the operation
"operation: Value error, ... does not name a specific procedure", which then passed
validation). After the last attempt the brief is returned FAILED with the reason and the
raw output. Nothing is repaired.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from concord.agents.convert import to_brief
from concord.agents.output import (
    BriefOut,
    InvalidOutput,
    OutputContext,
    parse_brief,
    parse_surgeon,
)
from concord.agents.profiles import AgentProfile, AgentRole, MaxItems, load_profiles, specialists
from concord.agents.prompts import (
    BRIEF_SHARED_FILE,
    BRIEF_TEMPLATE_FILE,
    PromptSet,
    brief_preface,
    brief_prompt,
    build_record_block,
    prompt_sha256,
    surgeon_prompt,
)
from concord.agents.schema import (
    MIN_EVIDENCE,
    MIN_TOP_RISKS,
    brief_schema,
    line_ids,
    line_word_counts,
    surgeon_schema,
)
from concord.domain.brief import Brief, BriefStatus
from concord.domain.record import Record
from concord.errors import InputError, ModelOutputError
from concord.llm.runtime import (
    FinishReason,
    Generation,
    GenerationRequest,
    Runtime,
    StopCheck,
    generate_all,
)

BRIEF_TEMPLATES = (BRIEF_SHARED_FILE, BRIEF_TEMPLATE_FILE)  # what shapes a brief's prompt
BRIEF_TOKENS_PER_ITEM = 56  # measured at most 44 per item on the demo briefs (module doc)
BRIEF_BASE_TOKENS = 64  # the sections' keys and brackets
SURGEON_MAX_TOKENS = 160
DEFAULT_MAX_ATTEMPTS = 2
RETRY_TEMPERATURE = 0.5
DEFAULT_SEED = 0
BUDGET_SHRINK = 0.5  # each cut-off answer halves the item budget of every section

T = TypeVar("T")


@dataclass(frozen=True)
class Refusal:
    """Why an attempt's answer was not accepted."""

    reason: str
    cut_off: bool  # stopped by its token cap rather than finished


@dataclass(frozen=True)
class Attempt(Generic[T]):
    """What one attempt sends and how its text is read."""

    request: GenerationRequest
    parse: Callable[[str], T]


AttemptPlan = Callable[[int, Refusal | None, float], Attempt[T]]
"""(attempt number from 1, the last refusal, the item budget scale) -> the attempt."""


def brief_token_cap(limits: MaxItems) -> int:
    """The token cap of a brief with these section budgets: room for every item."""
    items = sum(limits.model_dump().values())
    return BRIEF_BASE_TOKENS + BRIEF_TOKENS_PER_ITEM * items


def scaled_limits(limits: MaxItems, scale: float) -> MaxItems:
    """Every section's item budget times `scale` (at least one; the required minimums kept)."""
    if scale >= 1.0:
        return limits
    data = {name: max(1, int(value * scale)) for name, value in limits.model_dump().items()}
    data["evidence"] = max(data["evidence"], MIN_EVIDENCE)
    data["top_risks"] = max(data["top_risks"], MIN_TOP_RISKS)
    return MaxItems(**data)


class AgentTask(Generic[T]):
    """One agent's attempts at a valid answer (see the module doc for what a retry
    changes)."""

    def __init__(self, name: str, plan: AttemptPlan[T], *, max_attempts: int) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.name = name
        self.max_attempts = max_attempts
        self._plan = plan
        self.attempts = 0
        self.answer: T | None = None
        self.refusal: Refusal | None = None
        self.raw = ""
        self._scale = 1.0
        self._current: Attempt[T] | None = None

    @property
    def done(self) -> bool:
        return self.answer is not None or self.attempts >= self.max_attempts

    def next_request(self) -> GenerationRequest:
        if self.done:
            raise ValueError(f"{self.name} needs no further attempt")
        if self.refusal is not None and self.refusal.cut_off:
            self._scale *= BUDGET_SHRINK
        self._current = self._plan(self.attempts + 1, self.refusal, self._scale)
        return self._current.request

    def take(self, generation: Generation) -> None:
        """Read the answer to the request `next_request` gave."""
        assert self._current is not None, "take() without next_request()"
        self.attempts += 1
        self.raw = generation.text
        cut_off = generation.finish_reason == FinishReason.LENGTH
        try:
            if cut_off:
                raise InvalidOutput(
                    f"output cut off at max_tokens={self._current.request.max_tokens}"
                )
            self.answer = self._current.parse(generation.text)
        except InvalidOutput as exc:
            self.refusal = Refusal(str(exc), cut_off)


def run_tasks(
    runtime: Runtime, tasks: list[AgentTask[T]], should_stop: StopCheck | None = None
) -> Iterator[AgentTask[T]]:
    """Run every task to its end; yields each task when it is done, in finishing order.

    Every task's request goes to the runtime at once (decoded together by a parallel
    runtime); a task whose answer is refused sends its next attempt as soon as it is read,
    and tasks the caller appends to `tasks` while it handles a finished one are started
    then, beside those still being written (`ParallelRuntime`: a runtime that takes added
    requests starts them at its next decoding step)."""
    requests: list[GenerationRequest] = []
    asking: list[AgentTask[T]] = []  # the task of each request
    started = 0  # tasks whose first request was sent

    def start_new() -> None:
        nonlocal started
        for task in tasks[started:]:
            if not task.done:
                requests.append(task.next_request())
                asking.append(task)
        started = len(tasks)

    start_new()
    if not requests:
        return
    for index, generation in generate_all(runtime, requests, should_stop):
        task = asking[index]
        task.take(generation)
        if task.done:
            yield task  # the caller may append tasks now
        else:
            requests.append(task.next_request())
            asking.append(task)
        start_new()


def _settings(attempt: int, refusal: Refusal | None, seed: int) -> tuple[float, int]:
    """(temperature, seed): greedy first and after a cut-off (the smaller budget is the
    change), else seeded sampling with another seed."""
    if attempt == 1 or refusal is None or refusal.cut_off:
        return 0.0, seed + attempt - 1
    return RETRY_TEMPERATURE, seed + attempt - 1


def default_specialist_ids() -> tuple[str, ...]:
    return tuple(p.id for p in specialists(load_profiles()))


def brief_task(
    profile: AgentProfile,
    record: Record,
    *,
    operation: str,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    max_tokens: int | None = None,
    specialist_ids: Sequence[str] | None = None,
    seed: int = DEFAULT_SEED,
    prompts: PromptSet | None = None,
) -> AgentTask[BriefOut]:
    """The attempts of an anaesthetist or specialist at its brief on `record`; `max_tokens`
    None: the cap follows the item budget of each attempt (`brief_token_cap`)."""
    if profile.role == AgentRole.SURGEON:
        raise InputError(
            "the surgeon proposes an operation; use propose_operation", subject=profile.id
        )
    consult_ids = consult_ids_of(profile, specialist_ids)
    prefix = build_record_block(record, prompts)
    preface = brief_preface(operation, prompts)
    ids = frozenset(line_ids(record))
    words = line_word_counts(record)

    def plan(attempt: int, refusal: Refusal | None, scale: float) -> Attempt[BriefOut]:
        limits = scaled_limits(profile.max_items, scale)
        budget = (
            profile
            if limits == profile.max_items
            else profile.model_copy(update={"max_items": limits})
        )
        prompt = brief_prompt(budget, consult_ids, prompts)
        context = OutputContext(
            line_ids=ids,
            tags=frozenset(profile.tags),
            gate_ids=frozenset(profile.gate_ids),
            specialist_ids=frozenset(consult_ids),
            max_items=limits.model_dump(),
            line_words=words,
        )
        temperature, attempt_seed = _settings(attempt, refusal, seed)
        request = GenerationRequest(
            prefix=prefix,
            preface=preface,
            prompt=prompt,
            schema=brief_schema(budget, record, consult_ids),
            max_tokens=brief_token_cap(limits) if max_tokens is None else max_tokens,
            temperature=temperature,
            seed=attempt_seed,
            agent=profile.id,
        )
        return Attempt(request, lambda raw: parse_brief(raw, context))

    return AgentTask(profile.id, plan, max_attempts=max_attempts)


def task_brief(
    task: AgentTask[BriefOut],
    runtime: Runtime,
    profile: AgentProfile,
    record: Record,
    consult_ids: Sequence[str],
    prompts: PromptSet | None = None,
) -> Brief:
    """The brief of a finished task: its answer as a Brief, or FAILED with the last reason
    and raw output when no attempt was valid."""
    bookkeeping = {
        "model_sha256": runtime.model_sha256,
        "prompt_sha256": prompt_sha256(BRIEF_TEMPLATES, profile, consult_ids, prompts),
    }
    if task.answer is not None:
        return to_brief(
            profile.id,
            record,
            task.answer,
            raw_output=task.raw,
            attempts=task.attempts,
            **bookkeeping,
        )
    reason = task.refusal.reason if task.refusal is not None else "no answer"
    return Brief(
        agent=profile.id,
        status=BriefStatus.FAILED,
        failure_reason=f"no valid answer in {task.attempts} attempt(s); last: {reason}",
        raw_output=task.raw,
        attempts=task.attempts,
        model_sha256=bookkeeping["model_sha256"],
        prompt_sha256=bookkeeping["prompt_sha256"],
    )


def consult_ids_of(profile: AgentProfile, specialist_ids: Sequence[str] | None) -> tuple[str, ...]:
    """The specialists `profile` may consult: the anaesthetist's choice, nobody else's."""
    if profile.role != AgentRole.ANAESTHETIST:
        return ()
    return tuple(specialist_ids) if specialist_ids is not None else default_specialist_ids()


def run_agents(
    runtime: Runtime,
    profiles: Sequence[AgentProfile],
    record: Record,
    *,
    operation: str,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    max_tokens: int | None = None,
    specialist_ids: Sequence[str] | None = None,
    seed: int = DEFAULT_SEED,
    should_stop: StopCheck | None = None,
    prompts: PromptSet | None = None,
) -> Iterator[Brief]:
    """Each agent's brief on `record`, in the order they finish; the agents are decoded
    together by a parallel runtime. A brief is FAILED (with reason and raw output) if no
    attempt produced a valid answer. Runtime errors (ModelError, Cancelled) propagate."""
    tasks = {
        profile.id: brief_task(
            profile,
            record,
            operation=operation,
            max_attempts=max_attempts,
            max_tokens=max_tokens,
            specialist_ids=specialist_ids,
            seed=seed,
            prompts=prompts,
        )
        for profile in profiles
    }
    by_id = {profile.id: profile for profile in profiles}
    for task in run_tasks(runtime, list(tasks.values()), should_stop):
        profile = by_id[task.name]
        consult_ids = consult_ids_of(profile, specialist_ids)
        yield task_brief(task, runtime, profile, record, consult_ids, prompts)


def run_agent(
    runtime: Runtime,
    profile: AgentProfile,
    record: Record,
    *,
    operation: str,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    max_tokens: int | None = None,
    specialist_ids: Sequence[str] | None = None,
    seed: int = DEFAULT_SEED,
    should_stop: StopCheck | None = None,
    prompts: PromptSet | None = None,
) -> Brief:
    """The agent's brief on `record` (see `run_agents`)."""
    (brief,) = run_agents(
        runtime,
        [profile],
        record,
        operation=operation,
        max_attempts=max_attempts,
        max_tokens=max_tokens,
        specialist_ids=specialist_ids,
        seed=seed,
        should_stop=should_stop,
        prompts=prompts,
    )
    return brief


def propose_operation(
    runtime: Runtime,
    surgeon_profile: AgentProfile,
    record: Record,
    *,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    seed: int = DEFAULT_SEED,
    should_stop: StopCheck | None = None,
    prompts: PromptSet | None = None,
) -> str:
    """The operation the surgeon agent proposes. ModelOutputError if no valid answer."""
    prefix = build_record_block(record, prompts)

    def plan(attempt: int, refusal: Refusal | None, _scale: float) -> Attempt[str]:
        prompt = surgeon_prompt(surgeon_profile, prompts)
        temperature, attempt_seed = _settings(attempt, refusal, seed)
        request = GenerationRequest(
            prefix=prefix,
            prompt=prompt,
            schema=surgeon_schema(),
            max_tokens=SURGEON_MAX_TOKENS,
            temperature=temperature,
            seed=attempt_seed,
            agent=surgeon_profile.id,
        )
        return Attempt(request, lambda raw: parse_surgeon(raw).operation.strip())

    task = AgentTask(surgeon_profile.id, plan, max_attempts=max_attempts)
    for _ in run_tasks(runtime, [task], should_stop):
        pass
    if task.answer is not None:
        return task.answer
    reason = task.refusal.reason if task.refusal is not None else "no answer"
    raise ModelOutputError(
        f"surgeon agent gave no valid operation in {max_attempts} attempt(s): {reason}",
        subject=surgeon_profile.id,
    )
