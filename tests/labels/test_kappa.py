"""Cohen's kappa with its bootstrap interval: scikit-learn's point, a deterministic interval
around it, None where kappa is undefined."""

from __future__ import annotations

import pytest
from sklearn.metrics import cohen_kappa_score

from concord.labels.kappa import cohen_kappa_interval

A = list("yyynnyynnnyynyyynnny" * 2)
B = list("yynnnyyynnyynyynnnyy" * 2)


def test_the_point_is_scikit_learns_and_the_interval_holds_it() -> None:
    got = cohen_kappa_interval(A, B)
    assert got.n == len(A)
    assert got.kappa == pytest.approx(cohen_kappa_score(A, B))
    assert got.low is not None and got.high is not None
    assert -1.0 <= got.low < got.kappa < got.high <= 1.0
    assert cohen_kappa_interval(A, B) == got  # the same labels, the same interval


def test_fewer_items_give_a_wider_interval() -> None:
    small = cohen_kappa_interval(A[:10], B[:10])
    large = cohen_kappa_interval(A, B)
    assert small.low is not None and large.low is not None
    assert (small.high - small.low) > (large.high - large.low)


def test_undefined_kappa_is_none_and_perfect_agreement_is_one() -> None:
    same = cohen_kappa_interval(["y"] * 8, ["y"] * 8)
    assert same.kappa is None and same.low is None  # one category only: chance agreement 1
    perfect = cohen_kappa_interval(list("yynn" * 5), list("yynn" * 5))
    assert perfect.kappa == 1.0 and perfect.low == 1.0 and perfect.high == 1.0
    assert cohen_kappa_interval([], []).kappa is None
    assert perfect.json() == {"n": 20, "kappa": 1.0, "ci95": [1.0, 1.0]}
