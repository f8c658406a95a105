"""Shared ASTRID fixtures: a scripted judge that answers from the sentence it is asked about."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from concord.astrid.items import QaItem
from concord.astrid.load import load_items
from concord.llm.runtime import GenerationRequest
from concord.llm.scripted import ScriptedRuntime

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "qa_cataract_followup.jsonl"
_SENTENCE = re.compile(r'\[S\d+\] of the ANSWER: "(.*)"')


def metric_of(prompt: str) -> str:
    for words, metric in (
        (('"information"', '"conversational"'), "cf_info"),
        (('"supported"', '"unsupported"'), "cf_grounded"),
        (('"relevant"', '"irrelevant"'), "cr"),
        (('"attempts"', '"declines"'), "ra"),
    ):
        if all(w in prompt for w in words):
            return metric
    raise AssertionError(f"unknown judge prompt: {prompt[:80]}")


def rule_judge(
    *,
    conversational: Callable[[str], bool] = lambda s: s.endswith("?") or len(s) < 22,
    grounded: Callable[[str], bool] = lambda s: "tap water" not in s,
    relevant: bool = True,
    refuses: bool = False,
) -> Callable[[GenerationRequest], str]:
    """A deterministic stand-in for a judge model."""

    def answer(request: GenerationRequest) -> str:
        metric = metric_of(request.prompt)
        match = _SENTENCE.search(request.prompt)
        sentence = match.group(1) if match else ""
        verdict = {
            "cf_info": "conversational" if conversational(sentence) else "information",
            "cf_grounded": "supported" if grounded(sentence) else "unsupported",
            "cr": "relevant" if relevant else "irrelevant",
            "ra": "declines" if refuses else "attempts",
        }[metric]
        return json.dumps({"reason": f"rule for {metric}", "verdict": verdict})

    return answer


@pytest.fixture
def demo_items() -> list[QaItem]:
    return load_items(DEMO)


@pytest.fixture
def scripted() -> ScriptedRuntime:
    return ScriptedRuntime(rule_judge(), model_name="scripted-judge")
