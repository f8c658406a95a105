"""Answer generation: K answers per question from one configuration. A generator, so the
CLI prints progress and the UI shows a bar; answers already stored are skipped (resumable)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from concord.errors import InputError
from concord.eval.configs import GenerationConfig, answer_seed, build_prompt
from concord.eval.eval_store import EvalStore, answer_id_for
from concord.llm.runtime import GenerationRequest, Runtime


@dataclass(frozen=True)
class GenerationProgress:
    done: int
    total: int
    answer_id: str
    question_label: str
    skipped: bool


def generate_answers(
    store: EvalStore,
    runtime: Runtime,
    set_id: str,
    config: GenerationConfig,
    k: int,
    user: str,
) -> Iterator[GenerationProgress]:
    if k < 1:
        raise InputError(f"K must be at least 1, got {k}")
    if config.model_sha256 != runtime.model_sha256:
        raise InputError("the configuration names a different model than the runtime")
    questions = store.questions(set_id)
    if config.use_context and not any(q.context.strip() for q in questions):
        raise InputError(
            "--context asked for, but no question in the set has a context", subject=set_id
        )
    store.save_config(config)
    total = len(questions) * k
    done = 0
    for question in questions:
        prefix, prompt = build_prompt(question.text, question.context, config.use_context)
        for sample in range(k):
            done += 1
            answer_id = answer_id_for(question.question_id, config.config_hash, sample)
            if store.has_answer(answer_id):
                yield GenerationProgress(done, total, answer_id, question.label, True)
                continue
            seed = answer_seed(question.question_id, sample)
            request = GenerationRequest(
                prefix=prefix,
                prompt=prompt,
                max_tokens=config.max_tokens,
                temperature=config.temperature,
                seed=seed,
            )
            generation = runtime.generate(request)
            store.save_answer(question.question_id, config, sample, seed, generation, user)
            yield GenerationProgress(done, total, answer_id, question.label, False)
