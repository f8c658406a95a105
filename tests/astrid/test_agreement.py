"""Agreement statistics checked against scikit-learn and by hand on fixed arrays."""

import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    confusion_matrix,
    f1_score,
    precision_score,
    recall_score,
)

from concord.astrid.agreement import binary_agreement

HUMAN = [1, 1, 1, 0, 0, 0, 1, 0, 1, 1]
JUDGE = [1, 0, 1, 0, 1, 0, 1, 0, 0, 1]


def test_matches_scikit_learn() -> None:
    got = binary_agreement([bool(x) for x in HUMAN], [bool(x) for x in JUDGE])
    assert got["n"] == 10
    assert got["accuracy"] == pytest.approx(accuracy_score(HUMAN, JUDGE))
    assert got["precision"] == pytest.approx(precision_score(HUMAN, JUDGE))
    assert got["recall"] == pytest.approx(recall_score(HUMAN, JUDGE))
    assert got["f1"] == pytest.approx(f1_score(HUMAN, JUDGE))
    assert got["kappa"] == pytest.approx(cohen_kappa_score(HUMAN, JUDGE))
    assert got["confusion"] == confusion_matrix(HUMAN, JUDGE).tolist()


def test_matches_hand_computation() -> None:
    # tp=4 fn=2 fp=1 tn=3
    got = binary_agreement([bool(x) for x in HUMAN], [bool(x) for x in JUDGE])
    assert got["confusion"] == [[3, 1], [2, 4]]
    assert got["accuracy"] == pytest.approx(0.7)
    assert got["precision"] == pytest.approx(4 / 5)
    assert got["recall"] == pytest.approx(4 / 6)
    assert got["f1"] == pytest.approx(2 * 4 / (2 * 4 + 1 + 2))
    p_observed = 0.7
    p_expected = (6 / 10) * (5 / 10) + (4 / 10) * (5 / 10)
    assert got["kappa"] == pytest.approx((p_observed - p_expected) / (1 - p_expected))


def test_degenerate_cases() -> None:
    same = binary_agreement([True, True], [True, True])
    assert same["accuracy"] == 1.0 and same["kappa"] is None
    assert binary_agreement([], [])["n"] == 0
    none_positive = binary_agreement([False, False], [False, True])
    assert none_positive["precision"] == 0.0 and none_positive["recall"] == 0.0
    assert np.asarray(none_positive["confusion"]).sum() == 2
