"""Similarity screening: every answer against every golden label of its question, and a
ranking of configurations by mean similarity."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from concord.eval.embedder import Embedder
from concord.eval.eval_store import EvalStore
from concord.eval.rows import Similarity
from concord.eval.similarity import score_answer

RANK_KEYS = ("maxsim_mean", "maxsim_max", "cosine_mean", "cosine_max")
DEFAULT_RANK_KEY = "maxsim_mean"


def embed_cached(store: EvalStore, embedder: Embedder, text: str) -> np.ndarray:
    vectors = store.cached_embedding(text, embedder.model_sha256)
    if vectors is None:
        vectors = embedder.embed_tokens(text)
        store.cache_embedding(text, embedder.model_sha256, vectors)
    return vectors


@dataclass(frozen=True)
class ScreeningProgress:
    done: int
    total: int
    answer_id: str


def screen_answers(
    store: EvalStore, embedder: Embedder, set_id: str, user: str
) -> Iterator[ScreeningProgress]:
    """Score every answer of the set not yet scored with this embedder; save in one batch."""
    questions = {q.question_id: q for q in store.questions(set_id)}
    scored = store.similarities(embedder.model_sha256)
    answers = [a for a in store.answers(set_id) if a.answer_id not in scored]
    labels: dict[str, list[np.ndarray]] = {}
    results: list[Similarity] = []
    for done, answer in enumerate(answers, start=1):
        question = questions[answer.question_id]
        if question.question_id not in labels:
            labels[question.question_id] = [
                embed_cached(store, embedder, g.text) for g in question.golden
            ]
        text = answer.text if answer.text.strip() else "(no answer)"
        s = score_answer(embed_cached(store, embedder, text), labels[question.question_id])
        results.append(
            Similarity(
                answer_id=answer.answer_id,
                model_sha256=embedder.model_sha256,
                cosine_max=s.cosine_max,
                cosine_mean=s.cosine_mean,
                maxsim_max=s.maxsim_max,
                maxsim_mean=s.maxsim_mean,
                labels=s.labels,
            )
        )
        yield ScreeningProgress(done, len(answers), answer.answer_id)
    store.save_similarities(results, user)


def rank_configurations(
    store: EvalStore, set_id: str, embed_sha256: str, key: str = DEFAULT_RANK_KEY
) -> list[dict[str, Any]]:
    """One row per configuration with its mean of each measure, best first by `key`."""
    if key not in RANK_KEYS:
        raise ValueError(f"rank key must be one of {RANK_KEYS}")
    scores = store.similarities(embed_sha256)
    rows: list[dict[str, object]] = []
    for config in store.configs(set_id):
        answers = [a for a in store.answers(set_id, config.config_hash) if a.answer_id in scores]
        if not answers:
            continue
        row: dict[str, object] = {
            "config_hash": config.config_hash,
            "label": config.label,
            "model": config.model_name,
            "model_sha256": config.model_sha256,
            "temperature": config.temperature,
            "use_context": config.use_context,
            "answers": len(answers),
        }
        for measure in RANK_KEYS:
            values = [getattr(scores[a.answer_id], measure) for a in answers]
            row[measure] = round(float(np.mean(values)), 4)
            if measure == key:
                row["sd"] = round(float(np.std(values)), 4)
        rows.append(row)
    rows.sort(key=lambda r: float(r[key]), reverse=True)  # type: ignore[arg-type]
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows
