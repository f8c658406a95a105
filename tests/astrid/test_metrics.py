"""CF formula on hand-computed cases, and refusal accuracy against scope."""

import pytest

from concord.astrid.metrics import (
    CfCounts,
    cf_counts,
    cf_high,
    conversational_faithfulness,
    refusal_correct,
)


def cf(info: list[bool | None], grounded: list[bool | None]) -> float:
    return conversational_faithfulness(cf_counts(info, grounded))


def test_no_information_containing_sentence_gives_one() -> None:
    assert conversational_faithfulness(CfCounts(n=0, y=0, u=0)) == 1.0
    # an answer that is all conversational: "Thanks!" "Anything else?"
    assert cf([False, False], [None, None]) == 1.0


def test_hand_computed_cases() -> None:
    # greeting, grounded, ungrounded, grounded, follow-up question -> Y=2, N=3
    assert cf([False, True, True, True, False], [None, True, False, True, None]) == pytest.approx(
        2 / 3
    )
    assert cf([True, True], [True, True]) == 1.0
    assert cf([True, True], [False, False]) == 0.0
    assert cf([False, True], [None, False]) == 0.0


def test_missing_verdicts_count_against_faithfulness() -> None:
    counts = cf_counts([True, None, True], [True, True, None])
    assert (counts.n, counts.y, counts.u, counts.r) == (3, 2, 0, 1)
    assert conversational_faithfulness(counts) == pytest.approx(2 / 3)


def test_inconsistent_counts_give_zero() -> None:
    assert conversational_faithfulness(CfCounts(n=2, y=2, u=1)) == 0.0


def test_cf_threshold_and_refusal_against_scope() -> None:
    assert cf_high(0.5) and cf_high(1.0) and not cf_high(0.49)
    assert refusal_correct(True, "out") is True
    assert refusal_correct(False, "out") is False
    assert refusal_correct(False, "in") is True
    assert refusal_correct(True, "in") is False
    assert refusal_correct(None, "in") is None
    assert refusal_correct(True, None) is None
