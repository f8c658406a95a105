"""The ASTRID judge: per-sentence and per-item verdicts from a model, metrics from code.

For each item the shared block (question, context, numbered answer sentences) is the
prefix; every question to the judge is a short prompt after it, so all calls on one item
reuse one evaluated prefix. Output is constrained by a JSON schema; an invalid answer is
retried (bounded) with sampling and another seed, then recorded as FAILED, never repaired.
The pipeline is a generator of events: the CLI prints them, the UI drives a progress bar.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from concord.astrid.items import QaItem
from concord.astrid.metrics import cf_counts, conversational_faithfulness, refusal_correct
from concord.astrid.prompts import (
    REASON_MAX_CHARS,
    Metric,
    item_block,
    prompts_sha256,
    question_prompt,
    verdict_schema,
)
from concord.astrid.questions import BUILT_IN, judge_question, judge_questions
from concord.astrid.results import (
    ItemScore,
    QaRun,
    RepeatResult,
    Verdict,
    VerdictStatus,
)
from concord.astrid.scores import score_values
from concord.astrid.sentences import Sentence, split_sentences
from concord.errors import Cancelled, InputError
from concord.llm.runtime import FinishReason, GenerationRequest, Runtime

DEFAULT_MAX_ATTEMPTS = 2
RETRY_TEMPERATURE = 0.5
REPEAT_TEMPERATURE = 0.7
"""Temperature of every repeat when N > 1 and none is given (seed = base seed + repeat)."""
VERDICT_MAX_TOKENS = 64


@dataclass(frozen=True)
class JudgeSettings:
    runs: int = 1
    temperature: float | None = None
    seed: int = 0
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    max_tokens: int = VERDICT_MAX_TOKENS

    def __post_init__(self) -> None:
        if self.runs < 1:
            raise InputError("--runs must be at least 1", subject=str(self.runs))
        if self.max_attempts < 1:
            raise InputError("max attempts must be at least 1", subject=str(self.max_attempts))
        if self.temperature is not None and not 0.0 <= self.temperature <= 2.0:
            raise InputError("temperature must be between 0 and 2", subject=str(self.temperature))

    def repeat_sampling(self, repeat: int) -> tuple[float, int]:
        """(temperature, seed) of repeat 0, 1, ..."""
        if self.temperature is not None:
            temperature = self.temperature
        else:
            temperature = 0.0 if self.runs == 1 else REPEAT_TEMPERATURE
        return temperature, self.seed + repeat


@dataclass(frozen=True)
class JudgeEvent:
    """Progress of a run; the last event carries the finished run."""

    done: int
    total: int
    message: str
    run: QaRun | None = None
    scores: tuple[ItemScore, ...] = field(default=())


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: str
    reason: str = Field(default="", max_length=REASON_MAX_CHARS * 2)


def _ask(
    runtime: Runtime,
    prefix: str,
    prompt: str,
    metric: str,
    *,
    temperature: float,
    seed: int,
    settings: JudgeSettings,
) -> tuple[bool | None, str, int, str, str]:
    """(value, reason, attempts, error, raw) of one constrained question."""
    question = judge_question(metric)
    true_word, false_word = question.words
    error, raw = "", ""
    for attempt in range(1, settings.max_attempts + 1):
        t, s = (
            (temperature, seed)
            if attempt == 1
            else (max(temperature, RETRY_TEMPERATURE), seed + 1000 * (attempt - 1))
        )
        generation = runtime.generate(
            GenerationRequest(
                prefix=prefix,
                prompt=prompt,
                schema=verdict_schema(metric),
                max_tokens=settings.max_tokens,
                temperature=t,
                seed=s,
            )
        )
        raw = generation.text
        if generation.finish_reason == FinishReason.LENGTH:
            error = f"output cut off at max_tokens={settings.max_tokens}"
            continue
        try:
            answer = _Answer.model_validate(json.loads(raw))
        except (json.JSONDecodeError, ValidationError) as exc:
            error = f"not the required JSON ({type(exc).__name__})"
            continue
        value = question.parse(answer.verdict)
        if value is None:
            error = f"verdict {answer.verdict!r} is not {true_word} or {false_word}"
            continue
        return value, " ".join(answer.reason.split()), attempt, "", raw
    return None, "", settings.max_attempts, error, raw


def _verdict(
    item: QaItem, metric: str, index: int | None, answer: tuple[bool | None, str, int, str, str]
) -> Verdict:
    value, reason, attempts, error, raw = answer
    return Verdict(
        item_id=item.item_id,
        metric=metric,
        sentence_index=index,
        value=value,
        reason=reason,
        attempts=attempts,
        status=VerdictStatus.OK if value is not None else VerdictStatus.FAILED,
        error=error,
        raw=raw,
    )


def judge_item(
    runtime: Runtime, item: QaItem, *, repeat: int = 0, settings: JudgeSettings | None = None
) -> tuple[list[Verdict], ItemScore]:
    """Every verdict on one item for one repeat (the built-in questions, then every other
    registered one, `concord.astrid.questions`), and the item's metrics from code."""
    settings = settings or JudgeSettings()
    temperature, seed = settings.repeat_sampling(repeat)
    sentences: list[Sentence] = split_sentences(item.answer)
    prefix = item_block(item, sentences)

    def ask(metric: str, sentence: Sentence | None) -> Verdict:
        answer = _ask(
            runtime,
            prefix,
            question_prompt(metric, sentence),
            metric,
            temperature=temperature,
            seed=seed,
            settings=settings,
        )
        return _verdict(item, metric, None if sentence is None else sentence.index, answer)

    info = [ask(Metric.CF_INFO, s) for s in sentences]
    grounded: list[Verdict | None] = [
        ask(Metric.CF_GROUNDED, s) if v.value is not False else None
        for s, v in zip(sentences, info, strict=True)
    ]
    cr = ask(Metric.CR, None)
    ra = ask(Metric.RA, None)
    counts = cf_counts([v.value for v in info], [None if g is None else g.value for g in grounded])
    verdicts = [*info, *(g for g in grounded if g is not None), cr, ra]
    for question in judge_questions():
        if question.name in BUILT_IN:
            continue
        asked: list[Sentence | None] = list(sentences) if question.per_sentence else [None]
        verdicts += [ask(question.name, s) for s in asked]
    score = ItemScore(
        item_id=item.item_id,
        repeat=repeat,
        cf=conversational_faithfulness(counts),
        n_informative=counts.n,
        n_grounded=counts.y,
        n_ungrounded=counts.u,
        cr=cr.value,
        ra_refused=ra.value,
        ra_correct=refusal_correct(ra.value, item.scope),
        complete=all(v.status == VerdictStatus.OK for v in verdicts),
        values=score_values(item, verdicts),
    )
    return verdicts, score


