"""A figure's `met` is computed from its value and target; a miss is never hidden."""

from __future__ import annotations

import pytest

from concord.bench.figures import Figure, Target, format_target, format_value


def test_target_operators() -> None:
    assert Target(">=", 2.5).holds(2.5)
    assert not Target(">=", 2.5).holds(2.49)
    assert Target("<", 100).holds(99.9)
    assert not Target("<", 100).holds(100)
    with pytest.raises(ValueError):
        Target("==", 1)


def test_miss_reference_and_not_measured() -> None:
    missed = Figure("x", 1.2, "x", "a vs b", Target(">=", 2.5))
    assert missed.met is False and missed.status == "MISSED"
    assert missed.as_json()["met"] is False
    met = Figure("x", 3.0, "x", "a vs b", Target(">=", 2.5))
    assert met.met is True and met.status == "met"
    reference = Figure("raw", 50.0, "tok/s", "reference")
    assert reference.met is None and reference.status == "reference"
    absent = Figure("stall", None, "ms", "qt", Target("<", 100), note="no Qt")
    assert absent.met is None and absent.status == "NOT MEASURED"
    assert Figure("nan", float("nan"), "x", "", Target(">=", 1)).met is False


def test_json_of_a_figure_has_every_key() -> None:
    data = Figure("x", 0.06, "share", "outside the model", Target("<=", 0.05)).as_json()
    assert set(data) >= {"value", "target", "met", "compared_with", "unit", "status"}
    assert data["target"] == {"op": "<=", "value": 0.05}
    assert data["met"] is False


def test_formatting() -> None:
    assert format_value(0.0412, "share") == "4.1%"
    assert format_target(Target("<=", 0.05), "share") == "≤ 5%"
    assert format_value(2.61, "x") == "2.61×"
    assert format_target(Target(">=", 2.5), "x") == "≥ 2.5×"
    assert format_value(None, "ms") == "—"
