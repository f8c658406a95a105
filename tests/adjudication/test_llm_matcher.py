"""The LLM judge's match proposals: asked for several briefs at once, each question once."""

from __future__ import annotations

import json

from concord.adjudication.llm_matcher import LlmMatchProposer
from concord.domain import BriefSection
from concord.llm.runtime import GenerationRequest
from concord.llm.scripted import ScriptedRuntime
from tests.adjudication.helpers import item

SPEC = [item(BriefSection.TOP_RISKS, 1, "Pulmonary toxicity after bleomycin")]
ANAES = [item(BriefSection.TOP_RISKS, 1, "Lung damage from chemotherapy")]
OTHER = [item(BriefSection.TOP_RISKS, 2, "Difficult airway")]


def pairing(request: GenerationRequest) -> str:
    pair = request.schema["properties"]["pairs"]["items"]["properties"]  # type: ignore[index]
    return json.dumps({"pairs": [{"s": pair["s"]["enum"][0], "a": pair["a"]["enum"][0]}]})


def test_prefetched_answers_are_read_not_asked_again() -> None:
    runtime = ScriptedRuntime(pairing)
    proposer = LlmMatchProposer(runtime, "RECORD\n")
    # two briefs that leave the same items unmatched ask the same question: decoded once
    proposer.prefetch([(SPEC, ANAES, 0), (SPEC, ANAES, 0), (SPEC, OTHER, 0), (SPEC, ANAES, 1)])
    assert len(runtime.requests) == 3
    assert [r.agent for r in runtime.requests] == ["judge"] * 3
    assert proposer(SPEC, ANAES, 0) == [("top_risks.1", "top_risks.1")]
    assert proposer(SPEC, ANAES, 0) == [("top_risks.1", "top_risks.1")]  # kept, not popped
    assert proposer(SPEC, OTHER, 0) == [("top_risks.1", "top_risks.2")]
    assert len(runtime.requests) == 3
    # a question nobody prefetched is generated alone, once
    assert proposer(OTHER, ANAES, 0) == [("top_risks.2", "top_risks.1")]
    assert proposer(OTHER, ANAES, 0) == [("top_risks.2", "top_risks.1")]
    assert len(runtime.requests) == 4


def test_an_answer_that_does_not_fit_proposes_nothing_and_is_counted() -> None:
    runtime = ScriptedRuntime(['{"pairs": [{"s": "top_risks.1"}]}'])
    proposer = LlmMatchProposer(runtime, "RECORD\n")
    proposer.prefetch([(SPEC, ANAES, 0)])
    assert proposer(SPEC, ANAES, 0) == []
    assert proposer.failures == ["seed 0: ValidationError"]
