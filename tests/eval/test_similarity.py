from __future__ import annotations

import numpy as np
import pytest

from concord.eval.similarity import maxsim, mean_pool, pooled_cosine, score_answer


def test_pooled_cosine_on_hand_made_vectors() -> None:
    a = np.array([[1.0, 0.0], [1.0, 0.0]])  # mean (1, 0)
    b = np.array([[0.0, 1.0], [2.0, 1.0]])  # mean (1, 1)
    assert pooled_cosine(a, b) == pytest.approx(1 / np.sqrt(2))
    assert pooled_cosine(a, -a) == pytest.approx(-1.0)
    assert mean_pool(b).tolist() == [1.0, 1.0]


def test_maxsim_takes_the_best_document_token_per_query_token() -> None:
    query = np.array([[1.0, 0.0], [0.0, 1.0]])
    doc = np.array([[1.0, 0.0], [1.0, 1.0]])
    # query token 1: best is doc token 1 (cos 1); query token 2: best is doc token 2 (1/sqrt2)
    assert maxsim(query, doc) == pytest.approx((1.0 + 1 / np.sqrt(2)) / 2)
    # not symmetric: each doc token finds its best query token
    assert maxsim(doc, query) == pytest.approx((1.0 + 1 / np.sqrt(2)) / 2)
    assert maxsim(query, query) == pytest.approx(1.0)
    # vector length does not matter, only direction
    assert maxsim(3 * query, doc) == pytest.approx(maxsim(query, doc))


def test_score_answer_keeps_max_and_mean_over_labels() -> None:
    answer = np.array([[1.0, 0.0]])
    labels = [np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])]
    s = score_answer(answer, labels)
    assert (s.cosine_max, s.cosine_mean) == pytest.approx((1.0, 0.5))
    assert (s.maxsim_max, s.maxsim_mean) == pytest.approx((1.0, 0.5))
    assert s.labels == 2


def test_empty_inputs_are_refused() -> None:
    with pytest.raises(ValueError):
        maxsim(np.zeros((0, 2)), np.ones((1, 2)))
    with pytest.raises(ValueError):
        score_answer(np.ones((1, 2)), [])
