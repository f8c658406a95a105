"""Kappa with its bootstrap interval, and the Wilson interval of a share."""

from __future__ import annotations

import pytest
from sklearn.metrics import cohen_kappa_score

from concord.site.figures import Rate
from concord.validation.stats import kappa_with_interval, wilson_interval


def test_kappa_is_scikit_learns_and_the_interval_contains_it() -> None:
    human = ["High", "Low", "Low", "Medium", "Very Low", "Low", "High", "Medium"] * 3
    model = ["High", "Low", "Medium", "Medium", "Low", "Low", "High", "Low"] * 3
    got = kappa_with_interval(human, model, resamples=500)
    assert got.kappa == pytest.approx(cohen_kappa_score(human, model))
    assert got.n == 24 and got.observed == pytest.approx(15 / 24)
    assert got.ci_low is not None and got.ci_high is not None
    assert got.ci_low < got.kappa < got.ci_high and got.ci_high - got.ci_low < 1.0
    again = kappa_with_interval(human, model, resamples=500)
    assert (again.ci_low, again.ci_high) == (got.ci_low, got.ci_high)  # seeded


def test_kappa_says_when_it_is_undefined_or_rests_on_nothing() -> None:
    assert kappa_with_interval([], []).n == 0
    one = kappa_with_interval(["Low"] * 4, ["Low"] * 4)
    assert one.kappa is None and one.observed == 1.0 and "one category" in one.note
    small = kappa_with_interval(["Low", "High", "Low"], ["Low", "High", "High"])
    assert "very wide" in small.note


def test_wilson_interval() -> None:
    low, high = wilson_interval(Rate(numerator=8, denominator=10)) or (0, 0)
    assert low == pytest.approx(0.4902, abs=1e-3) and high == pytest.approx(0.9433, abs=1e-3)
    assert wilson_interval(Rate()) is None
    assert wilson_interval(Rate(numerator=0, denominator=5))[0] == 0.0  # type: ignore[index]


def test_each_bootstrap_kappa_is_scikit_learns_on_that_resample() -> None:
    import numpy as np

    from concord.validation.stats import _bootstrap_kappas

    human = ["a", "b", "b", "c", "a", "c", "b", "a", "c", "b"]
    model = ["a", "b", "c", "c", "b", "c", "b", "a", "a", "b"]
    labels = ("a", "b", "c")
    got = _bootstrap_kappas(human, model, labels, 50, seed=3)
    picks = np.random.default_rng(3).integers(0, len(human), size=(50, len(human)))
    want = [
        cohen_kappa_score([human[i] for i in row], [model[i] for i in row], labels=list(labels))
        for row in picks
    ]
    assert got == pytest.approx([w for w in want if w == w])
