"""The site policy: defaults written on first use, a bad file is one clear error, and the
checks read the figures as the site set them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from concord.errors import InputError
from concord.site.figures import Agreement, ModelFigures, Rate
from concord.site.policy import SitePolicy, evaluate, load_policy


def figures(**changes: object) -> ModelFigures:
    data: dict[str, object] = {
        "role": "candidate",
        "model_name": "m",
        "model_sha256": "ab" * 32,
        "records": 12,
        "valid_outputs": Rate(numerator=19, denominator=20),
        "verified_evidence": Rate(numerator=95, denominator=100),
        "gates_addressed": Rate(numerator=6, denominator=10),
        "judge_agreement": Agreement(n=30, kappa=0.6, ci_low=0.35, ci_high=0.8),
        "seconds_per_patient": 300.0,
        "peak_memory_mb": 2000.0,
    }
    data.update(changes)
    return ModelFigures.model_validate(data)


def test_defaults_are_written_on_first_use_and_read_back(concord_home: Path) -> None:
    policy = load_policy()
    assert policy == SitePolicy()
    written = json.loads((concord_home / "policy.json").read_text())
    assert written["min_valid_outputs"] == 0.9 and written["version"] == 1
    assert load_policy() == policy


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"min_valid_outputs": 1.5}', "min_valid_outputs"),
        ('{"min_valid_outputs": 0.9,', "not valid JSON"),
        ('{"min_valid_output": 0.9}', "min_valid_output"),
        ('{"version": 2}', "version"),
    ],
)
def test_a_bad_policy_is_one_clear_error_naming_the_file(
    concord_home: Path, text: str, says: str
) -> None:
    (concord_home / "policy.json").write_text(text)
    with pytest.raises(InputError) as caught:
        load_policy()
    line = caught.value.one_line()
    assert "policy.json" in line and says in line and "\n" not in line


def test_every_check_and_the_comparison_with_the_accepted_model() -> None:
    policy = SitePolicy()
    assert all(c.passed for c in evaluate(policy, figures()))
    failed = {
        c.name
        for c in evaluate(
            policy,
            figures(
                records=3,
                judge_agreement=Agreement(n=8, kappa=0.5, ci_low=0.05, ci_high=0.9),
                peak_memory_mb=None,
            ),
        )
        if not c.passed
    }
    assert failed == {"reference cases", "judge kappa (95% lower)", "judge decisions (n)",
                      "peak memory (MB)"}  # fmt: skip
    accepted = figures(gates_addressed=Rate(numerator=9, denominator=10))
    worse = {c.name for c in evaluate(policy, figures(), accepted) if not c.passed}
    assert worse == {"gates addressed vs accepted"}
    off = SitePolicy(max_drop_vs_accepted=None, min_judge_kappa_lower=None)
    names = {c.name for c in evaluate(off, figures(), accepted)}
    assert "gates addressed vs accepted" not in names and "judge kappa (95% lower)" not in names
