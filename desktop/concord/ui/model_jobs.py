"""The model jobs the QA review and answer grading pages start (no Qt): an ASTRID judge run
over a stored QA set, and EVAL answer generation for a stored question set. They call the
same core functions as `concord astrid SET_ID` and `concord eval generate`, and run in the
job runner's thread (`workers.JobRunner`) on that thread's own Services."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from concord.astrid.llm_judge import JudgeSettings, judge_items
from concord.astrid.store import AstridStore
from concord.errors import Cancelled, InputError
from concord.eval.configs import DEFAULT_MAX_TOKENS, GenerationConfig
from concord.eval.eval_store import EvalStore
from concord.eval.generate import generate_answers
from concord.llm.runtime import Runtime
from concord.store import Repository

Report = Callable[[int, int, str], None]  # done, total, message
MAX_K = 64


@dataclass(frozen=True)
class GenerationResult:
    set_id: str
    label: str  # the configuration's label
    generated: int
    already_stored: int


def judge_qa_set(
    repo: Repository,
    runtime: Runtime,
    set_id: str,
    user: str,
    *,
    settings: JudgeSettings | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    report: Report = lambda done, total, message: None,
) -> str:
    """Judge every item of a stored QA set and store the run; the run id. Nothing is stored
    when the run is cancelled or fails."""
    store = AstridStore(repo)
    items = store.items(set_id)
    run = None
    for event in judge_items(runtime, items, set_id, settings, cancelled=should_stop):
        report(event.done, event.total, event.message)
        run = event.run or run
    if run is None:
        raise Cancelled("the judge run ended without a result", subject=set_id)
    store.save_run(run, user)
    return run.run_id


def generate_set_answers(
    repo: Repository,
    runtime: Runtime,
    set_id: str,
    user: str,
    *,
    temperature: float,
    k: int,
    use_context: bool = False,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    report: Report = lambda done, total, message: None,
) -> GenerationResult:
    """K answers per question from one configuration (the runtime's model). Each answer is
    stored as it is made, so a cancelled or failed run keeps what it made and a new run
    resumes (answers already stored are skipped)."""
    if not 1 <= k <= MAX_K:
        raise InputError(f"K must be between 1 and {MAX_K}, got {k}")
    if temperature < 0:
        raise InputError(f"the temperature must be >= 0, got {temperature}")
    store = EvalStore(repo)
    store.get_set(set_id)
    config = GenerationConfig(
        runtime.model_name, runtime.model_sha256, temperature, use_context, max_tokens
    )
    made = skipped = 0
    for event in generate_answers(store, runtime, set_id, config, k, user):
        made += not event.skipped
        skipped += event.skipped
        state = "kept" if event.skipped else "new"
        report(event.done, event.total, f"{event.question_label}: answer {event.answer_id} {state}")
    return GenerationResult(set_id, config.label, made, skipped)