def new_run_id() -> str:
    return "QA-RUN-" + uuid.uuid4().hex[:16]


def judge_items(
    runtime: Runtime,
    items: Sequence[QaItem],
    set_id: str,
    settings: JudgeSettings | None = None,
    *,
    run_id: str | None = None,
    cancelled: object = None,
) -> Iterator[JudgeEvent]:
    """Judge every item `settings.runs` times. Yields one event per item and repeat; the
    last event has the finished QaRun. `cancelled()` (if given) is polled between items."""
    settings = settings or JudgeSettings()
    if not items:
        raise InputError("no QA items to judge", subject=set_id)
    started = datetime.now(UTC)
    per_repeat: dict[int, tuple[list[Verdict], list[ItemScore]]] = {
        r: ([], []) for r in range(settings.runs)
    }
    total = len(items) * settings.runs
    done = 0
    for item in items:
        for repeat in range(settings.runs):  # repeats inside items: one prefix per item
            if callable(cancelled) and cancelled():
                raise Cancelled("ASTRID run cancelled", subject=set_id)
            verdicts, score = judge_item(runtime, item, repeat=repeat, settings=settings)
            per_repeat[repeat][0].extend(verdicts)
            per_repeat[repeat][1].append(score)
            done += 1
            yield JudgeEvent(
                done,
                total,
                f"{item.item_id} run {repeat + 1}: CF {score.cf:.2f} "
                f"CR {_word(score.cr)} RA {_word(score.ra_refused, 'refuses')}",
                scores=(score,),
            )
    repeats = []
    for repeat, (verdicts, scores) in per_repeat.items():
        temperature, seed = settings.repeat_sampling(repeat)
        repeats.append(
            RepeatResult(
                repeat=repeat,
                seed=seed,
                temperature=temperature,
                verdicts=tuple(verdicts),
                scores=tuple(scores),
            )
        )
    run = QaRun(
        run_id=run_id or new_run_id(),
        set_id=set_id,
        model_name=runtime.model_name,
        model_sha256=runtime.model_sha256,
        prompt_sha256=prompts_sha256(),
        started_at=started,
        ended_at=datetime.now(UTC),
        settings={k: v for k, v in asdict(settings).items() if v is not None},
        repeats=tuple(repeats),
    )
    yield JudgeEvent(done, total, f"run {run.run_id} finished", run=run)


def _word(value: bool | None, true: str = "yes") -> str:
    return "failed" if value is None else (true if value else "no")
