from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from concord.errors import InputError
from concord.eval.eval_store import EvalStore
from concord.eval.grading import grade_decision, human_grades, record_grade
from concord.eval.rejection import Candidate, pick_best, rejection_table, select
from concord.eval.reward import RewardModel, fit_reward_model
from concord.eval.screening import rank_configurations, screen_answers
from concord.eval.workflow import rejection_report, train_reward
from tests.eval.helpers import FAKE_EMBED_SHA, FakeEmbedder, make_answers
from tests.identity import enrol


def _fixed_set(seed: int = 0) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    good = rng.normal(loc=2.0, size=(12, 3))
    bad = rng.normal(loc=-2.0, size=(12, 3))
    return np.vstack([good, bad]), ["good"] * 12 + ["bad"] * 12


def test_reward_model_is_deterministic_and_matches_sklearn() -> None:
    x, y = _fixed_set()
    ids = [f"a{i}" for i in range(len(y))]
    bands = ["positive"] * 12 + ["negative"] * 12
    fit = fit_reward_model(x, y, ids, bands, ["f1", "f2", "f3"], seed=7)
    again = fit_reward_model(x, y, ids, bands, ["f1", "f2", "f3"], seed=7)
    assert fit.version == again.version and fit.params == again.params
    assert fit.version != fit_reward_model(x, y, ids, bands, ["f1", "f2", "f3"], seed=8).version
    assert len(fit.test_ids) == 8 and not set(fit.test_ids) & set(fit.train_ids)
    held = fit.metrics["held_out"]
    assert held["overall"]["accuracy"] == 1.0 and held["overall"]["n"] == 8
    assert held["positive"]["confusion"]["rows_human_cols_model"][1] == [0, 0]
    # the JSON-stored model predicts what scikit-learn predicts
    train = [ids.index(i) for i in fit.train_ids]
    y01 = np.array([v == "good" for v in y], dtype=int)
    scaler = StandardScaler().fit(x[train])
    reference = LogisticRegression(
        C=fit.params["C"], class_weight="balanced", max_iter=2000, random_state=7
    ).fit(scaler.transform(x[train]), y01[train])
    model = RewardModel.from_params(fit.version, fit.params)
    expected = reference.predict_proba(scaler.transform(x))[:, 1]
    assert model.scores(x) == pytest.approx(expected, abs=1e-9)


def test_reward_model_refuses_one_grade_only() -> None:
    x, _ = _fixed_set()
    with pytest.raises(InputError, match="same grade"):
        fit_reward_model(x, ["good"] * 24, [str(i) for i in range(24)], ["mixed"] * 24, ["a"] * 3)


def test_rejection_sampling_picks_the_arg_max() -> None:
    cands = [
        Candidate("a", "g1", 1.4, 0, 0.2),
        Candidate("b", "g1", 1.4, 1, 0.9),
        Candidate("c", "g1", 1.4, 2, 0.5),
        Candidate("d", "g2", 0.2, 0, 0.4),
        Candidate("e", "g2", 0.2, 1, 0.4),
    ]
    assert pick_best(cands[:3]).answer_id == "b"
    assert {g: c.answer_id for g, c in select(cands, k=3).items()} == {"g1": "b", "g2": "d"}
    assert select(cands, k=1)["g1"].answer_id == "a"  # only the first K samples compete
    human = {"a": "bad", "b": "good", "c": "bad", "d": "good", "e": "bad"}
    table = rejection_table(cands, human, k=3)
    mixed, positive = table["columns"]["mixed"], table["columns"]["positive"]
    assert mixed["baseline"] == pytest.approx(1 / 3, abs=1e-3)
    assert mixed["with_rejection_sampling"] == 1.0
    assert mixed["improvement_pct"] == 200.0
    assert (positive["baseline"], positive["with_rejection_sampling"]) == (0.5, 1.0)
    assert table["columns"]["negative"]["baseline"] is None


def test_ungraded_candidates_never_count() -> None:
    cands = [Candidate("a", "g", 1.8, 0, 0.1), Candidate("b", "g", 1.8, 1, 0.99)]
    table = rejection_table(cands, {"a": "good"}, k=2)
    assert table["chosen"] == ["a"] and table["columns"]["negative"]["graded_answers"] == 1


def test_whole_loop_with_scripted_answers(store: EvalStore, set_id: str) -> None:
    make_answers(store, set_id, temperatures=(0.2, 1.8), k=4)
    embedder = FakeEmbedder()
    list(screen_answers(store, embedder, set_id, "ann"))
    ranking = rank_configurations(store, set_id, FAKE_EMBED_SHA)
    assert [r["temperature"] for r in ranking] == [0.2, 1.8]  # good answers rank first
    ann = enrol(store.repo, "ann", "annotator")
    for answer in store.answers(set_id):
        good = answer.temperature < 1.0
        record_grade(
            store.repo,
            ann,
            grade_decision(
                store, answer.answer_id, "good" if good else "bad", user="ann", reason="read it"
            ),
        )
    assert len(human_grades(store.repo, set_id)) == 16
    result = train_reward(store, set_id, FAKE_EMBED_SHA, lambda: embedder, "ann", seed=3)
    assert result["held_out"]["overall"]["n"] == 5
    report = rejection_report(store, set_id, lambda: embedder, "ann", k=4)
    assert report["reward_model"] == result["version"]
    assert report["columns"]["positive"]["with_rejection_sampling"] == 1.0
    predictions = store.predictions(result["version"])
    assert len(predictions) == 16 and all(
        p.version == result["version"] for p in predictions.values()
    )
    assert store.repo.verify_audit().ok


def test_grades_combine_latest_per_user_then_majority(store: EvalStore, set_id: str) -> None:
    make_answers(store, set_id, temperatures=(0.2,), k=1)
    answer = store.answers(set_id)[0].answer_id
    sessions = {u: enrol(store.repo, u, "annotator") for u in ("a", "b", "c")}
    for user, grade in [("a", "bad"), ("a", "good"), ("b", "bad"), ("c", "bad")]:
        decision = grade_decision(store, answer, grade, user=user, reason="r")
        record_grade(store.repo, sessions[user], decision)
    assert human_grades(store.repo, set_id)[answer] == "bad"
    decision = grade_decision(store, answer, "good", user="d", shown_prediction="good")
    assert decision.action == "accept" and decision.target_id == f"eval/{answer}/grade"
    assert decision.case_id == set_id and decision.shown["model_sha256"]
    with pytest.raises(InputError):
        grade_decision(store, answer, "maybe", user="d")
