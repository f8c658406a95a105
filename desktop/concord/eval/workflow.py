"""The EVAL steps over the store: train the reward model from recorded grades, score
answers with a stored version, and build the rejection-sampling table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from concord.errors import InputError
from concord.eval.bands import band_of
from concord.eval.embedder import Embedder
from concord.eval.eval_store import EvalStore
from concord.eval.features import FeatureBuilder
from concord.eval.grading import human_grades
from concord.eval.rejection import Candidate, rejection_table
from concord.eval.reward import DEFAULT_SEED, RewardModel, fit_reward_model
from concord.eval.rows import Prediction
from concord.store.codec import to_json, utc_iso, utc_now


def train_reward(
    store: EvalStore,
    set_id: str,
    embed_sha256: str,
    load_embedder: Callable[[], Embedder],
    user: str,
    *,
    seed: int = DEFAULT_SEED,
    with_embedding: bool = True,
) -> dict[str, Any]:
    """Fit on the set's graded answers, store the version, return its metrics."""
    grades = human_grades(store.repo, store.get_set(set_id).set_id)
    answers = [a for a in store.answers(set_id) if a.answer_id in grades]
    if not answers:
        raise InputError(
            "no graded answers in this set; grade some with `concord eval grade`", subject=set_id
        )
    questions = {q.question_id: q for q in store.questions(set_id)}
    builder = FeatureBuilder(store, embed_sha256, load_embedder, with_embedding=with_embedding)
    try:
        x = builder.rows(answers, questions)
    finally:
        builder.close()
    fit = fit_reward_model(
        x,
        [grades[a.answer_id].value for a in answers],
        [a.answer_id for a in answers],
        [band_of(a.temperature) for a in answers],
        builder.names(x.shape[1] - len(builder.names(0))),
        seed=seed,
    )
    params = {**fit.params, "with_embedding": with_embedding}
    store.save_reward_model(
        {
            "version": fit.version,
            "set_id": set_id,
            "created_at": utc_iso(utc_now()),
            "created_by": user,
            "embed_sha256": embed_sha256,
            "seed": seed,
            "n_train": len(fit.train_ids),
            "n_test": len(fit.test_ids),
            "params": to_json(params),
            "metrics": to_json(fit.metrics),
            "train_ids": to_json(list(fit.train_ids)),
        },
        user,
    )
    return {
        "version": fit.version,
        "set_id": set_id,
        "embed_sha256": embed_sha256,
        "graded": len(answers),
        **fit.metrics,
    }


def predict_set(
    store: EvalStore,
    set_id: str,
    load_embedder: Callable[[], Embedder],
    user: str,
    version: str | None = None,
) -> tuple[dict[str, Any], dict[str, Prediction]]:
    """Score every answer of the set with a stored reward model; store the predictions."""
    row = store.reward_model_row(set_id, version)
    model = RewardModel.from_params(row["version"], row["params"])
    answers = store.answers(set_id)
    questions = {q.question_id: q for q in store.questions(set_id)}
    builder = FeatureBuilder(
        store,
        row["embed_sha256"],
        load_embedder,
        with_embedding=row["params"].get("with_embedding", True),
    )
    try:
        x = builder.rows(answers, questions)
    finally:
        builder.close()
    now = utc_iso(utc_now())
    predictions = [
        Prediction(
            answer_id=a.answer_id,
            version=model.version,
            score=float(min(max(s, 0), 1)),
            grade="good" if s >= model.threshold else "bad",
            predicted_at=now,
        )
        for a, s in zip(answers, model.scores(x), strict=True)
    ]
    store.save_predictions(predictions, user)
    return row, store.predictions(model.version)


def rejection_report(
    store: EvalStore,
    set_id: str,
    load_embedder: Callable[[], Embedder],
    user: str,
    *,
    k: int,
    version: str | None = None,
) -> dict[str, Any]:
    if k < 1:
        raise InputError(f"K must be at least 1, got {k}")
    row, predictions = predict_set(store, set_id, load_embedder, user, version)
    grades = {a: g.value for a, g in human_grades(store.repo, set_id).items()}
    candidates = [
        Candidate(
            answer_id=a.answer_id,
            group=f"{a.question_id}|{a.config_hash}",
            temperature=a.temperature,
            sample=a.sample,
            score=predictions[a.answer_id].score,
        )
        for a in store.answers(set_id)
    ]
    table = rejection_table(candidates, grades, k, frozenset(row["train_ids"]))
    return {"set_id": set_id, "reward_model": row["version"], **table}
