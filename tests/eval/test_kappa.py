from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from concord.domain import Decision, DecisionAction
from concord.eval.agreement import (
    between_annotators,
    cohen_kappa,
    fleiss_kappa,
    judge_vs_human,
)

T0 = datetime(2025, 5, 1, 9, 0, tzinfo=UTC)


def test_fleiss_kappa_matches_the_textbook_example() -> None:
    # Fleiss (1971) as worked in the literature: 10 items, 14 raters, 5 categories, kappa 0.210
    table = np.array(
        [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ]
    )
    assert fleiss_kappa(table) == pytest.approx(0.20993, abs=1e-4)


def test_fleiss_kappa_hand_computed_small_case() -> None:
    # 3 items, 3 raters, 2 categories: P_i = 1, 1/3, 1/3 -> P_bar = 5/9;
    # p = (5/9, 4/9) -> P_e = 41/81; kappa = (5/9 - 41/81) / (1 - 41/81) = 4/40 = 0.1
    table = np.array([[3, 0], [1, 2], [1, 2]])
    assert fleiss_kappa(table) == pytest.approx(0.1)


def test_cohen_kappa_is_sklearns() -> None:
    a = ["good", "good", "bad", "bad", "good", "bad", "good"]
    b = ["good", "bad", "bad", "bad", "good", "good", "good"]
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))


def _d(n: int, user: str, target: str, new: str, original: str | None = None) -> Decision:
    return Decision(
        decision_id=f"D-{user}-{n}",
        case_id="EV-x",
        target_id=target,
        target_kind="eval_grade",
        action=DecisionAction.ACCEPT if original == new else DecisionAction.OVERRIDE,
        original_value=original,
        new_value=new,
        reason="",
        user=user,
        at=T0 + timedelta(minutes=n),
        shown={"model_name": "m1"},
    )


def test_annotator_pairs_use_each_users_latest_decision() -> None:
    values_a = ["good", "good", "bad", "bad", "good"]
    values_b = ["good", "bad", "bad", "bad", "bad"]
    decisions = [_d(i, "ann", f"t{i}", v) for i, v in enumerate(values_a)]
    decisions += [_d(i, "bob", f"t{i}", v) for i, v in enumerate(values_b)]
    decisions.append(_d(9, "bob", "t4", "good"))  # bob changes his mind on t4
    rows = between_annotators(decisions)
    assert len(rows) == 1 and rows[0]["kappa_kind"] == "cohen"
    final_b = ["good", "bad", "bad", "bad", "good"]
    assert rows[0]["kappa"] == pytest.approx(cohen_kappa_score(values_a, final_b), abs=1e-4)
    assert [d.target_id for d in rows[0]["disagreements"]] == ["t1"]


def test_three_annotators_get_fleiss() -> None:
    decisions = [
        _d(i, u, f"t{i}", v)
        for u, vs in {"a": "ggb", "b": "gbb", "c": "ggb"}.items()
        for i, v in enumerate({"g": "good", "b": "bad"}[x] for x in vs)
    ]
    rows = between_annotators(decisions)
    fleiss = [r for r in rows if r["kappa_kind"] == "fleiss"]
    assert len(rows) == 4 and len(fleiss) == 1
    table = np.array([[0, 3], [1, 2], [3, 0]])  # bad, good counts per item
    assert fleiss[0]["kappa"] == pytest.approx(fleiss_kappa(table), abs=1e-4)


def test_judge_vs_human_skips_decisions_without_a_shown_value() -> None:
    decisions = [
        _d(1, "ann", "t1", "good", "good"),
        _d(2, "ann", "t2", "bad", "good"),
        _d(3, "ann", "t3", "bad"),
    ]
    [row] = judge_vs_human(decisions)
    assert (row["metric"], row["model"], row["n"], row["accuracy"]) == ("eval_grade", "m1", 2, 0.5)
    assert [d.target_id for d in row["disagreements"]] == ["t2"]
